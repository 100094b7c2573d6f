#!/usr/bin/env bash
# The SASS of a PTX file on a machine with no GPU and no disassembler in its
# toolkit (ours: CUDA 13.0 has ptxas but neither nvdisasm nor cuobjdump):
# ptxas assembles it, and nvdisasm from NVIDIA's wheel on PyPI, pinned and
# cached, prints it. What a PTX construct costs is often only visible there
# (a cluster-scope mbarrier release is a MEMBAR.ALL.GPU, docs/pipeline.md).
#
#   tools/sass.sh FILE.ptx [ARCH]     ARCH default sm_90a; SASS on stdout
#
# Environment: PTXAS (default: ptxas on PATH, else /usr/local/cuda/bin/ptxas),
# PYTHON (default /usr/bin/python3, with pip), TILEC_NVDISASM_DIR (the cache,
# default ~/.cache/tilec/nvdisasm-$version).
set -euo pipefail

version=13.5.37
ptx=${1:?usage: tools/sass.sh FILE.ptx [ARCH]}
arch=${2:-sm_90a}
[[ -f $ptx ]] || { echo "error: $ptx not found" >&2; exit 1; }
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
[[ -x $ptxas ]] || { echo "error: no ptxas (set PTXAS)" >&2; exit 1; }
python=${PYTHON:-/usr/bin/python3}
cache=${TILEC_NVDISASM_DIR:-$HOME/.cache/tilec/nvdisasm-$version}

nvdisasm=$(find "$cache" -type f -name nvdisasm 2>/dev/null | head -n 1 || true)
if [[ -z $nvdisasm ]]; then
  mkdir -p "$cache"
  "$python" -m pip download --quiet --no-deps --dest "$cache" \
    "nvidia-cuda-nvdisasm==$version" >&2
  "$python" -m zipfile -e "$cache"/nvidia_cuda_nvdisasm-"$version"-*.whl "$cache/wheel"
  nvdisasm=$(find "$cache/wheel" -type f -name nvdisasm | head -n 1)
  [[ -n $nvdisasm ]] || { echo "error: no nvdisasm in the wheel" >&2; exit 1; }
  chmod +x "$nvdisasm"
fi

cubin=$(mktemp --suffix .cubin)
trap 'rm -f "$cubin"' EXIT
"$ptxas" -arch="$arch" "$ptx" -o "$cubin"
"$nvdisasm" -c "$cubin"
