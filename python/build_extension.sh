#!/usr/bin/env bash
# Build tilec's Python extension (tilec/_tilec.<abi>.so) on this host, for
# this host's Python and pybind11, against an existing libtilec.so. This is
# how a GPU host that has the bundle but not tilec's build tree gets the
# binding (tools/gpu-session.sh calls it).
#
#   build_extension.sh [BUNDLE]
#       BUNDLE (default: the folder above this script) holds
#       lib/libtilec.so, include/tilec/tilec.h and python/tilec/ (the
#       package, with _binding.cpp); the extension goes to python/tilec/.
#       Then: PYTHONPATH=BUNDLE/python python3 -c 'import tilec'
#   build_extension.sh --lib LIBTILEC.so --include INCLUDE_DIR [--out DIR] [--src DIR]
#       the same with each path given (--out and --src default to the
#       tilec/ folder beside this script).
#
# Environment: PYTHON (default python3), CXX (default g++ or c++).
# pybind11 comes from `$PYTHON -m pybind11 --includes` (pip's pybind11),
# else from the system headers (/usr/include/pybind11, Debian's
# pybind11-dev). Works with pybind11 2.10 to 3.x and Python 3.9+.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-python3}
cxx=${CXX:-$(command -v g++ || command -v c++)}
lib="" include="" out="" src=""

if [ $# -ge 1 ] && [ "${1#--}" = "$1" ]; then
  bundle=$(cd "$1" && pwd)
  shift
else
  bundle=$(cd "$here/.." && pwd)
fi
while [ $# -gt 0 ]; do
  case "$1" in
    --lib) lib=$2; shift 2 ;;
    --include) include=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --src) src=$2; shift 2 ;;
    *) echo "build_extension.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
lib=${lib:-$bundle/lib/libtilec.so}
include=${include:-$bundle/include}
if [ -z "$src" ]; then
  if [ -f "$bundle/python/tilec/_binding.cpp" ]; then src=$bundle/python/tilec; else src=$here/tilec; fi
fi
out=${out:-$src}

for f in "$lib" "$include/tilec/tilec.h" "$src/_binding.cpp"; do
  [ -e "$f" ] || { echo "build_extension.sh: missing $f" >&2; exit 1; }
done
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
mkdir -p "$out"
out=$(cd "$out" && pwd)

if ! includes=$("$python" -m pybind11 --includes 2>/dev/null); then
  pyinc=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  includes="-I$pyinc"
  [ -f /usr/include/pybind11/pybind11.h ] || {
    echo "build_extension.sh: pybind11 not found (pip install pybind11, or apt install pybind11-dev)" >&2
    exit 1
  }
fi
suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
# The extension finds libtilec.so relative to itself.
rel=$("$python" -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' \
      "$(dirname "$lib")" "$out")
target=$out/_tilec$suffix

echo "build_extension.sh: $cxx, $($python --version 2>&1), -> $target" >&2
# shellcheck disable=SC2086
"$cxx" -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -fno-strict-aliasing \
  $includes -I"$include" "$src/_binding.cpp" \
  -o "$target" \
  -L"$(dirname "$lib")" -l:"$(basename "$lib")" -Wl,-rpath,"\$ORIGIN/$rel"
[ "$out" = "$src" ] || cp "$src"/*.py "$out"/
echo "build_extension.sh: built $target" >&2
