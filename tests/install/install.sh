#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The installed package as a user meets it. One mode per ctest test:
#   setup      install the build into <work>/stage, then move it to
#              <work>/prefix: everything below must work from where the tree
#              lies now, not where it was installed
#   tree       headers alone from the prefix, the soname, nx.pc's contents,
#              and a configuration without OpenCL writing no -lOpenCL
#   pkgconfig  every example and the README's C blocks, built with
#              pkg-config --cflags --libs nx (and one as C++17), and run
#   cmake      the examples project (examples/CMakeLists.txt) with
#              find_package(nx) against the prefix, linking nx::nx, then
#              nx::nx_static, each program run; and dlpack_numpy.py
# Environment: NX_SOURCE, NX_BUILD, NX_WORK, NX_CC, NX_CXX (may be empty),
# NX_CMAKE, NX_FLAGS (sanitizer flags for programs linking the library),
# NX_PYTHON (may be empty), NX_OPENCL (1 if the build found OpenCL), NX_VERSION,
# NX_MAJOR, NX_LIBDIR.
set -u
mode=$1
prefix=$NX_WORK/prefix
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
say() { echo "-- $*"; }
export PKG_CONFIG_PATH=$prefix/$NX_LIBDIR/pkgconfig
unset PKG_CONFIG_LIBDIR

# The README's ```c blocks, each a whole program, into dir/readme_N.c.
readme_blocks() {
  awk -v dir="$1" '/^```c$/ { n++; f = dir "/readme_" n ".c"; on = 1; next }
                   /^```/ { on = 0 } on { print > f }' "$NX_SOURCE/README.md"
}

# Runs program $1 (a name for messages) as the rest of the line; its output
# goes to the log, and it must exit 0.
run() {
  local name=$1
  shift
  if "$@" >"$NX_WORK/run.out" 2>&1; then
    say "$name ran: $(head -1 "$NX_WORK/run.out")"
  else
    fail "$name exited $?"
    cat "$NX_WORK/run.out"
  fi
}

case $mode in
setup)
  rm -rf "$NX_WORK"
  mkdir -p "$NX_WORK"
  "$NX_CMAKE" --install "$NX_BUILD" --prefix "$NX_WORK/stage" >"$NX_WORK/install.log" 2>&1 \
    || { cat "$NX_WORK/install.log"; exit 1; }
  mv "$NX_WORK/stage" "$prefix"
  say "installed, then moved to $prefix"
  ;;

tree)
  for f in include/nx.h include/nx_version.h include/dlpack/dlpack.h $NX_LIBDIR/libnx.a $NX_LIBDIR/libnx.so \
           "$NX_LIBDIR/libnx.so.$NX_MAJOR" $NX_LIBDIR/pkgconfig/nx.pc $NX_LIBDIR/cmake/nx/nxConfig.cmake bin/nx; do
    [ -e "$prefix/$f" ] || fail "$f is not installed"
  done
  # Every installed header compiles alone from the prefix: nx.h must not
  # include a header that is not installed.
  for h in $(cd "$prefix/include" && find . -name '*.h' | sed 's|^\./||'); do
    printf '#include <%s>\n' "$h" | "$NX_CC" -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only \
      -I"$prefix/include" -x c - || fail "installed $h does not compile alone"
  done
  soname=$(objdump -p "$prefix/$NX_LIBDIR/libnx.so" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
  [ "$soname" = "libnx.so.$NX_MAJOR" ] || fail "soname '$soname', not libnx.so.$NX_MAJOR"
  grep -rq "$NX_WORK/stage" "$prefix/$NX_LIBDIR/pkgconfig" "$prefix/$NX_LIBDIR/cmake" \
    && fail "the installed package names the prefix it was installed to"
  cflags=$(pkg-config --cflags nx) || fail "pkg-config --cflags nx"
  cflags=$(echo $cflags)
  [ "$(cd "${cflags#-I}" 2>/dev/null && pwd -P)" = "$(cd "$prefix/include" && pwd -P)" ] \
    || fail "pkg-config --cflags nx is '$cflags', not the moved prefix's include"
  [ "$(pkg-config --modversion nx)" = "$NX_VERSION" ] || fail "nx.pc's version $(pkg-config --modversion nx), not $NX_VERSION"
  private=$(pkg-config --libs --static nx)
  if [ "$NX_OPENCL" = 1 ]; then
    case " $private " in *" -lOpenCL "*) ;; *) fail "built with OpenCL, but --static gives '$private'" ;; esac
  else
    case " $private " in *OpenCL*) fail "built without OpenCL, but --static gives '$private'" ;; esac
  fi
  # A configuration that does not find OpenCL writes no -lOpenCL.
  "$NX_CMAKE" -S "$NX_SOURCE" -B "$NX_WORK/no-opencl" -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON -DNX_TESTS=OFF \
    -DNX_BENCH=OFF >"$NX_WORK/no-opencl.log" 2>&1 || { cat "$NX_WORK/no-opencl.log"; fail "configure without OpenCL"; }
  grep -q OpenCL "$NX_WORK/no-opencl/nx.pc" && fail "nx.pc without OpenCL: $(grep Libs "$NX_WORK/no-opencl/nx.pc")"
  grep -q '^Libs.private: .*-lpthread' "$NX_WORK/no-opencl/nx.pc" || fail "nx.pc without OpenCL lost -lpthread"
  ;;

pkgconfig)
  dir=$NX_WORK/pkgconfig
  rm -rf "$dir" && mkdir -p "$dir"
  readme_blocks "$dir"
  ls "$dir"/readme_*.c >/dev/null 2>&1 || fail "README.md has no \`\`\`c block"
  read -r -a cflags <<<"$(pkg-config --cflags nx)"
  read -r -a libs <<<"$(pkg-config --libs nx)"
  for src in "$NX_SOURCE"/examples/*.c "$dir"/readme_*.c; do
    name=$(basename "$src" .c)
    # -Wl,-rpath: run from the prefix as an installed program would.
    if "$NX_CC" -std=c11 -Wall -Wextra -Werror $NX_FLAGS "${cflags[@]}" "$src" "${libs[@]}" \
        -Wl,-rpath,"$prefix/$NX_LIBDIR" -o "$dir/$name"; then
      run "$name" "$dir/$name"
    else
      fail "$name does not build through pkg-config"
    fi
  done
  # C++ programs link the same library: extern "C" on every header.
  if [ -n "$NX_CXX" ]; then
    cp "$NX_SOURCE/examples/arrays.c" "$dir/arrays_cpp.cpp"
    if "$NX_CXX" -std=c++17 -Wall -Wextra -Werror $NX_FLAGS "${cflags[@]}" "$dir/arrays_cpp.cpp" "${libs[@]}" \
        -Wl,-rpath,"$prefix/$NX_LIBDIR" -o "$dir/arrays_cpp" 2>"$dir/cxx.log"; then
      run "arrays as C++17" "$dir/arrays_cpp"
    else
      cat "$dir/cxx.log"
      fail "examples/arrays.c does not build as C++17 through pkg-config"
    fi
  fi
  ;;

cmake)
  dir=$NX_WORK/cmake
  rm -rf "$dir" && mkdir -p "$dir"
  readme_blocks "$dir"
  extra=$(ls "$dir"/readme_*.c 2>/dev/null | paste -sd ';')
  for target in nx::nx nx::nx_static; do
    b=$dir/build-${target#nx::}
    if "$NX_CMAKE" -S "$NX_SOURCE/examples" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$NX_CC" \
        -DCMAKE_C_FLAGS="$NX_FLAGS" -DNX_EXAMPLES_TARGET="$target" "-DNX_EXTRA_EXAMPLES=$extra" \
        >"$b.log" 2>&1 && "$NX_CMAKE" --build "$b" -j 2 >>"$b.log" 2>&1; then
      for src in "$NX_SOURCE"/examples/*.c "$dir"/readme_*.c; do
        run "$(basename "$src" .c) ($target)" "$b/$(basename "$src" .c)"
      done
    else
      cat "$b.log"
      fail "the examples do not build with find_package(nx) and $target"
    fi
  done
  # The static build links libnx.a, the shared one libnx.so.
  objdump -p "$dir/build-nx/arrays" 2>/dev/null | grep -q "NEEDED.*libnx\.so\.$NX_MAJOR" \
    || fail "nx::nx did not link libnx.so.$NX_MAJOR"
  objdump -p "$dir/build-nx_static/arrays" 2>/dev/null | grep -q "NEEDED.*libnx\.so" \
    && fail "nx::nx_static linked libnx.so"
  if [ -z "$NX_PYTHON" ]; then
    say "dlpack_numpy.py not run: no Python configured"
  elif ! "$NX_PYTHON" -c 'import numpy, sys; sys.exit(tuple(map(int, numpy.__version__.split(".")[:2])) < (2, 1))' 2>/dev/null; then
    say "dlpack_numpy.py not run: $NX_PYTHON has no numpy 2.1 or later"
  else
    run dlpack_numpy.py "$NX_PYTHON" "$NX_SOURCE/examples/dlpack_numpy.py" "$prefix/$NX_LIBDIR/libnx.so"
  fi
  ;;
*)
  echo "usage: install.sh setup|tree|pkgconfig|cmake" >&2
  exit 2
  ;;
esac
[ $fails = 0 ] && echo "$mode: passed" || echo "$mode: $fails failed"
[ $fails = 0 ]
