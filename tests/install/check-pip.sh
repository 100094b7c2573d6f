#!/usr/bin/env bash
# `make test-pip`: the Python package built and installed by
# `pip install --no-build-isolation --no-index .` into a fresh virtual
# environment (no network for the build itself: scikit-build-core, pinned,
# is installed into the environment first), then imported from outside the
# source tree and run on the interpreter.
#
#   tests/install/check-pip.sh PYTHON VENV_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=$1
venv=$(realpath -m "$2")
rm -rf "$venv"
# System site packages: numpy and pytest come from Debian.
"$python" -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check scikit-build-core==0.11.6
"$venv/bin/python" -m pip install --disable-pip-version-check --no-build-isolation --no-index \
  "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# A file, not stdin: @tilec.jit reads the kernel's source through inspect.
cat > check_pip.py <<'PY'
import os
import subprocess
import sys

import numpy as np
import tilec
import tilec.language as tl

venv = os.path.realpath(sys.argv[1])
package = os.path.dirname(os.path.realpath(tilec.__file__))
assert package.startswith(venv), f"tilec imported from {package}, not the environment"


@tilec.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask), mask=mask)


x = np.arange(1000, dtype=np.float32)
out = np.zeros_like(x)
add[(4,)](x, x, out, 1000, BLOCK=256)
assert (out == 2 * x).all()
cli = os.path.join(package, "bin", "tilec")
version = subprocess.run([cli, "--version"], check=True, capture_output=True, text=True).stdout
print(f"pip: tilec from {package} ran vector add on the interpreter; {version.strip()}")
PY
TILEC_INTERPRET=1 "$venv/bin/python" check_pip.py "$venv"
