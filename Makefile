# SPDX-License-Identifier: Apache-2.0
# The commands the README names. Each does its own set-up on a fresh Debian
# machine (as root): tools/install-deps.sh installs what that purpose needs
# and is missing (build: compiler, CMake, pkg-config; test and bench: the
# oracles, PoCL and a Python virtual environment under build/venv too).

.PHONY: all test run build bench fuzz stress install clean deps

# Sub-makes (CMake's) print no "Entering directory" lines.
MAKEFLAGS += --no-print-directory

all: build

deps:
	@tools/install-deps.sh build

# The library and the nx command only: no tests, no benchmarks. The build's
# output goes to a log, shown when it fails.
build: deps
	@mkdir -p build
	@cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DNX_TESTS=OFF -DNX_BENCH=OFF >build/release.log 2>&1 \
	  && cmake --build build/release -j >>build/release.log 2>&1 \
	  || { tail -40 build/release.log; echo "build failed: build/release.log"; exit 1; }
	@echo "built build/release (nx $$(build/release/tools/nx --version | cut -d' ' -f2))"

# The main job: the nx command.
run: build
	@build/release/tools/nx dtypes
	@echo
	@build/release/tools/nx devices
	@echo
	@examples/data/run.sh build/release/tools/nx

# Every suite, plainly, under ASan+UBSan, and the concurrency suites under TSan.
test:
	@tools/install-deps.sh test
	@tools/ci/test.sh

# The benchmarks, each printing ratios against its peer in one run.
bench:
	@tools/install-deps.sh bench
	@mkdir -p build
	@cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DNX_TESTS=OFF -DNX_BENCH=ON >build/bench.log 2>&1 \
	  && cmake --build build/bench -j >>build/bench.log 2>&1 \
	  || { tail -40 build/bench.log; echo "build failed: build/bench.log"; exit 1; }
	@tools/ci/bench.sh build/bench

# Each fuzzer for a minute over its seed corpus (tests/fuzz), built with clang.
fuzz:
	@tools/install-deps.sh test
	@tools/ci/fuzz.sh 60

# The concurrency stress under TSan: 16 threads for NX_STRESS_SECONDS (600).
stress:
	@tools/install-deps.sh test
	@mkdir -p build
	@cmake -S . -B build/stress -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNX_TSAN=ON -DNX_BENCH=OFF >build/stress.log 2>&1 \
	  && cmake --build build/stress -j --target test_stress >>build/stress.log 2>&1 \
	  || { tail -40 build/stress.log; echo "build failed: build/stress.log"; exit 1; }
	@NX_LONG_TESTS=1 build/stress/tests/stress/test_stress

install: build
	@cmake --install build/release $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf build
