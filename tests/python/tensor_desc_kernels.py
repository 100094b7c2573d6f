"""Kernels of test_tensor_descriptor.py: tl.make_tensor_descriptor and its
loads, stores and atomics, as Triton writes them."""
import tilec
import tilec.language as tl


@tilec.jit
def scale_copy(src, dst, M, N, stride_src, stride_dst, BM: tl.constexpr, BN: tl.constexpr):
    # dst = 2 * src, block by block; the blocks at the edges reach past M, N.
    a = tl.make_tensor_descriptor(src, [M, N], [stride_src, 1], [BM, BN])
    b = tl.make_tensor_descriptor(dst, shape=[M, N], strides=[stride_dst, 1],
                                  block_shape=[BM, BN])
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    b.store([m, n], a.load([m, n]) * 2)


@tilec.jit
def padded_blocks(src, out, M, N, BM: tl.constexpr, BN: tl.constexpr, NAN: tl.constexpr):
    # Each block as loaded, padding included, into a grid of whole blocks.
    if NAN:
        a = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN], padding_option="nan")
    else:
        a = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    block = a.load([pm * BM, pn * BN])
    rows = pm * BM + tl.arange(0, BM)
    cols = pn * BN + tl.arange(0, BN)
    width = tl.num_programs(1) * BN
    tl.store(out + rows[:, None] * width + cols[None, :], block)


@tilec.jit
def negate_3d(src, dst, A, B, C, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    a = tl.make_tensor_descriptor(src, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    b = tl.make_tensor_descriptor(dst, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    offs = [tl.program_id(0) * BA, tl.program_id(1) * BB, tl.program_id(2) * BC]
    tl.store_tensor_descriptor(b, offs, -tl.load_tensor_descriptor(a, offs))


@tilec.jit
def load_block(desc, m, n):
    # A helper that takes a descriptor.
    return desc.load([m, n])


@tilec.jit
def row_sums(x, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # A loop over the columns through one descriptor, which a helper reads;
    # the accumulator from the descriptor's block shape and dtype.
    desc = tl.make_tensor_descriptor(x, [M, N], [N, 1], [BM, BN])
    m = tl.program_id(0) * BM
    acc = tl.zeros(desc.block_shape, desc.dtype)
    for n in range(0, N, BN):
        acc += load_block(desc, m, n)
    rows = m + tl.arange(0, BM)
    tl.store(out + rows, tl.sum(acc, axis=1), mask=rows < desc.shape[0])


@tilec.jit
def histogram_add(values, counts, n, bins, BLOCK: tl.constexpr):
    # Every program adds its block of `values` into `counts`, through a
    # descriptor's atomic add (the elements past `bins` are dropped).
    v = tl.load(values + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK),
                mask=tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) < n, other=0)
    desc = tl.make_tensor_descriptor(counts, [bins], [1], [BLOCK])
    desc.atomic_add([0], v)


@tilec.jit
def running_max(values, best, n, BLOCK: tl.constexpr):
    v = tl.load(values + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    desc = tl.make_tensor_descriptor(best, [n], [1], [BLOCK])
    desc.atomic_max([0], v)


@tilec.jit
def shifted_rows(src, dst, M, N, stride_m, stride_n, shift, BM: tl.constexpr,
                 BN: tl.constexpr):
    # The last stride an argument (specialised `:1` where it is 1); blocks
    # read `shift` rows up, so the first ones start at a negative offset and
    # read padding there; the descriptor is moved along in a loop, and the
    # padding chosen at run time by a branch.
    d = tl.make_tensor_descriptor(src, [M, N], [stride_m, stride_n], [BM, BN])
    out = tl.make_tensor_descriptor(dst, [M, N], [desc_stride(d), 1], [BM, BN])
    m = tl.program_id(0) * BM
    for n in range(0, N, BN):
        out.store([m, n], d.load([m - shift, n]))
        d = tl.make_tensor_descriptor(src, [d.shape[0], N], [stride_m, stride_n], [BM, BN])


@tilec.jit
def desc_stride(d):
    # A helper reading a descriptor's strides.
    return d.strides[0]


@tilec.jit
def merged_padding(src, dst, M, N, use_nan):
    if use_nan:
        d = tl.make_tensor_descriptor(src, [M, N], [N, 1], [16, 16], padding_option="nan")
    else:
        d = tl.make_tensor_descriptor(src, [M, N], [N, 1], [16, 16])
    tl.store(dst + tl.arange(0, 16), tl.sum(d.load([0, 0]), axis=0))


@tilec.jit
def wide_offsets(x, M, N, m):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    d.store([m.to(tl.int64), 0], 0.0)


@tilec.jit
def float_max(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    d.atomic_max([0, 0], 1.0)


@tilec.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    c = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a.load([m, k]), b.load([k, n]), acc)
    c.store([m, n], acc)


# Mistakes, each a located error.

@tilec.jit
def strided_last(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 2], [16, 16])
    d.store([0, 0], 0.0)


@tilec.jit
def runtime_last_stride(x, M, N, s):
    d = tl.make_tensor_descriptor(x, [M, N], [N, s], [16, 16])
    d.store([0, 0], 0.0)


@tilec.jit
def narrow_block(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 2])
    d.store([0, 0], 0.0)


@tilec.jit
def six_dimensions(x):
    d = tl.make_tensor_descriptor(x, [2, 2, 2, 2, 2, 64], [1, 1, 1, 1, 64, 1],
                                  [2, 2, 2, 2, 2, 64])
    d.store([0, 0, 0, 0, 0, 0], 0.0)


@tilec.jit
def bad_padding(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16], padding_option="inf")
    d.store([0, 0], 0.0)


@tilec.jit
def nan_padding_of_integers(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16], padding_option="nan")
    d.store([0, 0], 0)


@tilec.jit
def plain_load_of_descriptor(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    tl.store(x + tl.arange(0, 16), tl.sum(tl.load(d), axis=0))


@tilec.jit
def advance_descriptor(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    d = tl.advance(d, [16, 0])


@tilec.jit
def wrong_offsets(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    d.store([0], 1.0)


@tilec.jit
def wrong_value_shape(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    d.store([0, 0], tl.zeros((16, 32), tl.float32))


@tilec.jit
def unknown_attribute(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    d.prefetch([0, 0])


@tilec.jit
def unknown_atomic(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    d.atomic_xchg([0, 0], 1.0)


@tilec.jit
def float_and(x, M, N):
    d = tl.make_tensor_descriptor(x, [M, N], [N, 1], [16, 16])
    d.atomic_and([0, 0], 1.0)


# Descriptors made on the host (tilec.TensorDescriptor) and passed in.

@tilec.jit
def host_scale(a_desc, c_desc, factor, BM: tl.constexpr, BN: tl.constexpr):
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    c_desc.store([m, n], a_desc.load([m, n]) * factor)


@tilec.jit
def host_matmul(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    # A persistent loop over C's tiles, as Triton's descriptor tutorials.
    tiles_n = tl.cdiv(N, BN)
    for tile in range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, tl.num_programs(0)):
        m = (tile // tiles_n) * BM
        n = (tile % tiles_n) * BN
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, K, BK):
            acc = tl.dot(a_desc.load([m, k]), b_desc.load([k, n]), acc)
        c_desc.store([m, n], acc)


@tilec.jit
def host_copy_fp8(a_desc, c_desc, BM: tl.constexpr, BN: tl.constexpr):
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    c_desc.store([m, n], a_desc.load([m, n]))


@tilec.jit
def host_name_clash(x, x__size0, BM: tl.constexpr):
    x.store([0, 0], x.load([0, 0]) + x__size0)
