# Thin wrapper over CMake + Ninja. Every target does its own set-up, so a
# fresh Debian 12 machine needs nothing but `make demo` or `make test`.
BUILD ?= build
PYTHON ?= /usr/bin/python3
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test demo bundle clean build-asan test-asan fuzz-smoke install test-pip

all: build

deps:
	@tools/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Installs what `make build` built (docs/install.md): into
# CMAKE_INSTALL_PREFIX when given (make install CMAKE_INSTALL_PREFIX=/opt/tilec),
# else into the prefix the build was configured with (/usr/local).
install: build
	cmake --install $(BUILD) $(if $(CMAKE_INSTALL_PREFIX),--prefix $(CMAKE_INSTALL_PREFIX))

# `pip install .` into a fresh virtual environment in $(BUILD)/pip-venv, then
# the package imported from there (tests/install/check-pip.sh).
test-pip: deps
	tests/install/check-pip.sh $(PYTHON) $(BUILD)/pip-venv

demo: build
	@tools/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD)

# The relocatable bundle (static LLVM/MLIR) in dist/tilec.
bundle: deps
	tools/make-bundle.sh dist/tilec

# The sanitizer build (docs/reliability.md): tilec's code instrumented with
# AddressSanitizer (and LeakSanitizer), UndefinedBehaviorSanitizer and
# libFuzzer's coverage, built by clang-22 in build-asan/; `make test-asan`
# runs every CPU test there (the GPU tests are left out: without a GPU they
# only skip), with the sanitizer options of tests/sanitizers/env.cmake.in.
# The same build has the fuzz targets of tests/fuzz (`make fuzz-smoke`).
ASAN_BUILD ?= build-asan

$(ASAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
	  -DTILEC_SANITIZE=address,undefined -DTILEC_FUZZ=ON \
	  -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_FLAGS)

build-asan: $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

test-asan: build-asan
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE gpu

# A short run of each libFuzzer target of tests/fuzz (FUZZ_SECONDS each),
# from the seed corpora; any crash, sanitizer report or hang fails it.
FUZZ_SECONDS ?= 60
fuzz-smoke: build-asan
	tests/fuzz/run-fuzzers.sh $(ASAN_BUILD) $(FUZZ_SECONDS)
