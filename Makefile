# Thin wrapper over CMake + Ninja. Every target does its own set-up, so a
# fresh Debian 12 machine needs nothing but `make demo` or `make test`.
BUILD ?= build
PYTHON ?= /usr/bin/python3
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test demo bundle clean

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

demo: build
	@tools/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD)

# The relocatable bundle (static LLVM/MLIR) in dist/tilec.
bundle: deps
	tools/make-bundle.sh dist/tilec
