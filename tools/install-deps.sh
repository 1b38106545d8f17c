#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what one purpose of nx needs on a Debian machine, and nothing that
# is already there:
#   build  a C compiler (build-essential), CMake and pkg-config; libzip and
#          jansson (the io module: .npz, safetensors headers); OpenBLAS (its
#          pthread variant) and LAPACKE (matmul of float64 and complex, the
#          linear algebra): the library, the nx command, make run and make
#          install
#   test   build's, and MPFR and GMP (the oracles), PoCL with the OpenCL ICD
#          loader and headers (the OpenCL suites), python3 and a Python
#          virtual environment with numpy, ml_dtypes, safetensors and gguf
#          (the numpy and io suites); clang with libFuzzer (the fuzzers, make
#          fuzz) and Spin (the model of the claim protocol); tmux (the nx
#          command run in a terminal)
#   bench  build's, python3 and the same virtual environment (the peers);
#          with NX_BENCH_TORCH=1 also torch, the conv2d peer of bench/linalg
#          (pip's torch brings CUDA's libraries, about 5 GiB, so only asked)
# For every purpose it also tries SLEEF (libsleef-dev), optional: the build
# finds it and works without it.
# usage: tools/install-deps.sh build|test|bench ...
# Debian packages are installed as root (CI and fresh machines); as another
# user it only reports what is missing. Python packages go into the
# project's virtual environment, build/venv (NX_VENV to put it elsewhere;
# made by $PYTHON, python3 by default, with python3-venv installed first
# where it lacks venv), never into the system's Python; the tests and
# benchmarks run its python. A pip install that fails is reported and the
# suites that need the package skip.
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: tools/install-deps.sh build|test|bench ..." >&2; exit 2; }

# The io module's build dependencies: libzip (.npz) and jansson (safetensors headers).
build_pkgs="build-essential cmake pkg-config libzip-dev libjansson-dev"
# OpenBLAS (the threaded variant, set to one thread: nx's pool runs the
# threads; the serial variant is unsafe to call from two threads at once)
# and LAPACKE, for matmul of float64 and complex and the linear algebra;
# the build works without them.
build_pkgs="$build_pkgs libopenblas-pthread-dev liblapacke-dev"
test_pkgs="libmpfr-dev libgmp-dev pocl-opencl-icd ocl-icd-opencl-dev opencl-headers python3 clang libclang-rt-14-dev spin tmux"
apt_pkgs="" venv=0
for purpose in "$@"; do
  case $purpose in
    build) apt_pkgs="$apt_pkgs $build_pkgs" ;;
    test) apt_pkgs="$apt_pkgs $build_pkgs $test_pkgs" venv=1 ;;
    bench) apt_pkgs="$apt_pkgs $build_pkgs python3" venv=1 ;;
    *) echo "install-deps: unknown purpose '$purpose' (build, test or bench)" >&2; exit 2 ;;
  esac
done

apt_install() { # packages...: those not installed yet
  local missing="" p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -n "$missing" ] || return 0
  if [ "$(id -u)" = 0 ]; then
    echo "install-deps: apt-get install$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "install-deps: missing Debian packages (run as root to install):$missing" >&2
  fi
}
# shellcheck disable=SC2086
apt_install $(echo $apt_pkgs | tr ' ' '\n' | sort -u)

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

[ $venv = 1 ] || exit 0
dir=${NX_VENV:-build/venv}
py=${PYTHON:-python3}
if [ ! -x "$dir/bin/python" ]; then
  # Debian's python3 makes virtual environments only with python3-venv.
  "$py" -c "import venv, ensurepip" 2>/dev/null || apt_install python3-venv
  echo "install-deps: python virtual environment $dir"
  mkdir -p "$(dirname "$dir")"
  "$py" -m venv "$dir"
fi
if ! "$dir/bin/python" -c "import numpy, ml_dtypes" 2>/dev/null; then
  echo "install-deps: pip install numpy ml_dtypes into $dir"
  "$dir/bin/python" -m pip install -q --disable-pip-version-check numpy ml_dtypes \
    || echo "install-deps: numpy and ml_dtypes could not be installed: the suites that need them will skip" >&2
fi
# The io tests' clients: safetensors and gguf beside numpy and ml_dtypes.
if ! "$dir/bin/python" -c "import safetensors, gguf" 2>/dev/null; then
  echo "install-deps: pip install safetensors gguf into $dir"
  "$dir/bin/python" -m pip install -q --disable-pip-version-check safetensors gguf \
    || echo "install-deps: safetensors and gguf could not be installed: the suites that need them will skip" >&2
fi
# torch, the optional conv2d peer (bench/linalg/run.py skips it when absent).
if [ "${NX_BENCH_TORCH:-0}" = 1 ] && ! "$dir/bin/python" -c "import torch" 2>/dev/null; then
  echo "install-deps: pip install torch into $dir (NX_BENCH_TORCH=1)"
  "$dir/bin/python" -m pip install -q --disable-pip-version-check torch \
    || echo "install-deps: torch could not be installed: bench/linalg runs without its conv2d peer" >&2
fi
