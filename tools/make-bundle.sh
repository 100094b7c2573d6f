#!/usr/bin/env bash
# Build the relocatable bundle: tilec with LLVM/MLIR linked statically, for
# a GPU host that has only the NVIDIA driver, a C++ runtime and Python.
#
#   tools/make-bundle.sh [OUT]      (default: dist/tilec)
#
# OUT/bin/tilec               the CLI (finds ../lib/libtilec.so)
# OUT/bin/tilec-example-vector-add, tilec-example-decode, tilec-runtime-tests,
#   tilec-gpu-tests, tilec-api-tests
# OUT/bin/tilec-example-aot, tilec-aot-tests   kernels built in by `tilec aot`:
#                             they need no libtilec
# OUT/lib/libtilec.so         the C++ API, LLVM/MLIR inside, stripped
# OUT/include/tilec/tilec.h   the public header
# OUT/python/tilec/           the Python package; build its extension on the
#                             host with OUT/python/build_extension.sh
# OUT/kernels/                the shipped kernels
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist/tilec}
build=${TILEC_STATIC_BUILD:-build-static}

tools/install-deps.sh
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTILEC_STATIC_LLVM=ON -DTILEC_BUILD_PYTHON=OFF \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
cmake --build "$build" -j "$(nproc)" --target tilec libtilec \
  tilec-example-vector-add tilec-example-decode tilec-runtime-tests tilec-gpu-tests \
  tilec-api-tests tilec-example-aot tilec-aot-tests

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/include/tilec" "$out/python"
cp "$build/bin/tilec" "$build/bin/tilec-example-vector-add" \
   "$build/bin/tilec-example-decode" \
   "$build/bin/tilec-runtime-tests" "$build/bin/tilec-gpu-tests" \
   "$build/bin/tilec-api-tests" "$build/bin/tilec-example-aot" \
   "$build/bin/tilec-aot-tests" "$out/bin/"
cp "$build/lib/libtilec.so" "$out/lib/"
strip --strip-unneeded "$out/bin/"* "$out/lib/libtilec.so"
cp include/tilec/tilec.h "$out/include/tilec/"
cp -r kernels "$out/"
if [ -d python/tilec ]; then
  cp -r python/tilec "$out/python/"
  find "$out/python" -name '__pycache__' -prune -exec rm -rf {} +
  [ -f python/build_extension.sh ] && cp python/build_extension.sh "$out/python/"
fi

# The bundle must not need LLVM, MLIR or anything else from this machine.
if ldd "$out/lib/libtilec.so" "$out/bin/tilec" | grep -E 'libLLVM|libMLIR|not found' \
     | grep -v 'libtilec.so => not found'; then
  echo "make-bundle: the bundle depends on libraries it does not carry" >&2
  exit 1
fi
size=$(du -sm "$out" | cut -f1)
echo "bundle: $out, ${size} MiB"
if [ "$size" -gt 60 ]; then
  echo "make-bundle: the bundle is over 60 MiB" >&2
  exit 1
fi
