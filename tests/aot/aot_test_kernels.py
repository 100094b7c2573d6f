# Kernels `tilec aot` compiles for tests/aot (AotTest.cpp): one that writes
# back every scalar it was given, so that each C++ parameter type is seen
# to reach the kernel intact, and a scale that uses no facts at all.
import tilec
import tilec.language as tl


@tilec.jit
def echo(out_ptr, flag, small, half_word, wide, h, bf, f, d, one, word):
    tl.store(out_ptr + 0, flag.to(tl.float64))
    tl.store(out_ptr + 1, small.to(tl.float64))
    tl.store(out_ptr + 2, half_word.to(tl.float64))
    tl.store(out_ptr + 3, wide.to(tl.float64))
    tl.store(out_ptr + 4, h.to(tl.float64))
    tl.store(out_ptr + 5, bf.to(tl.float64))
    tl.store(out_ptr + 6, f.to(tl.float64))
    tl.store(out_ptr + 7, d)
    tl.store(out_ptr + 8, one.to(tl.float64))
    tl.store(out_ptr + 9, word.to(tl.float64))


@tilec.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * factor, mask=mask)


# Names C++ cannot take as they are: renamed with a trailing underscore.
@tilec.jit
def names(grid, stream, linux, int32_t, std, tilec, out_ptr):
    tl.store(out_ptr, grid + stream + linux + int32_t + std + tilec)


# No runtime parameters at all: an empty signature.
@tilec.jit
def only_constexprs(N: tl.constexpr):
    tl.static_assert(N > 0)
