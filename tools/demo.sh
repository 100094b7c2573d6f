#!/usr/bin/env bash
# make demo: compile the shipped kernels, summarise their PTX, and run them
# on a GPU when one is present.
set -euo pipefail
build=${1:-build}
tilec="$build/bin/tilec"
ptxas=$(command -v ptxas || true)
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# name | file | kernel | signature | constexprs
kernels=(
  "vector_add fp32|kernels/vector_add.py|add|*fp32:16,*fp32:16,*fp32:16,i32:16|-D BLOCK=1024"
  "vector_add fp16|kernels/vector_add.py|add|*fp16:16,*fp16:16,*fp16:16,i32:16|-D BLOCK=1024"
  "vector_add fp32, no :16|kernels/vector_add.py|add|*fp32,*fp32,*fp32,i32|-D BLOCK=1024"
  "copy_2d fp32|kernels/tile_ops.py|copy_2d|*fp32:16,*fp32:16,i32,i32:16,i32:16,i32:16|-D BLOCK_M=32 -D BLOCK_N=64"
  "transpose_add fp32|kernels/tile_ops.py|transpose_add|*fp32:16,*fp32:16,*fp32:16,i32:16,i32:16|-D BLOCK=32"
)

for entry in "${kernels[@]}"; do
  IFS='|' read -r title file kernel sig defs <<<"$entry"
  echo "== $title ($file: $kernel, $sig)"
  # shellcheck disable=SC2086
  "$tilec" compile "$file" -k "$kernel" -s "$sig" $defs --emit ptx --time \
    > "$out/k.ptx" 2> "$out/time.txt"
  sed 's/^tilec: /  /' "$out/time.txt"
  "$tilec" compile "$file" -k "$kernel" -s "$sig" $defs --emit summary | sed 's/^/  /'
  if [ -n "$ptxas" ]; then
    regs=$("$ptxas" -arch=sm_90a -v "$out/k.ptx" -o "$out/k.cubin" 2>&1 \
      | grep -o 'Used [0-9]* registers.*' || true)
    echo "  ptxas sm_90a:      ${regs:-accepted}"
  else
    echo "  ptxas:             not found, PTX not assembled"
  fi
done

if [ -x "$build/bin/tilec-example-vector-add" ] && \
   ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  echo "== running on the GPU"
  "$build/bin/tilec-example-vector-add"
else
  echo "== no GPU present (no CUDA driver found): kernels compiled, not run"
fi
