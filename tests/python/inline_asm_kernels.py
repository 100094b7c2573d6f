"""Kernels of the tl.inline_asm_elementwise tests (test_inline_asm.py, and
the PTX lit test tests/lit/ptx/inline_asm.test)."""
import tilec
import tilec.language as tl


@tilec.jit
def shift_left_3(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("shl.b32 $0, $1, 3;", "=r,r", [x], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=offs < n)


@tilec.jit
def widen_and_max(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    # Four u8 of `a` arrive packed in one register: c = a as int32 and
    # d = max(float(a), b), four elements per invocation.
    a = tl.load(a_ptr + tl.arange(0, BLOCK))
    b = tl.load(b_ptr + tl.arange(0, BLOCK))
    c, d = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 byte<4>;
            .reg .f32 wide<4>;
            mov.b32 {byte0, byte1, byte2, byte3}, $8;
            cvt.u32.u8 $0, byte0;
            cvt.u32.u8 $1, byte1;
            cvt.u32.u8 $2, byte2;
            cvt.u32.u8 $3, byte3;
            cvt.rn.f32.u32 wide0, $0;
            cvt.rn.f32.u32 wide1, $1;
            cvt.rn.f32.u32 wide2, $2;
            cvt.rn.f32.u32 wide3, $3;
            max.f32 $4, wide0, $9;
            max.f32 $5, wide1, $10;
            max.f32 $6, wide2, $11;
            max.f32 $7, wide3, $12;
        }
        """,
        constraints="=r,=r,=r,=r,=f,=f,=f,=f,r,f,f,f,f",
        args=[a, b], dtype=(tl.int32, tl.float32), is_pure=True, pack=4)
    tl.store(c_ptr + tl.arange(0, BLOCK), c)
    tl.store(d_ptr + tl.arange(0, BLOCK), d)


@tilec.jit
def double_halves(x_ptr, y_ptr, BLOCK: tl.constexpr):
    # Two fp16 per register, added to themselves with one f16x2 add.
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $1;", "=r,r", [x],
                                  dtype=tl.float16, is_pure=True, pack=2)
    tl.store(y_ptr + tl.arange(0, BLOCK), y)


@tilec.jit
def add_scalar(x_ptr, y_ptr, k, BLOCK: tl.constexpr):
    # A scalar broadcast against a tile; a side-effecting asm (not pure).
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("add.s32 $0, $1, $2;", "=r,r,r", [x, k],
                                  dtype=tl.int32, is_pure=False, pack=1)
    tl.store(y_ptr + tl.arange(0, BLOCK), y)
