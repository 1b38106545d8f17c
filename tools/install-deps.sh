#!/usr/bin/env bash
# Installs what nx's build, tests and benchmarks need on a Debian machine, and
# nothing that is already there. Run as root (CI and fresh machines); as another
# user it only reports what is missing.
set -eu

apt_pkgs="build-essential cmake pkg-config libmpfr-dev libgmp-dev zlib1g-dev \
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo python3 python3-pip"
# Optional: OpenBLAS (serial: nx's pool runs the threads) and LAPACKE for
# matmul of float64 and complex and the linear algebra; without them the
# build declines those operations.
apt_pkgs="$apt_pkgs libopenblas-serial-dev liblapacke-dev"
missing=""
for p in $apt_pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "install-deps: apt-get install$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "install-deps: missing Debian packages (run as root to install):$missing" >&2
  fi
fi

# Optional: SLEEF, the vector float32 transcendentals (the build finds it and
# works without it; docs/kernels.md).
opt_pkgs="libsleef-dev"
for p in $opt_pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
  if [ "$(id -u)" = 0 ]; then
    echo "install-deps: apt-get install $p (optional)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null \
      || echo "install-deps: optional $p not installed; the build works without it" >&2
  else
    echo "install-deps: optional Debian package missing (run as root to install): $p" >&2
  fi
done

py=${PYTHON:-python3}
if ! "$py" -c "import numpy, ml_dtypes" 2>/dev/null; then
  echo "install-deps: pip install numpy ml_dtypes"
  "$py" -m pip install -q numpy ml_dtypes 2>/dev/null \
    || "$py" -m pip install -q --break-system-packages numpy ml_dtypes
fi
