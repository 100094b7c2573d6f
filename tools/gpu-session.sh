#!/usr/bin/env bash
# Everything tilec checks on a GPU host, in one go: the bundle's CLI, the
# C++ GPU tests, the example, the Python package (built there against the
# host's pybind11), the Python GPU tests and the benchmark. Prints a short
# table last; full logs go to $OUT/logs.tar.gz (or ./gpu-logs), benchmark
# results to $OUT/*.json.
#
#   tools/gpu-session.sh [BUNDLE] [COMMIT]
#
# TILEC_GPU_STEPS (an extended regex, default: all) picks the steps by name;
# TILEC_GPU_BUDGET (seconds, default 540) bounds the whole run: each step gets
# what is left, and a step that would start with under 20 s left is skipped,
# so the logs and the table always come back from a lent machine.
set -uo pipefail
bundle=$(cd "${1:-dist/tilec}" && pwd)
commit=${2:-unknown}
out=${OUT:-$PWD/gpu-logs}
logs=$(mktemp -d)
mkdir -p "$out"
export TILEC_KERNELS_DIR=$PWD/kernels
export PYTHONUNBUFFERED=1
declare -a rows

steps=${TILEC_GPU_STEPS:-.}
budget=${TILEC_GPU_BUDGET:-540}

step() { # name, command... (a command may be a function of this script)
  local name=$1; shift
  if ! [[ $name =~ $steps ]]; then
    return 0
  fi
  local left=$((budget - SECONDS))
  if [ "$left" -lt 20 ]; then
    rows+=("$(printf '%-24s SKIP        (out of time)' "$name")")
    return 0
  fi
  local start=$SECONDS
  local run=("$@")
  if declare -F "$1" > /dev/null; then
    run=(bash -c '"$@"' _ "$@")
  fi
  if timeout -k 5 "$left" "${run[@]}" > "$logs/$name.log" 2>&1; then
    rows+=("$(printf '%-24s ok    %4ds' "$name" $((SECONDS - start)))")
  else
    rows+=("$(printf '%-24s FAIL  %4ds  (see %s.log)' "$name" $((SECONDS - start)) "$name")")
    tail -n 25 "$logs/$name.log"
  fi
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

step cli-summary "$bundle/bin/tilec" compile kernels/vector_add.py -k add \
  -s '*fp32:16,*fp32:16,*fp32:16,i32:16' -D BLOCK=1024 --emit summary --time
step cpp-runtime-tests "$bundle/bin/tilec-runtime-tests"
step cpp-gpu-tests "$bundle/bin/tilec-gpu-tests"
# The public API as users link it: integer types, bad launch arguments.
step cpp-api-tests "$bundle/bin/tilec-api-tests"
step cpp-example "$bundle/bin/tilec-example-vector-add"
# A decoder layer's step from C++ (issue 15): float64 check, CUDA graph
# replays bitwise equal to eager steps, time per step.
step cpp-decode-example "$bundle/bin/tilec-example-decode"
step cpp-decode-example-b16 "$bundle/bin/tilec-example-decode" --batch 16 --context 4096
# The same with programmatic dependent launches (LaunchOptions::launchPdl).
step cpp-decode-example-pdl "$bundle/bin/tilec-example-decode" --pdl
step cpp-decode-example-b16-pdl "$bundle/bin/tilec-example-decode" --batch 16 --context 4096 --pdl
# Each kernel releasing the next only as its programs exit.
step cpp-decode-example-pdl-exit "$bundle/bin/tilec-example-decode" --pdl-exit
step cpp-decode-example-b16-pdl-exit "$bundle/bin/tilec-example-decode" --batch 16 \
  --context 4096 --pdl-exit
# And each GEMV asking for its weights into the L2 before its wait.
step cpp-decode-example-pdl-l2 "$bundle/bin/tilec-example-decode" --pdl --l2-ahead 1536
step cpp-decode-example-b16-pdl-l2 "$bundle/bin/tilec-example-decode" --batch 16 --context 4096 \
  --pdl --l2-ahead 1536
# Kernels compiled ahead of time (tilec aot) into programs that carry no
# compiler: run with an empty library path, so nothing of tilec's is found.
step cpp-aot-tests env -u LD_LIBRARY_PATH "$bundle/bin/tilec-aot-tests"
step cpp-aot-example env -u LD_LIBRARY_PATH "$bundle/bin/tilec-example-aot"
step sanitize-aot compute-sanitizer --tool memcheck --error-exitcode 1 \
  "$bundle/bin/tilec-example-aot"
# Source lines in the machine code (.file/.loc, tilec-attach-line-info):
# Nsight Compute's source page of the JIT example's kernel must show
# kernels/vector_add.py's lines next to the SASS.
if command -v ncu > /dev/null; then
  line_info() {
    ncu --clock-control none --page source --print-source cuda,sass --csv -k regex:add -c 1 \
      "$bundle/bin/tilec-example-vector-add" > "$out/ncu-source.csv" 2>&1
    grep -c "tl.load(x_ptr" "$out/ncu-source.csv" && grep -q "vector_add.py" "$out/ncu-source.csv"
  }
  export -f line_info
  export bundle out
  step line-info-ncu line_info
fi
# Shared memory races and out-of-bounds accesses in the kernels whose tiles
# change layout (through shared memory, by barriers the compiler placed)
# and in the reductions across warps.
if command -v compute-sanitizer > /dev/null; then
  sanitize() { # tool
    compute-sanitizer --tool "$1" --error-exitcode 1 "$bundle/bin/tilec-gpu-tests" \
      --gtest_filter='*GpuLayoutKernels*:*GpuShapeKernels*:*SoftmaxMatchesFloat64/fp32_257x1000:*CumsumMatchesFloat64/fp32_257x1000'
  }
  export -f sanitize
  export bundle
  step sanitize-racecheck sanitize racecheck
  step sanitize-memcheck sanitize memcheck
fi

# NVRTC for tl.cuda_device_call: the toolkit's, else a Python wheel's.
if [ -z "${TILEC_NVRTC:-}" ]; then
  TILEC_NVRTC=$( (ls /usr/local/cuda/lib64/libnvrtc.so* 2>/dev/null;
                  find / -xdev -name 'libnvrtc.so*' -not -name '*builtins*' 2>/dev/null) | head -n 1)
  [ -n "$TILEC_NVRTC" ] && export TILEC_NVRTC
fi

if [ -f "$bundle/python/build_extension.sh" ]; then
  step py-build bash "$bundle/python/build_extension.sh" "$bundle"
  export PYTHONPATH=$bundle/python
  if [ -d tests/python ]; then
    step py-tests-cpu python3 -m pytest -q tests/python -m "not gpu"
    step py-tests-gpu python3 -m pytest -q tests/python -m gpu
    # The matmul's GPU tests alone, for a session that runs only them.
    step py-tests-matmul python3 -m pytest -q -x tests/python/test_gpu_matmul.py
    # Transposed and column-major dot operands (wgmma's transposed reads).
    step py-tests-dot-trans python3 -m pytest -q tests/python/test_gpu_dot_trans.py
    # fp8 (conversions, arithmetic, tl.dot, the matmul on torch.float8).
    step py-tests-fp8 python3 -m pytest -q tests/python/test_gpu_fp8.py
    # Tensor descriptors through TMA (sm_90a): matmuls of every stage count
    # at odd shapes, NaN padding, transposed and int8 operands, host
    # descriptors; and the descriptor suite (pointer reads elsewhere).
    step py-tests-tma python3 -m pytest -q -rs tests/python/test_gpu_tma.py \
      tests/python/test_tensor_descriptor.py
    # The persistent kernels' in-loop epilogue (bias + GELU, inside the loop
    # whose tile's last dot is still in flight as the epilogue starts):
    # every path to it, on 1, 7 and 132 programs, and in clusters.
    step py-tests-epilogue python3 -m pytest -q -x -rs tests/python/test_gpu_tma.py -k \
      "persistent_matmul_every_config or tma_store_matmul_every_config or warp_specialized_matmul or consumer_groups_matmul or cluster_matmul"
    # Stream-K (matmul_tma(stream_k=True)): every shipped config on 7 and
    # 132 programs, alone and in clusters of two, after whole rounds, and
    # the shipped table's stream-K names; then memcheck and racecheck on
    # the first config: fp16 on 7 programs, alone and in clusters, and bf16
    # (C fp32) alone on 132 (the partials' stores, flags and sums).
    step py-tests-stream-k python3 -m pytest -q -rs tests/python/test_gpu_tma.py -k \
      "stream_k or shipped_table"
    # Tiles whose width is not a power of two (TAIL_N: 256 x 160 and the
    # like), every wide config on 7 and 132 programs, and at 3000 x 5000 x
    # 1000. (Time them: TILEC_MATMUL_ARGS=--wide for bench-matmul.)
    step py-tests-wide python3 -m pytest -q -rs tests/python/test_gpu_tma.py -k wide_tile
    if command -v compute-sanitizer > /dev/null; then
      for tool in memcheck racecheck; do
        step "sanitize-stream-k-$tool" compute-sanitizer --tool "$tool" --error-exitcode 1 \
          python3 -m pytest -q -x tests/python/test_gpu_tma.py -k \
          "test_stream_k_matmul and (7-0-float16 or 1-132-0-bfloat16)"
      done
    fi
    # Two dots reading one TMA block (one ring, pipelined or warp-
    # specialised), and the same under compute-sanitizer.
    step py-tests-two-dots python3 -m pytest -q -rs tests/python/test_gpu_tma.py -k two_dots
    if command -v compute-sanitizer > /dev/null; then
      for tool in racecheck memcheck; do
        step "sanitize-two-dots-$tool" compute-sanitizer --tool "$tool" --error-exitcode 1 \
          python3 -m pytest -q -x tests/python/test_gpu_tma.py -k "two_dots and not 300"
      done
    fi
    # Loads pipelined without a dot (tl.range(num_stages=...)).
    step py-tests-pipelined python3 -m pytest -q tests/python/test_gpu_pipelined_loads.py
    # Atomics, `while` loops, Philox random numbers (against Triton's).
    lang_tests="tests/python/test_gpu_atomics.py tests/python/test_gpu_random.py \
      tests/python/test_gpu_while.py tests/python/test_gpu_layer_norm.py \
      tests/python/test_gpu_testing.py tests/python/test_xor_sum.py tests/python/test_flip.py \
      tests/python/test_split.py tests/python/test_libdevice.py \
      tests/python/test_inline_asm.py tests/python/test_gather.py \
      tests/python/test_histogram.py tests/python/test_join.py tests/python/test_sort.py \
      tests/python/test_block_ptr.py tests/python/test_cuda_call.py tests/python/test_methods.py \
      tests/python/test_tensor_descriptor.py tests/python/test_runtime_api.py"
    step py-tests-lang python3 -m pytest -q -rs $lang_tests
    # The decode kernels and layer (issue 15): float64 checks, batch
    # invariance bitwise, CUDA-graph replay; then under memcheck and
    # racecheck (the attention's tl.dot layouts go through shared memory).
    step py-tests-decode python3 -m pytest -q -rs tests/python/test_gpu_decode.py \
      tests/python/test_decode.py tests/python/test_deterministic.py \
      tests/python/test_grid_dependency.py tests/python/test_prefetch_l2.py
    if command -v compute-sanitizer > /dev/null; then
      sanitize_decode() { # tool
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_decode.py -k "not 32768 and not 64 and not graph"
      }
      export -f sanitize_decode
      step sanitize-decode-memcheck sanitize_decode memcheck
      step sanitize-decode-racecheck sanitize_decode racecheck
    fi
    # Bad launch arguments, options and autotuning hooks, every shipped
    # kernel at small shapes.
    step py-tests-launch python3 -m pytest -q -rs tests/python/test_gpu_launch_args.py \
      tests/python/test_gpu_autotune.py tests/python/test_options.py \
      tests/python/test_launch_args.py tests/python/test_gpu_shipped_kernels.py
    # The autotuner alone (configs dropped for shared memory, hooks, reuse).
    step py-tests-autotune python3 -m pytest -q -rs tests/python/test_gpu_autotune.py
    # Debugging (tl.device_print, tl.device_assert, bounds checks), then
    # every shipped kernel compiled with debug=True on good inputs: the
    # bounds checks must not fire on correct kernels.
    step py-tests-debug python3 -m pytest -q -rs tests/python/test_gpu_debug.py \
      tests/python/test_debug.py
    shipped_debug() { TILEC_DEBUG=1 python3 -m pytest -q tests/python/test_gpu_shipped_kernels.py; }
    export -f shipped_debug
    step py-tests-shipped-debug shipped_debug
    # Every shipped kernel (every matmul config) under the three
    # compute-sanitizer tools, then every C++ GPU test (docs/results.md).
    if command -v compute-sanitizer > /dev/null; then
      sanitize_shipped() { # tool
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q \
          tests/python/test_gpu_shipped_kernels.py
      }
      export -f sanitize_shipped
      for tool in memcheck racecheck synccheck; do
        step "sanitize-shipped-$tool" sanitize_shipped "$tool"
      done
    fi
    # The cp.async pipeline's barriers and masked-off copies under
    # racecheck and memcheck, at shapes with fewer iterations than stages.
    if command -v compute-sanitizer > /dev/null; then
      sanitize_matmul() { # tool
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_matmul.py -k "num_stages and not 4096 and not 300"
      }
      sanitize_dot_trans() { # tool: the tl.trans'd and column-major 16-bit
        # tiles wgmma reads in flight from cp.async rings (shape3 = 128x96x80)
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_dot_trans.py -k "shape3 and (float16 or bfloat16) and not block0"
      }
      sanitize_chained() { # tool: wgmma with A from registers
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_chained_dot.py
      }
      sanitize_fp8() { # tool
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_fp8.py -k "not matmul_kernel"
      }
      sanitize_lang() { # tool: atomics' shared-memory broadcast, spin locks,
        # tl.gather's shared-memory round trip, tl.sort's exchanges across
        # warps
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_atomics.py tests/python/test_gpu_while.py \
          tests/python/test_gpu_layer_norm.py tests/python/test_gather.py \
          tests/python/test_sort.py -m gpu
      }
      sanitize_wgmma_8bit() { # tool: fp8 and int8 on wgmma (B column-major),
        # every shipped config, two K iterations (fewer than the stages)
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_shipped_kernels.py -k kmajor
      }
      sanitize_pipelined() { # tool: rings of plain loads, read back in place
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_pipelined_loads.py -k "not 4096 and not 100003"
      }
      sanitize_tma() { # tool: TMA copies, mbarrier rings and waits
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_tma.py \
          -k "not 1000 and not 1024 and not 512 and not persistent and not tma_store and not warp_specialized"
      }
      # The persistent matmul: every config on 7 programs (each walking
      # several tiles, the epilogue inside the pipelined loop), and with C
      # in the inputs' type (the epilogue's conversion beside the rings);
      # and warp-specialised, on 7 programs (the producer warpgroup and the
      # consumers' full/empty mbarriers).
      sanitize_persistent() { # tool
        compute-sanitizer --tool "$1" --error-exitcode 1 python3 -m pytest -q -x \
          tests/python/test_gpu_tma.py \
          -k "persistent and (7 or inputs) or warp_specialized and 7 or tma_store and 7"
      }
      export -f sanitize_fp8 sanitize_lang sanitize_wgmma_8bit sanitize_pipelined sanitize_tma \
        sanitize_persistent
      step sanitize-tma-racecheck sanitize_tma racecheck
      step sanitize-tma-memcheck sanitize_tma memcheck
      step sanitize-persistent-racecheck sanitize_persistent racecheck
      step sanitize-persistent-memcheck sanitize_persistent memcheck
      step sanitize-pipelined-racecheck sanitize_pipelined racecheck
      step sanitize-pipelined-memcheck sanitize_pipelined memcheck
      step sanitize-wgmma-8bit-racecheck sanitize_wgmma_8bit racecheck
      step sanitize-wgmma-8bit-memcheck sanitize_wgmma_8bit memcheck
      step sanitize-lang-racecheck sanitize_lang racecheck
      step sanitize-lang-memcheck sanitize_lang memcheck
      step sanitize-fp8-racecheck sanitize_fp8 racecheck
      step sanitize-fp8-memcheck sanitize_fp8 memcheck
      export -f sanitize_matmul
      export -f sanitize_dot_trans
      export -f sanitize_chained
      step sanitize-chained-racecheck sanitize_chained racecheck
      step sanitize-dot-trans-racecheck sanitize_dot_trans racecheck
      step sanitize-matmul-racecheck sanitize_matmul racecheck
      step sanitize-matmul-memcheck sanitize_matmul memcheck
    fi
  fi
  if [ -f bench/small_kernel.py ]; then
    mkdir -p "$logs/small"
    step bench-small-kernel python3 bench/small_kernel.py --commit "$commit" \
      --out "$logs/small"
  fi
  if [ -f bench/softmax.py ]; then
    step bench-softmax python3 bench/softmax.py --commit "$commit" --out "$out"
  fi
  if [ -f bench/tune.py ]; then
    mkdir -p "$logs/tune"
    step tune-python python3 bench/tune.py --commit "$commit" --out "$logs/tune"
  fi
  if [ -f bench/transpose.py ]; then
    step bench-transpose python3 bench/transpose.py --commit "$commit" --out "$out"
  fi
  if [ -f bench/matmul.py ]; then
    # (TILEC_MATMUL_DTYPES=float16 or bfloat16: one type per call, where
    # both would not fit one call's time; TILEC_MATMUL_ARGS: more of its
    # options, e.g. --clusters. TILEC_MATMUL_KERNELS: its --kernels, tilec
    # names with spaces, semicolon-separated; TILEC_MATMUL_SHAPES: its
    # --shapes. A run of some kernels or shapes is no table: leave
    # matmul-tuned-table out.)
    # shellcheck disable=SC2086
    step bench-matmul python3 bench/matmul.py --commit "$commit" --out "$out" \
      --dtypes "${TILEC_MATMUL_DTYPES:-float16,bfloat16}" ${TILEC_MATMUL_ARGS:-} \
      ${TILEC_MATMUL_KERNELS:+--kernels "$TILEC_MATMUL_KERNELS"} \
      ${TILEC_MATMUL_SHAPES:+--shapes "$TILEC_MATMUL_SHAPES"}
    # The shipped tuning (kernels/matmul_tuned.py) from that run, to commit.
    if [ -f tools/matmul-tuned-table.py ]; then
      step matmul-tuned-table bash -c 'cp kernels/matmul_tuned.json "$1" 2>/dev/null;
        python3 tools/matmul-tuned-table.py "$(ls -t "$2"/matmul-2*.json | head -1)" --out "$1"' \
        _ "$out/matmul_tuned.json" "$out"
    fi
  fi
  # cuBLAS's own kernels at the same shapes (names: tile, cluster, schedule).
  if [ -f bench/cublas_kernels.py ]; then
    step cublas-kernels python3 bench/cublas_kernels.py --out "$out/cublas-kernels.json"
  fi
  if [ -f bench/matmul_tma.py ]; then
    step bench-matmul-tma python3 bench/matmul_tma.py --commit "$commit" --out "$out"
    # The same, three shapes (every variant: warp-specialised, TMA store).
    step bench-matmul-tma-quick python3 bench/matmul_tma.py --quick --commit "$commit" \
      --out "$out"
    # The fused bias + GELU epilogue against the plain product (issue 14: at
    # most 3% slower), each tilec kernel at its best config.
    # (TILEC_EPILOGUE_KERNELS: its --kernels, names with spaces and commas,
    # semicolon-separated; TILEC_EPILOGUE_ARGS: more of its options, e.g.
    # --dtypes.)
    # shellcheck disable=SC2086
    step bench-matmul-epilogue python3 bench/matmul_epilogue.py --commit "$commit" \
      --out "$out" ${TILEC_EPILOGUE_KERNELS:+--kernels "$TILEC_EPILOGUE_KERNELS"} \
      ${TILEC_EPILOGUE_ARGS:-}
  fi
  # Clusters of two and four sharing B's blocks (the persistent kernel's
  # cluster=2 and 4):
  # every shipped config against float64, then under compute-sanitizer,
  # then against the same kernel without clusters and cuBLAS at the
  # issue's shapes (bounded: a cluster that deadlocks must not take the
  # whole call).
  step py-tests-cluster timeout -k 5 240 python3 -m pytest -q -x -rs \
    tests/python/test_gpu_tma.py -k "cluster_matmul or whole_clusters or clusters_at_once or (shipped_table and clusters)"
  if command -v compute-sanitizer > /dev/null; then
    for tool in memcheck racecheck; do
      step "sanitize-cluster-$tool" timeout -k 5 240 compute-sanitizer --tool "$tool" \
        --error-exitcode 1 python3 -m pytest -q -x tests/python/test_gpu_tma.py \
        -k "cluster_matmul and float16 and -8-"
    done
  fi
  if [ -f bench/profile_matmul.py ]; then
    kscan_cluster() {
      local s shapes=() failed=0
      for s in ${TILEC_CLUSTER_SHAPES:-3000,5000,1000 4096,4096,512 8192,1024,8192 2048,2048,2048 4096,4096,4096 8192,8192,8192}; do
        shapes+=(--shape "$s")
      done
      # (TILEC_CLUSTER_CONFIGS: the configs tried, both variants; a pair
      # sharing B asks each SM for fewer of B's rows the taller its tile.)
      local c configs=()
      for c in ${TILEC_CLUSTER_CONFIGS:-128,256,64,8,8,3 128,256,64,8,8,4 256,128,64,8,8,3}; do
        configs+=(--config "$c")
      done
      for dtype in ${TILEC_CLUSTER_DTYPES:-float16 bfloat16}; do
        python3 bench/profile_matmul.py --time --torch --dtype "$dtype" \
          --variant persistent-ws-store "${shapes[@]}" "${configs[@]}" || failed=1
        # (TILEC_CLUSTER_PROGRAMS: grids tried in clusters, e.g. "132 128":
        # the SMs may not all take a cluster's pair at once;
        # TILEC_CLUSTER_VARIANTS: the cluster kernels, of two and of four.)
        local variant
        for variant in ${TILEC_CLUSTER_VARIANTS:-persistent-ws-store-cluster persistent-ws-store-cluster4}; do
          timeout -k 5 240 python3 bench/profile_matmul.py --time --dtype "$dtype" \
            --variant "$variant" "${shapes[@]}" "${configs[@]}" \
            $(for g in ${TILEC_CLUSTER_PROGRAMS:-}; do echo --programs "$g"; done) || failed=1
        done
      done
      return $failed
    }
    export -f kscan_cluster
    step kscan-cluster kscan_cluster
  fi
  if [ -f bench/matmul_half_b.py ]; then
    # Half of B's rows per K step (what a 2 x 1 cluster sharing B would
    # ask of each SM) against the whole, rows on 128-byte lines and off.
    step bench-matmul-half-b python3 bench/matmul_half_b.py --commit "$commit" --out "$out"
  fi
  if [ -f bench/matmul_pingpong.py ]; then
    # Consumer groups (ping-pong 128 x 128) against one cooperative group
    # (128 x 256), plain and with bias + GELU, beside cuBLAS.
    # (Bounded on their own: a schedule that deadlocks must not take the
    # whole call.)
    step py-tests-consumer-groups timeout -k 5 150 python3 -m pytest -q -x -rs tests/python/test_gpu_tma.py \
      -k consumer_groups
    # (TILEC_PINGPONG_ARGS: more of its options, e.g. --quick.)
    # shellcheck disable=SC2086
    step bench-matmul-pingpong timeout -k 5 240 python3 bench/matmul_pingpong.py --commit "$commit" \
      --out "$out" ${TILEC_PINGPONG_ARGS:-}
    # The same two shapes with GELU's tanh computed otherwise than by
    # tanh.approx.f32 (libdevice.fast_tanhf) in a copy of kernels/: NAME,
    # then the line that replaces the fast tanh's.
    tanh_variant() {
      local d name=$1 line=$2
      d=$(mktemp -d)
      cp -r bench kernels "$d/"
      python3 - "$d/kernels/matmul.py" "$line" <<'PY' || return 1
import sys
path, line = sys.argv[1], sys.argv[2]
text = open(path).read()
old = "t = tl.extra.cuda.libdevice.fast_tanhf(inner)"
if old not in text:
    sys.exit("no fast tanh to replace")
open(path, "w").write(text.replace(old, line))
PY
      mkdir -p "$logs/$name"
      (cd "$d" && TILEC_KERNELS_DIR=$d/kernels timeout -k 5 200 python3 bench/matmul_pingpong.py \
        --quick --commit "$commit-$name" --out "$logs/$name")
    }
    export -f tanh_variant
    export logs commit
    # As 2 / (1 + exp(-2x)) - 1: what the fast tanh buys.
    step bench-matmul-pingpong-exp-tanh tanh_variant exp-tanh \
      't = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0'
    # As tanh.approx.f16x2 on fp16 pairs: half the special-function
    # instructions, the argument rounded to fp16.
    step bench-matmul-pingpong-f16x2-tanh tanh_variant f16x2-tanh \
      't = tl.inline_asm_elementwise("tanh.approx.f16x2 $0, $1;", "=r,r", [inner.to(tl.float16)], dtype=tl.float16, is_pure=True, pack=2).to(tl.float32)'
  fi
  if [ -f bench/matmul_nt.py ]; then
    step bench-matmul-nt python3 bench/matmul_nt.py --commit "$commit" --out "$out"
  fi
  if [ -f bench/decode.py ]; then
    # (TILEC_BENCH_DECODE_ARGS: more of its options, e.g. --layers-only.)
    # shellcheck disable=SC2086
    step bench-decode python3 bench/decode.py --commit "$commit" --out "$out" \
      ${TILEC_BENCH_DECODE_ARGS:-}
  fi
  # Where the batch-1 GEMVs' time goes, one row per program against the
  # tensor-core tilings (TILEC_PROFILE_DECODE: GEMV:TILING cases, see
  # bench/profile_decode.py): ncu's speed of light, warp stalls, scheduler
  # and occupancy of each, and its stall samples per SASS instruction; in
  # $OUT/profile-decode.tar.gz, a summary in the log.
  if [ -f bench/profile_decode.py ] && command -v ncu > /dev/null; then
    profile_decode() {
      local dir case name failed=0
      local kernels='gemv_residual|rmsnorm_qkv|gate_up'
      local summary='^  [a-z_]+|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy'
      summary+='|Registers Per|Grid Size|Issued Warp|No Eligible|Active Warps Per'
      summary+='|Warp Cycles Per Issued'
      dir=$(mktemp -d)
      IFS=';' read -ra cases <<< "${TILEC_PROFILE_DECODE:-down:mma;down:rows;qkv:mma;qkv:rows}"
      for case in "${cases[@]}"; do
        name=${case//[^A-Za-z0-9_:-]/_}
        local run=(python3 bench/profile_decode.py --case "$case")
        echo "== $case"
        if ncu --clock-control none -k regex:"$kernels" --launch-skip 1 --launch-count 1 \
             --section SpeedOfLight --section MemoryWorkloadAnalysis \
             --section WarpStateStats --section SchedulerStats --section Occupancy \
             --section LaunchStats "${run[@]}" > "$dir/$name.txt" 2>&1 &&
           ncu --clock-control none -k regex:"$kernels" --launch-skip 1 --launch-count 1 \
             --section WarpStateStats --section SourceCounters --page source \
             --print-source sass --csv "${run[@]}" > "$dir/$name-source.csv" 2>&1; then
          grep -E "$summary" "$dir/$name.txt" | head -24
        else
          echo "FAILED: $case"; tail -n 5 "$dir/$name.txt"; failed=1
        fi
      done
      tar czf "$out/profile-decode.tar.gz" -C "$dir" .
      rm -rf "$dir"
      return $failed
    }
    export -f profile_decode
    export out
    step profile-decode profile_decode
  fi
  if [ -f bench/timing_method.py ]; then
    # How do_bench's L2 flush (a 256 MB zero_()) moves read-bound kernels'
    # times, against a read flush and back-to-back graph replays; and
    # Nsight Compute's count of the DRAM bytes each GEMV moves after each
    # flush.
    step bench-timing-method python3 bench/timing_method.py --commit "$commit" --out "$out"
    if command -v ncu > /dev/null; then
      step ncu-timing-method ncu --clock-control none --cache-control none \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        python3 bench/timing_method.py --ncu
    fi
  fi
  if [ -f bench/decode_sweep.py ]; then
    step bench-decode-sweep python3 bench/decode_sweep.py --commit "$commit" --out "$out"
    # Batch 1, four warps, attention at 1024 and 32768 tokens only.
    step bench-decode-sweep-quick python3 bench/decode_sweep.py --quick --commit "$commit" \
      --out "$out"
    # The tensor-core tiling (deterministic mode's) of the three GEMVs.
    step bench-decode-sweep-mma python3 bench/decode_sweep.py --mma --commit "$commit" \
      --out "$out"
  fi
  if [ -f bench/atomics.py ]; then
    step bench-atomics python3 bench/atomics.py --commit "$commit" --out "$out"
  fi
  if [ -f bench/chained_dot.py ]; then
    step bench-chained-dot python3 bench/chained_dot.py --commit "$commit" --out "$out"
  fi
  if [ -f bench/matmul_fp8.py ]; then
    step bench-matmul-fp8 python3 bench/matmul_fp8.py --commit "$commit" --out "$out"
  fi
  if [ -f bench/profile_matmul.py ]; then
    sweep=""
    for c in 128,256,64,8,8,2 128,256,64,8,8,3 128,256,64,8,8,4 128,128,64,8,8,3 \
             128,128,64,8,8,4 128,128,64,8,4,3 128,128,32,8,4,5 256,128,64,8,8,3 \
             128,256,32,8,8,4 128,256,32,8,8,6; do
      sweep="$sweep --config $c"
    done
    step stages-matmul python3 bench/profile_matmul.py --time $sweep
    # The shapes furthest from cuBLAS (few tiles, or a short K), each
    # descriptor variant at the shipped configs and at smaller tiles
    # (TILEC_SMALL_CONFIGS adds more): which tile and schedule they want.
    sweep_small() {
      local shape v configs failed=0
      configs="128,128,64,8,8,3 128,128,32,8,4,4 64,128,32,8,4,4 64,128,64,8,4,3 \
               128,64,64,8,4,4 64,256,64,8,4,3 ${TILEC_SMALL_CONFIGS:-}"
      for shape in 1024,1024,1024 3000,5000,1000 4096,4096,512; do
        for v in desc desc-ws persistent persistent-ws; do
          # (A config that fails ends its variant's list, not the sweep.)
          python3 bench/profile_matmul.py --time --variant "$v" --shape "$shape" \
            $(printf -- "--config %s " $configs) || { echo "FAILED: $v $shape"; failed=1; }
        done
      done
      return $failed
    }
    export -f sweep_small
    step sweep-matmul-small sweep_small
  fi
  # Time against K at fixed M x N (the shipped 128 x 256 tile, beside
  # cuBLAS): a cost paid once per tile shows as the same microseconds per
  # tile at every K, a slower K step as a steeper slope.
  if [ -f bench/profile_matmul.py ]; then
    kscan() {
      local s v shapes=() failed=0
      for s in 3000,5000,1000 3000,5000,2000 3000,5000,4000 4096,4096,512 \
               4096,4096,1024 4096,4096,4096; do
        shapes+=(--shape "$s")
      done
      python3 bench/profile_matmul.py --time --torch --variant desc "${shapes[@]}" \
        --config 128,256,64,8,8,3 || failed=1
      # (Four 16 KB pieces leave room for a 4th stage; one 64 KB piece not.)
      python3 bench/profile_matmul.py --time --variant persistent-ws-store "${shapes[@]}" \
        --config 128,256,64,8,8,3 --config 128,256,64,8,8,4 || failed=1
      python3 bench/profile_matmul.py --time --variant persistent-ws-store --pieces 1 \
        "${shapes[@]}" --config 128,256,64,8,8,3 || failed=1
      for v in ${TILEC_KSCAN_VARIANTS:-}; do
        python3 bench/profile_matmul.py --time --variant "$v" "${shapes[@]}" \
          --config 128,256,64,8,8,3 || failed=1
      done
      return $failed
    }
    export -f kscan
    step kscan-matmul kscan
    # The same shapes with rows 128-byte aligned (A and B views into padded
    # rows), and M x N x K multiples of the tile: what rows that do not
    # start on a 128-byte line cost the TMA loads.
    kscan_pad() {
      local s pad shapes=() failed=0
      for s in 3000,5000,1000 3072,5120,1024 4096,4096,1000 4096,4096,1024; do
        shapes+=(--shape "$s")
      done
      for pad in 0 64; do
        python3 bench/profile_matmul.py --time --torch --pad "$pad" --variant desc \
          "${shapes[@]}" --config 128,256,64,8,8,3 || failed=1
        python3 bench/profile_matmul.py --time --pad "$pad" --variant persistent-ws-store \
          "${shapes[@]}" --config 128,256,64,8,8,3 || failed=1
      done
      return $failed
    }
    export -f kscan_pad
    step kscan-matmul-pad kscan_pad
  fi
  # Where the matmul's time goes: ncu's speed of light, tensor pipe, warp
  # stalls and occupancy for the launches after the warm-up (clocks left
  # alone).
  if [ -f bench/profile_matmul.py ] && command -v ncu > /dev/null; then
    step profile-matmul ncu --clock-control none --kernel-name regex:matmul_kernel \
      --launch-skip 1 --launch-count 1 --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section WarpStateStats \
      --section Occupancy --section LaunchStats \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
      python3 bench/profile_matmul.py --config 128,256,64,8,8,3
    # The same for the descriptor kernels (4096^3 fp16 at 128 x 256 x 64):
    # each variant's time and SASS, ncu's throughput, stall and scheduler
    # sections, and its stall samples per SASS instruction; all in
    # $OUT/profile-tma.tar.gz (TILEC_PROFILE_VARIANTS picks the variants,
    # TILEC_PROFILE_SHAPE the shape,
    # "persistent:1" a persistent one with its epilogue_pieces).
    profile_matmul_tma() {
      local dir v pieces
      dir=$(mktemp -d)
      for v in ${TILEC_PROFILE_VARIANTS:-desc persistent persistent-ws}; do
        pieces=()
        if [[ $v == *:* ]]; then pieces=(--pieces "${v#*:}"); v=${v%%:*}; fi
        local run=(python3 bench/profile_matmul.py --variant "$v" "${pieces[@]}"
                   --shape "${TILEC_PROFILE_SHAPE:-4096,4096,4096}" --config 128,256,64,8,8,3)
        local name=$v${pieces[1]:+-p${pieces[1]}}
        "${run[@]}" --time --sass "$dir" || return 1
        ncu --clock-control none -k regex:matmul_ --launch-skip 1 --launch-count 1 \
          --section SpeedOfLight --section ComputeWorkloadAnalysis \
          --section MemoryWorkloadAnalysis --section WarpStateStats \
          --section SchedulerStats --section Occupancy --section LaunchStats \
          --section InstructionStats "${run[@]}" > "$dir/$name.txt" 2>&1 || return 1
        ncu --clock-control none -k regex:matmul_ --launch-skip 1 --launch-count 1 \
          --section WarpStateStats --section SourceCounters --page source \
          --print-source sass --csv "${run[@]}" > "$dir/$name-source.csv" 2>&1 || return 1
      done
      tar czf "$out/profile-tma.tar.gz" -C "$dir" .
    }
    export -f profile_matmul_tma
    export out
    step profile-matmul-tma profile_matmul_tma
  fi
  if [ -f bench/vector_add.py ]; then
    step bench-vector-add python3 bench/vector_add.py --commit "$commit" \
      --out "$out"
  fi
  # Triton's tutorials 01, 02, 04, 05 unmodified under tilec (issue 17),
  # then their functions against float64; last, as they run their own
  # benchmark sweeps (minutes). They are fetched, not committed: carry
  # build/triton-tutorials (tools/fetch-triton-tutorials.sh).
  if [ -d tests/python ]; then
    step py-tests-tutorials python3 -m pytest -q -rs -s \
      tests/python/test_gpu_triton_tutorials.py
  fi
fi

# The sweep from the CLI, twice on one database: the second times nothing.
mkdir -p "$logs/tune"
tune_cli() {
  TILEC_CACHE_DIR=$logs/tune-cli-cache "$bundle/bin/tilec" tune kernels/softmax.py \
    -k softmax --arg 'fp32[8388608]' --arg 'fp32[8388608]' --arg i32=1024 \
    --arg i32=1024 --arg i32=8192 --arg i32=1024 -D BLOCK=1024 \
    --sweep ROWS=1,2,4,8 --sweep num_warps=2,4,8 --grid 8192/ROWS \
    --bytes 67108864 --key 'softmax fp32 8192x1024' --warmup 10 --rep 50 "$@"
}
export -f tune_cli
export bundle logs
step tune-cli-first tune_cli --csv "$logs/tune/softmax-tune-cli.csv" \
  --json "$logs/tune/softmax-tune-cli.json" --svg "$logs/tune/softmax-tune-cli.svg"
step tune-cli-second tune_cli
tar -czf "$out/tune.tar.gz" -C "$logs/tune" .

# The whole C++ GPU suite under the three compute-sanitizer tools: long, so
# last (a session picks them by name).
if command -v compute-sanitizer > /dev/null; then
  sanitize_cpp() { # tool
    compute-sanitizer --tool "$1" --error-exitcode 1 "$bundle/bin/tilec-gpu-tests"
  }
  export -f sanitize_cpp
  for tool in memcheck racecheck synccheck; do
    step "sanitize-cpp-$tool" sanitize_cpp "$tool"
  done
fi

# Few files come back from a lent machine: the logs travel as one archive.
tar -czf "$out/logs.tar.gz" -C "$logs" .
echo
for b in sweep-matmul-small kscan-matmul kscan-matmul-pad bench-matmul-half-b py-tests-two-dots py-tests-cluster kscan-cluster bench-timing-method ncu-timing-method cpp-decode-example cpp-decode-example-b16 cpp-decode-example-pdl cpp-decode-example-b16-pdl cpp-decode-example-pdl-exit cpp-decode-example-b16-pdl-exit cpp-decode-example-pdl-l2 cpp-decode-example-b16-pdl-l2 py-tests-decode py-tests-pipelined bench-decode profile-decode bench-decode-sweep bench-decode-sweep-quick bench-decode-sweep-mma py-tests-launch sanitize-shipped-memcheck sanitize-shipped-racecheck sanitize-shipped-synccheck py-tests-matmul py-tests-dot-trans py-tests-fp8 py-tests-tma bench-matmul-tma bench-matmul-tma-quick bench-matmul-epilogue bench-matmul bench-matmul-fp8 bench-small-kernel tune-python tune-cli-first tune-cli-second bench-softmax bench-transpose bench-vector-add; do
  [ -f "$logs/$b.log" ] && { echo "== $b"; tail -n 24 "$logs/$b.log"; }
done
echo "== summary"
printf '%s\n' "${rows[@]}"
exit 0
