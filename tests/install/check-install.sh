#!/usr/bin/env bash
# tests/install: install a built tilec into a fresh prefix, then build and
# run, against that prefix alone, a program using the JIT (tilec::tilec),
# one with AOT kernels (tilec_add_aot_kernels) and the Python package.
#
#   tests/install/check-install.sh BUILD_DIR PYTHON [PTXAS]
#
# Without PTXAS (no CUDA toolkit) the AOT program is not built.
set -euo pipefail
build=$(cd "$1" && pwd)
python=$2
ptxas=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/tilec include/tilec/tilec.h lib/cmake/tilec/tilecConfig.cmake \
         share/tilec/kernels/vector_add.py; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
"$prefix/bin/tilec" --version

consumers=(jit)
if [ -n "$ptxas" ]; then
  consumers+=(aot)
  export TILEC_PTXAS=$ptxas # what tilec aot, run by the AOT build, uses
else
  echo "aot: no ptxas, not checked"
fi
for consumer in "${consumers[@]}"; do
  cmake -S "$here/$consumer" -B "$work/$consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" > "$work/$consumer-configure.log" \
    || { cat "$work/$consumer-configure.log"; exit 1; }
  cmake --build "$work/$consumer" > "$work/$consumer-build.log" \
    || { cat "$work/$consumer-build.log"; exit 1; }
  "$work/$consumer/${consumer}_consumer"
done
# The AOT program needs nothing of tilec's (nor LLVM, MLIR, Python).
if [ -n "$ptxas" ] && readelf -d "$work/aot/aot_consumer" | grep NEEDED | grep -v -E '\[(libc|libm|libdl|libpthread|libgcc_s|libstdc\+\+)\.so'; then
  echo "aot_consumer needs more than the C/C++ runtime"
  exit 1
fi

# The Python package, from the prefix alone.
pydir=$(find "$prefix" -name __init__.py -path '*/tilec/__init__.py' -printf '%h\n' | head -1)
if [ -n "$pydir" ]; then
  cd "$work"
  PYTHONPATH=$(dirname "$pydir") TILEC_INTERPRET=1 "$python" - "$prefix/share/tilec/kernels" <<'PY'
import sys
import numpy as np
import tilec
sys.path.insert(0, sys.argv[1])
from vector_add import add
assert tilec.__file__.startswith(sys.argv[1].rsplit("/share/", 1)[0]), tilec.__file__
x = np.arange(1000, dtype=np.float32)
out = np.zeros_like(x)
add[(4,)](x, x, out, 1000, BLOCK=256)
assert (out == 2 * x).all()
print("python: tilec from", tilec.__file__, "ran vector add on the interpreter")
PY
else
  echo "python: the package was not built, not checked"
fi
echo "install: ok"
