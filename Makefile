# The commands the README names. Each does its own set-up on a fresh Debian
# machine (as root): tools/install-deps.sh installs what is missing.

.PHONY: all test run build bench install clean deps

all: build

deps:
	@tools/install-deps.sh

build: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DNX_TESTS=OFF >/dev/null
	cmake --build build/release -j

# The main job: the nx command on a shipped sample.
run: build
	build/release/tools/nx dtypes
	build/release/tools/nx devices
	@examples/data/run.sh build/release/tools/nx

# Every suite, plainly, under ASan+UBSan, and the concurrency suites under TSan.
test: deps
	tools/ci/test.sh

# The benchmarks, each printing ratios against its peer in one run.
bench: deps
	cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DNX_TESTS=OFF -DNX_BENCH=ON >/dev/null
	cmake --build build/bench -j
	tools/ci/bench.sh build/bench

install: build
	cmake --install build/release $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf build
