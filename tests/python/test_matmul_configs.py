"""Every shipped kernels/matmul.py config, for every operand type, compiles
for sm_80 and sm_90a (fp8: sm_90a), uses tensor cores (mma.sync of the right
shape, or on sm_90a wgmma for the pipelined fp16 and bf16 configs, and for
the 8-bit ones when B is column-major) and
assembles with ptxas without spilling: the aligned configs with the
specialisation aligned shapes get (K, N and the strides `:16`, or for
types of 2 bytes and more `:8`: rows still 16-byte aligned), where the
operands go through cp.async and shared buffers, the others with unaligned
sizes, where they are carried in registers. No GPU needed; ptxas from the
CUDA toolkit (skipped where it is absent)."""

import re

import pytest

import matmul  # kernels/matmul.py
import matmul_reference as ref

# Indices of the shipped configs (the descriptor kernels' list, which has
# one more for 8-bit types), as many as the type with the most has (a test
# skips past its own type's last).
SHIPPED = range(max(len(matmul.descriptor_configs(t)) for t in ("float16", "int8")))


# wgmma's names of the 16-bit operand types
PTX_TYPE = {"fp16": "f16", "bf16": "bf16"}
# operand, accumulator/output, the mma.sync it must use
TYPES = [("fp16", "fp32", "m16n8k16.row.col.f32.f16.f16.f32"),
         ("bf16", "fp32", "m16n8k16.row.col.f32.bf16.bf16.f32"),
         ("fp32", "fp32", "m16n8k8.row.col.f32.tf32.tf32.f32"),
         ("i8", "i32", "m16n8k32.row.col.s32.s8.s8.s32"),
         ("fp8e4nv", "fp32", "m16n8k32.row.col.f32.e4m3.e4m3.f32"),
         ("fp8e5", "fp32", "m16n8k32.row.col.f32.e5m2.e5m2.f32")]
DTYPE = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "i8": "int8",
         "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2"}
# fp8 needs sm_89; the other types are checked on sm_80 and sm_90a.
# The sizes' and strides' fact: ":16", ":8" (matmul.py counts rows of
# multiples of 8 elements as aligned for types of 2 bytes and more) or "".
FACTS = {"fp16": [":16", ":8", ""], "bf16": [":16", ":8", ""], "fp32": [":16", ":8", ""],
         "i8": [":16", ""], "fp8e4nv": [":16", ""], "fp8e5": [":16", ""]}
CASES = [(target, operand, output, mma, fact, config)
         for operand, output, mma in TYPES
         for target in (["sm_90a"] if operand.startswith("fp8") else ["sm_80", "sm_90a"])
         for fact in FACTS[operand]
         for config in matmul.matmul_configs(DTYPE[operand], bool(fact))]


def signature(operand, output, fact, b_k_major=False):
    # B row-major (stride_bk, stride_bn = N, 1) or column-major (1, K)
    b_strides = f"i32:1,i32{fact}" if b_k_major else f"i32{fact},i32:1"
    return (f"*{operand}:16,*{operand}:16,*{output}:16,*fp32:16,i32{fact},i32{fact},"
            f"i32{fact},i32{fact},i32:1,{b_strides},i32{fact},i32:1")


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("target,operand,output,mma,fact,config", CASES)
def test_config_assembles_without_spills(tmp_path, target, operand, output, mma,
                                         fact, config):
    bm, bn, bk, gm, warps, stages = config
    aligned = bool(fact)
    k = matmul.matmul_kernel.compile(
        signature(operand, output, fact), num_warps=warps, num_stages=stages,
        target=target,
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, HAS_BIAS=True,
        ACTIVATION="gelu", INPUT_PRECISION="tf32")
    ptx = k.asm["ptx"]
    if target == "sm_90a" and operand in ("fp16", "bf16") and aligned:
        # Tiles copied by cp.async: wgmma reads them in shared memory, one
        # m64nN instruction per 64 rows of a warpgroup's share.
        wgmma = (f"wgmma.mma_async.sync.aligned.m64n{min(bn, 256)}k16."
                 f"f32.{PTX_TYPE[operand]}.{PTX_TYPE[operand]}")
        assert wgmma in ptx
        assert "mma.sync" not in ptx
    else:
        assert "mma.sync.aligned." + mma in ptx
        assert "wgmma" not in ptx
    if aligned:  # both operands pipelined through cp.async, 16 bytes each
        assert "cp.async.cg.shared.global" in ptx
        assert "cp.async.wait_group" in ptx
    ref.assert_assembles_without_spills(ptx, target, tmp_path)


# wgmma's names of the 8-bit operand types
PTX_TYPE_8BIT = {"i8": ("s32", "s8"), "fp8e4nv": ("f32", "e4m3"), "fp8e5": ("f32", "e5m2")}


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand,output,config",
                         [(operand, output, config) for operand, output, _ in TYPES
                          if operand in PTX_TYPE_8BIT
                          for config in matmul.matmul_configs(DTYPE[operand], True)])
def test_k_major_8bit_configs_run_on_wgmma(tmp_path, operand, output, config):
    # With B column-major both 8-bit operands are K-contiguous, as wgmma
    # reads them (it transposes only 16-bit ones): every aligned config
    # then multiplies with m64nNk32, one instruction per K step of 32 and
    # per 64 rows of a warpgroup, and assembles without spills.
    bm, bn, bk, gm, warps, stages = config
    k = matmul.matmul_kernel.compile(
        signature(operand, output, ":16", b_k_major=True), num_warps=warps,
        num_stages=stages, target="sm_90a", BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        GROUP_M=gm, HAS_BIAS=True, ACTIVATION="gelu", INPUT_PRECISION="tf32")
    ptx = k.asm["ptx"]
    acc, t = PTX_TYPE_8BIT[operand]
    per_step = bm // (64 * (warps // 4))
    assert ptx.count(f"wgmma.mma_async.sync.aligned.m64n{bn}k32.{acc}.{t}.{t}") == \
        per_step * (bk // 32)
    assert "mma.sync" not in ptx
    assert "cp.async.cg.shared.global" in ptx
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand", ["fp8e4nv", "fp8e5"])
def test_fp8_runs_in_f32_default_config_assembles(tmp_path, operand):
    # matmul(..., max_num_imprecise_acc=N) with no config picks a tile
    # whose two sets of accumulators fit (_default_config): fp32 sums of
    # each BLOCK_K run on wgmma, without spills.
    bm, bn, bk, gm, warps, stages = matmul._default_config(DTYPE[operand], True, 32)
    assert bm * bn <= 64 * 32 * warps
    k = matmul.matmul_kernel.compile(
        signature(operand, "fp32", ":16", b_k_major=True), num_warps=warps,
        num_stages=stages, target="sm_90a", BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        GROUP_M=gm, HAS_BIAS=True, ACTIVATION="gelu", INPUT_PRECISION="tf32",
        MAX_IMPRECISE_ACC=bk)
    ptx = k.asm["ptx"]
    # one fp32 sum per iteration: its complete wait, nothing in flight
    assert ptx.count("wgmma.wait_group.sync.aligned 0;") == 1
    assert "wgmma.wait_group.sync.aligned 1;" not in ptx
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


# Tiles beyond the shipped configs that put wgmma's pieces together
# differently: two warpgroups each holding two interleaved 64-row blocks
# (256 rows on 8 warps), one warpgroup with two blocks, N = 256 in one
# instruction, the 64-byte swizzle (BLOCK_K = 32 rows of A) with two
# warpgroups, and the 32-byte one (BLOCK_K = 16) with a 64-byte B.
WGMMA_TILES = [(256, 128, 64, 8, 8, 3), (128, 128, 64, 8, 4, 3),
               (64, 256, 64, 8, 4, 3), (128, 64, 32, 8, 8, 3),
               (64, 32, 16, 8, 4, 3)]


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand", ["fp16", "bf16"])
@pytest.mark.parametrize("config", WGMMA_TILES)
def test_wgmma_tiles_assemble(tmp_path, operand, config):
    bm, bn, bk, gm, warps, stages = config
    k = matmul.matmul_kernel.compile(
        signature(operand, "fp32", ":16"), num_warps=warps, num_stages=stages,
        target="sm_90a", BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
        HAS_BIAS=True, ACTIVATION="gelu", INPUT_PRECISION="tf32")
    ptx = k.asm["ptx"]
    t = PTX_TYPE[operand]
    # One instruction per K step of 16 and per 64 rows of a warpgroup.
    per_step = bm // (64 * (warps // 4))
    assert ptx.count(f"wgmma.mma_async.sync.aligned.m64n{bn}k16.f32.{t}.{t}") == \
        per_step * (bk // 16)
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


def scaled_signature(operand, fact, b_k_major=False):
    b_strides = f"i32:1,i32{fact}" if b_k_major else f"i32{fact},i32:1"
    return (f"*{operand}:16,*{operand}:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32{fact},"
            f"i32{fact},i32{fact},i32{fact},i32:1,{b_strides},i32{fact},i32:1")


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("rowwise", [False, True])
@pytest.mark.parametrize("fact,k_major,config",
                         [(fact, k_major, config) for fact in FACTS["fp8e4nv"]
                          for k_major in ([False, True] if fact else [False])
                          for config in matmul.matmul_configs("float8_e4m3fn", bool(fact))])
def test_scaled_fp8_configs_assemble_without_spills(tmp_path, rowwise, fact, k_major,
                                                    config):
    # The scales, bias and GELU in the epilogue cost no spills on any fp8
    # config; the product runs on fp8 mma.sync, or with B column-major
    # (aligned) on wgmma.
    bm, bn, bk, gm, warps, stages = config
    k = matmul.scaled_matmul_kernel.compile(
        scaled_signature("fp8e4nv", fact, k_major), num_warps=warps, num_stages=stages,
        target="sm_90a", BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
        ROWWISE=rowwise, HAS_BIAS=True, ACTIVATION="gelu")
    ptx = k.asm["ptx"]
    if k_major:
        assert f"wgmma.mma_async.sync.aligned.m64n{bn}k32.f32.e4m3.e4m3" in ptx
        assert "mma.sync" not in ptx
    else:
        assert "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32" in ptx
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("imprecise,runs", [(-1, 0), (-2, 1), (32, 4), (64, 2), (128, 1),
                                            (48, 4)])
def test_fp8_imprecise_runs_assemble(tmp_path, imprecise, runs):
    # fp8 x fp8^T on wgmma with BK = 128 (four k32 steps): each run of
    # max_num_imprecise_acc K elements ends with a wait and f32 adds; None
    # (-1) leaves the instructions accumulating (no wait inside the loop's
    # dot); `acc += tl.dot(a, b)` (-2) is one run of BK; 48 rounds down to
    # runs of 32.
    import fp8_kernels
    k = fp8_kernels.k_major_dot.compile(
        "*fp8e4nv:16,*fp8e4nv:16,*fp32:16,i32,i32,i32:16", num_warps=4, num_stages=3,
        target="sm_90a", BM=64, BN=64, BK=128, IMPRECISE=imprecise)
    ptx = k.asm["ptx"]
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3") == 4
    # Complete waits: one per run, which leaves nothing in flight; with no
    # runs the dot leaves its group in flight (wait_group 1) until the
    # wait after the loop.
    assert ptx.count("wgmma.wait_group.sync.aligned 0;") == max(runs, 1)
    assert ("wgmma.wait_group.sync.aligned 1;" in ptx) == (runs == 0)
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand", ["fp16", "bf16"])
@pytest.mark.parametrize("config", matmul.matmul_configs("float16", True))
@pytest.mark.parametrize("fact", [":16", ":8"])
def test_desc_config_reads_through_tma_without_spills(tmp_path, operand, config, fact):
    # matmul_desc_kernel: M, N and K unspecialised (TMA checks the bounds),
    # the row strides `:16` or `:8` (16-byte rows): both tiles copied by
    # TMA (one 2-D copy per 128-byte column), waited for on mbarriers, read
    # by wgmma; no cp.async. With one stage, each copy waited for on the
    # spot.
    bm, bn, bk, gm, warps, stages = config
    sig = (f"*{operand}:16,*{operand}:16,*fp32:16,*fp32:16,i32,i32,i32,i32{fact},"
           f"i32{fact},i32{fact},i32:1")
    for num_stages in (stages, 1):
        k = matmul.matmul_desc_kernel.compile(
            sig, num_warps=warps, num_stages=num_stages, target="sm_90a", BLOCK_M=bm,
            BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, HAS_BIAS=True, ACTIVATION="gelu")
        ptx = k.asm["ptx"]
        assert len(k.tensor_maps) == 2
        assert "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier" in ptx
        assert "mbarrier.try_wait.parity" in ptx
        assert "wgmma.mma_async" in ptx
        assert "cp.async.cg" not in ptx
        ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


# The descriptor kernels' signature: A, B, C, bias, then M, N, K,
# stride_am, stride_bk, stride_cm and stride_cn (1); the persistent one's
# then its stream-K workspace: partial sums in the accumulator's type, and
# int32 flags.
PERSISTENT_WORKSPACE = {"fp32": ",*fp32:16,*i32:16", "fp16": ",*fp32:16,*i32:16",
                        "bf16": ",*fp32:16,*i32:16", "i32": ",*i32:16,*i32:16"}


def _descriptor_kernel_ptx(kernel, operand, output, config_index, n_fact=":16",
                          configs=None, **constexprs):
    """The sm_90a PTX of kernels/matmul.py's `kernel` (a descriptor kernel)
    at config `config_index` of `configs` (default: the shipped
    matmul_configs; skips past the last): C of `output`, with bias and
    GELU when it is fp32; N specialised `n_fact`, the other sizes and
    strides `:16`."""
    configs = configs or matmul.matmul_configs(DTYPE[operand], True)
    if config_index >= len(configs):
        pytest.skip("fewer configs")
    bm, bn, bk, gm, warps, stages = configs[config_index]
    floats = output == "fp32"
    if kernel == "matmul_persistent_kernel":
        # (As matmul_tma() launches it: the tile stored in pieces.)
        constexprs["STAGES"] = stages
        constexprs.setdefault("EPILOGUE_PIECES", matmul.default_epilogue_pieces(
            configs[config_index], 4 if floats or output == "i32" else 2))
    k = getattr(matmul, kernel).compile(
        f"*{operand}:16,*{operand}:16,*{output}:16,*{output}:16,i32:16,i32{n_fact},"
        + ",".join(["i32:16"] * 4 + ["i32:1"])
        + (PERSISTENT_WORKSPACE[output] if kernel == "matmul_persistent_kernel" else ""),
        num_warps=warps, num_stages=stages, target="sm_90a", BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, GROUP_M=gm, HAS_BIAS=floats, ACTIVATION="gelu" if floats else "",
        **constexprs)
    ptx = k.asm["ptx"]
    # No call (a 64-bit division is one): with a call in the kernel the
    # CUDA driver's compiler serialised every wgmma (docs/pipeline.md).
    assert not re.search(r"\bcall\b|\b(div|rem)\.[us]64\b", ptx)
    return ptx


def _warp_specialized_persistent(operand, output, config, **constexprs):
    """matmul_persistent_kernel compiled for sm_90a with a producer
    warpgroup at `config` (BLOCK_N a power of two), its tile stored in
    default_epilogue_pieces; bias and GELU where C is fp32; `constexprs`
    on top."""
    bm, bn, bk, gm, warps, stages = config
    floats = output == "fp32"
    return matmul.matmul_persistent_kernel.compile(
        f"*{operand}:16,*{operand}:16,*{output}:16,*{output}:16,i32:16,i32:16,"
        + ",".join(["i32:16"] * 4 + ["i32:1"]) + PERSISTENT_WORKSPACE[output],
        num_warps=warps, num_stages=stages, target="sm_90a", BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, GROUP_M=gm, HAS_BIAS=floats, ACTIVATION="gelu" if floats else "",
        STAGES=stages, EPILOGUE_PIECES=matmul.default_epilogue_pieces(config, 4 if floats else 2),
        WARP_SPECIALIZE=True, **constexprs)


DESC_TYPES = [("fp16", "fp32"), ("fp16", "fp16"), ("bf16", "fp32"), ("bf16", "bf16"),
              ("i8", "i32")]


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("kernel", ["matmul_desc_kernel", "matmul_persistent_kernel"])
@pytest.mark.parametrize("operand,output", DESC_TYPES)
@pytest.mark.parametrize("config_index", SHIPPED)
def test_descriptor_configs_assemble_without_spills(tmp_path, kernel, operand, output,
                                                    config_index):
    # Every shipped config through tensor descriptors on sm_90a: the 16-bit
    # operands copied by TMA into the buffers wgmma reads (int8, whose B is
    # row-major, runs on mma.sync); C in fp32 with bias and GELU, or in
    # the inputs' type, whose epilogue the persistent kernel runs inside its
    # pipelined loop (converting the tile through shared memory beside the
    # rings). No spills, and no wgmma ptxas serialises.
    ptx = _descriptor_kernel_ptx(kernel, operand, output, config_index)
    # (8-bit wgmma reads B K-major only: int8's row-major B takes mma.sync.)
    assert ("wgmma.mma_async" in ptx) == (operand != "i8")
    if operand != "i8":
        assert "cp.async.bulk.tensor" in ptx
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("kernel", ["matmul_desc_kernel", "matmul_persistent_kernel"])
@pytest.mark.parametrize("operand,output", [("fp16", "fp32"), ("bf16", "bf16")])
@pytest.mark.parametrize("config_index", SHIPPED)
def test_warp_specialized_configs_assemble(tmp_path, kernel, operand, output, config_index):
    # WARP_SPECIALIZE on sm_90a: a block of num_warps + 4 warps (the
    # producer warpgroup), setmaxnreg moving registers from it to the
    # consumers, their named barrier and their arrivals on the empty
    # barriers; ptxas accepts every config, without spilling but for the
    # persistent kernel's 128 x 256 tiles, whose consumers' 232 registers
    # fall short of the epilogue in their loop (ptxas 13.0: 112 bytes with
    # the fp32 bias + GELU epilogue, none with a bf16 C).
    ptx = _descriptor_kernel_ptx(kernel, operand, output, config_index, WARP_SPECIALIZE=True)
    bm, bn, bk, gm, warps, stages = matmul.matmul_configs(DTYPE[operand], True)[config_index]
    assert f".reqntid {32 * (warps + 4)}, 1, 1" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32" in ptx
    assert f"bar.sync 1, {32 * warps};" in ptx or "bar.sync 1" not in ptx
    assert "mbarrier.arrive.shared::cta.b64" in ptx
    assert "cp.async.bulk.tensor" in ptx
    if kernel == "matmul_persistent_kernel" and bm * bn > 128 * 128:
        ref.assert_no_wgmma_warnings(ref.assert_assembles(ptx, "sm_90a", tmp_path))
    else:
        ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


# The persistent kernel's tiles in clusters (CLUSTER=2 or 4) beyond the
# shipped configs: 256 x 128, whose pair shares B's 128-column blocks.
CLUSTER_TILES = [(256, 128, 64, 8, 8, 3)]


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand,output", [("fp16", "fp32"), ("bf16", "bf16")])
@pytest.mark.parametrize("config_index", list(SHIPPED) + [-1])
@pytest.mark.parametrize("cluster", [2, 4])
def test_cluster_configs_assemble(tmp_path, operand, output, config_index, cluster):
    # matmul_persistent_kernel(CLUSTER=2 or 4) at every shipped config (-1:
    # the CLUSTER_TILES): the cluster size in the PTX and in the compiled
    # kernel's metadata (what the launcher checks grids against), B's
    # blocks multicast where their 128-byte columns split evenly among the
    # cluster, its barriers, and ptxas accepting it with no wgmma
    # serialised and, as without clusters, no spills but for the 128 x
    # 256 fp32 bias + GELU epilogue.
    configs = matmul.matmul_configs(DTYPE[operand], True)
    if config_index >= len(configs):
        pytest.skip("fewer configs")
    config = CLUSTER_TILES[0] if config_index < 0 else configs[config_index]
    bm, bn, bk, gm, warps, stages = config
    floats = output == "fp32"
    k = _warp_specialized_persistent(operand, output, config, TMA_STORE=not floats,
                                     CLUSTER=cluster)
    ptx = k.asm["ptx"]
    assert f".reqnctapercluster {cluster}, 1, 1" in ptx
    assert k.metadata.cluster_dims == (cluster, 1, 1) and k.metadata.num_ctas == 1
    assert ("multicast::cluster" in ptx) == (bn * 2 // 128 % cluster == 0)
    assert "barrier.cluster.arrive" in ptx and "barrier.cluster.wait" in ptx
    if floats and bm * bn > 128 * 128:
        ref.assert_no_wgmma_warnings(ref.assert_assembles(ptx, "sm_90a", tmp_path))
    else:
        ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)
    plain = matmul.matmul_persistent_kernel.compile(
        f"*{operand}:16,*{operand}:16,*{output}:16,*{output}:16,i32:16,i32:16,"
        + ",".join(["i32:16"] * 4 + ["i32:1"]) + PERSISTENT_WORKSPACE[output],
        num_warps=warps, num_stages=stages, target="sm_90a", BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, GROUP_M=gm, HAS_BIAS=False, ACTIVATION="", STAGES=stages,
        WARP_SPECIALIZE=True, CLUSTER=1)
    assert plain.metadata.cluster_dims == (1, 1, 1)
    assert ".reqnctapercluster" not in plain.asm["ptx"]


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand,output", [("fp16", "fp32"), ("fp16", "fp16"),
                                            ("bf16", "bf16")])
@pytest.mark.parametrize("tma_store", [False, True])
@pytest.mark.parametrize("config_index", SHIPPED)
def test_consumer_groups_configs_assemble(tmp_path, operand, output, tma_store, config_index):
    # The persistent kernel with two consumer groups (ping-pong) at every
    # shipped config of one warpgroup: a block of 2 x 4 warps and the
    # producer's 4, each group on a named barrier of its own (the id in a
    # register), no spills, and no wgmma ptxas serialises or fences again.
    # ptxas 13.0 injects one wait of its own after the loop, at most (the
    # paths where a group's last iteration ended a tile and its epilogue
    # waited), never inside it: C7517 at most once, nothing else. (An fp32 C
    # with the bias + exact-GELU epilogue at 128 x 128 x 32 spills in the
    # consumers' 232 registers: 4256 bytes with ptxas 13.0; one group of
    # the same warps keeps 248. Checked without spills: the 16-bit C the
    # schedule is for, and the other fp32 configs.)
    bm, bn, bk, gm, warps, stages = matmul.matmul_configs(DTYPE[operand], True)[
        config_index] if config_index < len(matmul.matmul_configs(DTYPE[operand], True)) \
        else (0, 0, 0, 0, 0, 0)
    if warps != 4:
        pytest.skip("two groups of 8 warps leave the consumers too few registers")
    ptx = _descriptor_kernel_ptx("matmul_persistent_kernel", operand, output, config_index,
                                 WARP_SPECIALIZE=True, TMA_STORE=tma_store, CONSUMER_GROUPS=2)
    assert ".reqntid 384, 1, 1" in ptx
    assert re.search(r"bar\.sync %r\d+, 128;", ptx)
    report = ref.assert_assembles(ptx, "sm_90a", tmp_path)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    if not (output == "fp32" and (bm, bn, bk) == (128, 128, 32)):
        assert spills and all(s == "0" and l == "0" for s, l in spills), report
    warnings = re.findall(r"C75\d\d", report)
    assert warnings in ([], ["C7517"]), report
    line = int(re.search(r"injected in around line (\d+)", report).group(1)) if warnings else 0
    if line:
        # (After the loop: past the last branch back to a label before the
        # first wgmma, the loop's back edge. Line 0: ptxas did not say.)
        lines = ptx.splitlines()
        first = next(i for i, t in enumerate(lines) if "wgmma.mma_async" in t)
        labels = {t.strip()[:-1]: i for i, t in enumerate(lines) if re.match(r"^\$L__BB\w+:", t)}
        back = [i for i, t in enumerate(lines)
                if (m := re.search(r"\bbra(?:\.uni)?\s+(\$L__BB\w+);", t))
                and labels.get(m.group(1), 10 ** 9) < first < i]
        assert back and line > max(back) + 1, report


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("kernel", ["matmul_desc_kernel", "matmul_persistent_kernel"])
@pytest.mark.parametrize("operand,output", [("fp16", "fp32"), ("fp16", "fp16"),
                                            ("bf16", "bf16")])
@pytest.mark.parametrize("ws", [False, True])
@pytest.mark.parametrize("config_index", SHIPPED)
def test_tma_store_configs_assemble(tmp_path, kernel, operand, output, ws, config_index):
    # TMA_STORE on sm_90a: C leaves through the tile's swizzled shared
    # buffer and one thread's bulk copies (one per 128-byte column), no
    # st.global. Every config assembles, with warp specialisation too (the
    # buffer's bytes count against the rings: fewer stages where it does
    # not fit beside them). Without spills, but for 128 x 256 tiles with
    # the fp32 C and its bias + GELU epilogue, which spill a little with
    # ptxas 13.0 (at most 256 bytes): the warp-specialised persistent
    # kernel up to 180 bytes (112 through pointers), the descriptor kernel
    # 40 at BLOCK_K 32, whose 128 GELU results all wait for the buffer. A
    # 16-bit C goes into the buffer with stmatrix and spills nowhere.
    ptx = _descriptor_kernel_ptx(kernel, operand, output, config_index, TMA_STORE=True,
                                 WARP_SPECIALIZE=ws)
    bm, bn, bk, gm, warps, stages = matmul.matmul_configs(DTYPE[operand], True)[config_index]
    columns = bn * (4 if output == "fp32" else 2) // 128
    assert "st.global" not in ptx
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") >= columns
    assert "cp.async.bulk.wait_group.read 0;" in ptx
    if output != "fp32":
        assert "stmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    wide = bm * bn > 128 * 128
    if wide and output == "fp32":
        report = ref.assert_assembles(ptx, "sm_90a", tmp_path)
        spills = re.findall(r"(\d+) bytes spill stores", report)
        assert spills and max(int(b) for b in spills) <= 256, report
        ref.assert_no_wgmma_warnings(report)
    else:
        ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("kernel", ["matmul_desc_kernel", "matmul_persistent_kernel"])
@pytest.mark.parametrize("operand,output", [("fp16", "fp32"), ("bf16", "bf16")])
@pytest.mark.parametrize("ws", [False, True])
@pytest.mark.parametrize("config_index", [0, 2])
def test_tma_store_of_ragged_rows_assembles(tmp_path, kernel, operand, output, ws,
                                            config_index):
    # TMA_STORE with N not known to make rows of whole 16-byte chunks: the
    # kernel tests N's low bits at its entry and stores C through TMA where
    # they are zero, through masked pointer stores where they are not (TMA
    # would write past N up to the next 16-byte boundary). Both paths are
    # in the epilogue, in a warp-specialised kernel's consumers too, and
    # the kernel assembles.
    ptx = _descriptor_kernel_ptx(kernel, operand, output, config_index, n_fact="",
                                 TMA_STORE=True, WARP_SPECIALIZE=ws)
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx
    assert "st.global" in ptx
    # N known a multiple of 16: TMA alone.
    known = _descriptor_kernel_ptx(kernel, operand, output, config_index, TMA_STORE=True,
                                   WARP_SPECIALIZE=ws)
    assert "st.global" not in known
    ref.assert_no_wgmma_warnings(ref.assert_assembles(ptx, "sm_90a", tmp_path))


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("kernel", ["matmul_desc_kernel", "matmul_persistent_kernel"])
@pytest.mark.parametrize("operand,output", [("fp8e4nv", "fp32"), ("i8", "i32"),
                                            ("fp16", "fp16")])
@pytest.mark.parametrize("ws", [False, True])
@pytest.mark.parametrize("config_index", SHIPPED)
def test_column_major_b_configs_run_on_wgmma(tmp_path, kernel, operand, output, ws,
                                             config_index):
    # B_K_MAJOR (a column-major B read as N x K blocks through TMA and
    # transposed): wgmma reads B's buffer K-major, which 8-bit operands
    # need (with B row-major int8 and fp8 take mma.sync). Every config of
    # descriptor_configs() (8-bit types: one beyond the shipped) assembles, without spills but where the warp-specialised
    # persistent kernel's 128 x 256 tile has the fp32 bias + GELU epilogue
    # in its loop (as test_warp_specialized_configs_assemble).
    configs = matmul.descriptor_configs(DTYPE[operand])
    ptx = _descriptor_kernel_ptx(kernel, operand, output, config_index, configs=configs,
                                 B_K_MAJOR=True, WARP_SPECIALIZE=ws)
    assert "wgmma.mma_async" in ptx and "mma.sync" not in ptx
    assert "cp.async.bulk.tensor" in ptx
    bm, bn = configs[config_index][:2]
    if ws and kernel == "matmul_persistent_kernel" and bm * bn > 128 * 128:
        ref.assert_no_wgmma_warnings(ref.assert_assembles(ptx, "sm_90a", tmp_path))
    else:
        ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand,output", [("fp16", "fp16"), ("bf16", "fp32")])
@pytest.mark.parametrize("config_index", SHIPPED)
@pytest.mark.parametrize("cluster", [1, 2])
def test_stream_k_configs_assemble_without_spills(tmp_path, operand, output, config_index,
                                                  cluster):
    # matmul_persistent_kernel(STREAM_K) at every shipped config, warp-
    # specialised, alone and in clusters of two: the partials stored and
    # summed a piece of columns at a time leave no spills, but for the
    # 128 x 128 tile of one warpgroup (128 accumulator registers a thread),
    # where the finisher's code after the loop, run once per program,
    # spills a few registers (the SASS puts them there, not in the loop);
    # its flags are raised by a releasing atomic and polled by an
    # acquiring one; with atomics in the kernel C leaves through pointers,
    # not TMA.
    configs = matmul.matmul_configs(DTYPE[operand], True)
    if config_index >= len(configs):
        pytest.skip("fewer configs")
    ptx = _descriptor_kernel_ptx("matmul_persistent_kernel", operand, output, config_index,
                                 WARP_SPECIALIZE=True, TMA_STORE=output != "fp32",
                                 CLUSTER=cluster, STREAM_K=True)
    assert "atom.release.gpu.global.exch.b32" in ptx
    assert "atom.acquire.gpu.global.add.u32" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared" not in ptx
    assert "wgmma.mma_async" in ptx
    bm, bn, _, _, warps, _ = configs[config_index]
    if output == "fp32" and bm * bn > 128 * 128:
        ref.assert_no_wgmma_warnings(ref.assert_assembles(ptx, "sm_90a", tmp_path))
    elif warps == 4 and bm * bn == 128 * 128:
        report = ref.assert_assembles(ptx, "sm_90a", tmp_path)
        ref.assert_no_wgmma_warnings(report)
        spilled = [int(b) for b in re.findall(r"(\d+) bytes spill stores", report)]
        assert spilled and max(spilled) <= 64, report
    else:
        ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand,output", [("fp16", "fp16"), ("bf16", "fp32")])
@pytest.mark.parametrize("config", matmul.WIDE_CONFIGS)
@pytest.mark.parametrize("cluster", [1, 2])
def test_wide_configs_assemble_without_spills(tmp_path, operand, output, config, cluster):
    # matmul_persistent_kernel at the tiles whose width is not a power of
    # two (BLOCK_N + TAIL_N: 160 = 128 + 32, 192 = 128 + 64), warp-
    # specialised, alone and in clusters of two, as matmul_tma launches
    # them: both dots on wgmma (m64n128 and the tail's m64n32 or m64n64),
    # in flight across K steps (a wait for all but the last group: each
    # epilogue in its own if, the tail's in pieces too), C through
    # TMA; no spills (but for 256 x 192 with an fp32 bias + GELU epilogue),
    # and no wgmma ptxas serialises.
    bm, width, bk, gm, warps, stages = config
    bn, tail = matmul.split_width(width)
    floats = output == "fp32"
    k = _warp_specialized_persistent(
        operand, output, (bm, bn, bk, gm, warps, stages), TMA_STORE=True, CLUSTER=cluster,
        TAIL_N=tail, TAIL_PIECES=matmul.default_epilogue_pieces((bm, tail), 4 if floats else 2))
    ptx = k.asm["ptx"]
    shapes = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16", ptx))
    assert shapes == {str(bn), str(tail)}
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared" in ptx
    if floats and bm * width > 256 * 160:
        # (As the 128 x 256 tile's: an fp32 bias + GELU epilogue beside 192
        # accumulator registers a thread spills a few.)
        ref.assert_no_wgmma_warnings(ref.assert_assembles(ptx, "sm_90a", tmp_path))
    else:
        ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.parametrize("output,approximate", [("fp16", True), ("bf16", True), ("fp32", False)])
def test_gelu_tanh_is_approximate_below_fp32(output, approximate):
    # The fused GELU takes tanh.approx.f32 where C has fewer than 32 bits
    # (its rounding is coarser than the instruction's 2^-11) and the
    # accurate exp and division for an fp32 C (matmul.epilogue).
    bm, bn, bk, gm, warps, stages = matmul.matmul_configs("float16", True)[0]
    operand = "bf16" if output == "bf16" else "fp16"
    k = matmul.matmul_desc_kernel.compile(
        f"*{operand}:16,*{operand}:16,*{output}:16,*fp32:16,i32:16,i32:16,"
        + ",".join(["i32:16"] * 4 + ["i32:1"]),
        num_warps=warps, num_stages=stages, target="sm_90a", BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, GROUP_M=gm, HAS_BIAS=True, ACTIVATION="gelu")
    ptx = k.asm["ptx"]
    assert ("tanh.approx.f32" in ptx) == approximate
    assert ("ex2.approx" in ptx) != approximate
