#!/usr/bin/env bash
# Fetches the Triton tutorials that tests/python/test_gpu_triton_tutorials.py
# runs unmodified under tilec (01 vector add, 02 fused softmax, 04 low-memory
# dropout, 05 layer norm). They are Triton's code, so they are fetched, never
# committed here.
#
#   tools/fetch-triton-tutorials.sh [DEST]              from GitHub, at $TRITON_REF
#   tools/fetch-triton-tutorials.sh --from TRITON_DIR [DEST]   from a checkout
#
# DEST defaults to build/triton-tutorials (ignored by git; carry it to a GPU
# machine with the bundle). TRITON_REF defaults to v3.6.0, the Triton the
# GPU machine has, so that both run the same tutorial text.
set -euo pipefail

files=(01-vector-add.py 02-fused-softmax.py 04-low-memory-dropout.py 05-layer-norm.py)
ref=${TRITON_REF:-v3.6.0}
from=
if [[ ${1:-} == --from ]]; then
  from=${2:?--from needs a Triton checkout}
  shift 2
fi
dest=${1:-build/triton-tutorials}
mkdir -p "$dest"

for f in "${files[@]}"; do
  if [[ -n $from ]]; then
    src=$from/python/tutorials/$f
    [[ -f $src ]] || { echo "error: $src not found (is $from a Triton checkout?)" >&2; exit 1; }
    cp "$src" "$dest/$f"
  else
    url=https://raw.githubusercontent.com/triton-lang/triton/$ref/python/tutorials/$f
    if ! curl -fsSL --retry 2 -o "$dest/$f.part" "$url"; then
      rm -f "$dest/$f.part"
      echo "error: could not fetch $url (no network? use --from a Triton checkout)" >&2
      exit 1
    fi
    mv "$dest/$f.part" "$dest/$f"
  fi
  echo "$dest/$f"
done
if [[ -z $from ]]; then
  echo "$ref" > "$dest/REF"
else
  (git -C "$from" describe --tags --always 2>/dev/null || echo unknown) > "$dest/REF"
fi
