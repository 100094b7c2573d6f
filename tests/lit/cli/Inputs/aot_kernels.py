import tilec
import tilec.language as tl


# Parameter names C++ cannot take as they are.
@tilec.jit
def names(grid, stream, new, grid_, tilec_status, out_ptr):
    tl.store(out_ptr, grid + stream + new + grid_ + tilec_status)


@tilec.jit
def broken(out_ptr):
    tl.store(out_ptr, undefined_name)


@tilec.jit
def only_constexprs(N: tl.constexpr):
    tl.static_assert(N > 1)
