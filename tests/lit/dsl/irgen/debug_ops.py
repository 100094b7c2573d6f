# tl.device_print, tl.device_assert, `assert` on runtime values and
# tl.debug_barrier. Prints and barriers are always compiled; assertions only
# with --debug (Triton's debug=True), where a failing comparison reports its
# two sides. The prefix is spelled as Triton spells it: a leading space when
# longer than two characters, ": " before the values.
# RUN: tilec compile %s -k kernel -s '*fp32,i32' -D BLOCK=64 --emit tile | FileCheck %s --check-prefix=PLAIN --implicit-check-not=tile.assert
# RUN: tilec compile %s -k kernel -s '*fp32,i32' -D BLOCK=64 --debug --emit tile | FileCheck %s --check-prefix=DEBUG
# RUN: tilec compile %s -k kernel -s '*fp32,i32' -D BLOCK=64 --debug --emit ptx -o %t
# RUN: FileCheck %s --check-prefix=PTX < %t/kernel.ptx
# RUN: %if ptxas %{ %ptxas -arch=sm_90a %t/kernel.ptx -o %t/kernel.cubin %}
import tilec.language as tl


def kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.device_print("x", x)
# PLAIN: tile.print %{{.*}} : tensor<64xf32> {argsSigned = array<i1: false>, hex = false, prefix = " x: "}
    tl.device_print("offs and x: ", offs, x, hex=True)
# PLAIN: tile.print %{{.*}}, %{{.*}} : tensor<64xi32>, tensor<64xf32> {argsSigned = array<i1: true, false>, hex = true, prefix = " offs and x: "}
    tl.device_print("pid=", pid)
# PLAIN: tile.print %{{.*}} : i32 {argsSigned = array<i1: true>, hex = false, prefix = " pid=: "}
    tl.device_print("hi")
# PLAIN: tile.print {argsSigned = array<i1>, hex = false, prefix = "hi"}
    tl.device_print("done")
# PLAIN: prefix = " done"
    tl.debug_barrier()
# PLAIN: tile.debug_barrier
    tl.device_assert(x < 100.0, "x is small", mask=offs < n)
# DEBUG: %[[LT:.*]] = arith.cmpf olt, %[[X:[0-9]+]], %[[HUNDRED:.*]] : tensor<64xf32>
# DEBUG: tile.assert %{{.*}}, %[[X]], %[[HUNDRED]] {details = ["left ", ", right ", ""], message = "x is small", valuesSigned = array<i1: false, false>}
    assert offs >= 0
# DEBUG: tile.assert %{{.*}}, %{{.*}}, %{{.*}} {details = ["left ", ", right ", ""], message = "assert offs >= 0", valuesSigned = array<i1: true, true>}
    tl.device_assert(offs != n)
# DEBUG: message = "assertion failed"
    both = (offs < n) & (offs >= 0)
    tl.device_assert(both, "not a comparison here")
# DEBUG: tile.assert %{{[0-9]+}} {details = [""], message = "not a comparison here", valuesSigned = array<i1>} : tensor<64xi1>
    tl.device_assert(True, "a compile-time truth costs nothing")
    tl.store(x_ptr + offs, x, mask=offs < n)

# The runtime calls ptxas resolves, and one failure line per assertion.
# PTX-DAG: .extern .func  (.param .b32 func_retval0) vprintf
# PTX-DAG: .extern .func __assertfail
# PTX-COUNT-4: call.uni __assertfail


# A long chain of conditional pointer updates: the pointer-origin analysis
# reaches its fixpoint at once (no search through both sides of each select).
# RUN: tilec compile %s -k long_chain -s '*fp32,i32' -D BLOCK=64 --debug --emit tilegpu | FileCheck %s --check-prefix=CHAIN
def long_chain(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr + offs
    for i in tl.static_range(300):
        p = tl.where(offs < n, p + 1, p)
    tl.store(p, 1.0)
# CHAIN: message = "out-of-bounds store to 'x_ptr'"


# A false condition under a runtime mask fails where the mask is set, in a
# debug compile.
# RUN: tilec compile %s -k masked_false -s '*fp32,i32' -D BLOCK=64 --debug --emit tile | FileCheck %s --check-prefix=MASKED
# RUN: tilec compile %s -k masked_false -s '*fp32,i32' -D BLOCK=64 --emit tile | FileCheck %s --check-prefix=MASKED-PLAIN
def masked_false(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.device_assert(False, "never where the mask is set", mask=offs >= n)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)
# MASKED: tile.assert %{{.*}} {details = [""], message = "never where the mask is set"
# MASKED-PLAIN-NOT: tile.assert
# MASKED-PLAIN: tile.store


# An assert's message is evaluated only when it is needed (as Python does):
# without debug, a runtime assertion's message is never read.
# RUN: tilec compile %s -k lazy_message -s '*fp32,i32' -D BLOCK=64 --emit tile | FileCheck %s --check-prefix=LAZY
def lazy_message(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    assert offs < n + 64, 1 // 0
    tl.store(x_ptr + offs, 1.0, mask=offs < n)
# LAZY: tile.store
