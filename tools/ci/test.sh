#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make test: configure, build and run every suite under ctest, once plainly and
# once under ASan+UBSan, the concurrency suites under TSan too, the fuzzers
# for 10 seconds each (clang, label fuzz), then print
# "N passed, M failed, K skipped" with the reasons for skips above it.
set -u
cd "$(dirname "$0")/../.."
jobs=$(nproc 2>/dev/null || echo 2)
status=0
# The suites that run Python run the project's virtual environment
# (tools/install-deps.sh test makes it), never the system's python3.
venv=${NX_VENV:-build/venv}
py_opts=""
py=python3
if [ -x "$venv/bin/python" ]; then
  py=$(cd "$venv/bin" && pwd)/python
  py_opts="-DPython3_EXECUTABLE=$py -DNX_PYTHON3=$py"
else
  echo "== no virtual environment at $venv (tools/install-deps.sh test makes it): the numpy suites may skip"
fi
# One PoCL kernel cache for every build (tests/devices/CMakeLists.txt says why).
cache_opts="-DNX_POCL_CACHE_DIR=$PWD/build/pocl-cache"
run() { # name, cmake options, ctest options[, "only": build just the suites those select]
  local name=$1 opts=$2 sel=$3 dir=build/$1 targets=""
  echo "== $name: configure and build"
  local ok=1
  cmake -S . -B "$dir" -DNX_BENCH=OFF -DNX_WERROR=ON $py_opts $cache_opts $opts >"$dir.log" 2>&1 || ok=0
  if [ $ok = 1 ] && [ "${4:-}" = only ]; then
    # A build that runs a few suites builds those alone (and what they
    # link), not the whole tree: the suites' names are their targets'.
    targets=$(cd "$dir" && ctest -N $sel | sed -n 's/^ *Test *#[0-9]*: *//p' | tr '\n' ' ')
    [ -n "$targets" ] && targets="--target $targets"
  fi
  [ $ok = 1 ] && { cmake --build "$dir" -j "$jobs" $targets >>"$dir.log" 2>&1 || ok=0; }
  if [ $ok = 0 ]; then
    tail -50 "$dir.log"
    echo "BUILD FAILED: $name" | tee build/$name.buildfail
    status=1
    return
  fi
  rm -f build/$name.buildfail
  reports+=("$dir/junit.xml")
  echo "== $name: test"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" $sel --output-junit "$PWD/junit.xml") || status=1
}
mkdir -p build
rm -f build/*.buildfail build/*/junit.xml
reports=()
run plain "-DCMAKE_BUILD_TYPE=RelWithDebInfo" ""
run asan "-DCMAKE_BUILD_TYPE=Debug -DNX_SANITIZE=ON" ""
# Optional backends never break the core: without OpenCL every suite builds
# and passes, the OpenCL cases skipping with their reason.
run noopencl "-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNX_OPENCL=OFF" ""
# TSan runs the suites labelled concurrency, where there are any.
if (cd build/plain 2>/dev/null && ctest -N -L concurrency | grep -q "Test *#"); then
  run tsan "-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNX_TSAN=ON" "-L concurrency" only
else
  echo "== tsan: no suite is labelled concurrency"
fi
# The fuzzers, 10 seconds each over their seed corpora, where clang is.
if command -v clang >/dev/null; then
  run fuzz "-DCMAKE_C_COMPILER=clang -DNX_FUZZ=ON -DNX_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo" "-L fuzz"
else
  echo "== fuzz: skipped: no clang (tools/install-deps.sh test installs it)"
fi
shopt -s nullglob
"$py" tools/ci/summary.py "${reports[@]}" build/*.buildfail || status=1
exit $status
