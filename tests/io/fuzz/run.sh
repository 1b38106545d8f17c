#!/usr/bin/env bash
# Builds the fuzzers with clang (NX_FUZZ) and runs each for a few seconds
# over a copy of its committed seeds: ctest's fuzz_io. Skips, with the
# reason, where clang's libFuzzer is missing. $1 the source root, $2 a build
# folder, $3 seconds per parser (default 10).
set -u
src=$1 dir=$2 secs=${3:-10}
cc=$(command -v clang || true)
if [ -z "$cc" ]; then echo "SKIP: clang is not installed (the fuzzers need its libFuzzer)"; exit 77; fi
mkdir -p "$dir"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$dir/probe.c"
if ! "$cc" -fsanitize=fuzzer "$dir/probe.c" -o "$dir/probe" 2>/dev/null; then
  echo "SKIP: $cc has no libFuzzer (-fsanitize=fuzzer does not link)"; exit 77
fi
cmake -S "$src" -B "$dir/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNX_FUZZ=ON \
  -DNX_TESTS=OFF -DNX_BENCH=OFF >"$dir/build.log" 2>&1 &&
  cmake --build "$dir/build" -j "$(nproc)" --target fuzz_npy fuzz_npz fuzz_safetensors fuzz_gguf >>"$dir/build.log" 2>&1 ||
  { tail -30 "$dir/build.log"; echo "the fuzzers do not build"; exit 1; }
status=0
for p in npy npz safetensors gguf; do
  rm -rf "$dir/corpus-$p" && cp -r "$src/tests/io/fuzz/seeds/$p" "$dir/corpus-$p"
  if ! (cd "$dir" && ./build/tests/io/fuzz/fuzz_$p -max_total_time="$secs" -max_len=4096 "corpus-$p" >"fuzz-$p.log" 2>&1); then
    tail -40 "$dir/fuzz-$p.log"; echo "fuzz_$p found a failure"; status=1
  else
    echo "fuzz_$p: $(grep -o 'Done [0-9]* runs' "$dir/fuzz-$p.log" | tail -1) in ${secs}s"
  fi
done
exit $status
