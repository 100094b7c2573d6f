"""Kernels of test_while.py (the interpreter) and test_gpu_while.py."""
import tilec
import tilec.language as tl


@tilec.jit
def collatz_kernel(x_ptr, steps_ptr):
    # Steps of the Collatz sequence from one scalar per program.
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid)
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    tl.store(steps_ptr + pid, steps)


@tilec.jit
def halve_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # A tensor carried around a loop whose condition reduces it.
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    rounds = 0
    while tl.max(v) > 1.0:
        v = tl.where(v > 1.0, v * 0.5, v)
        rounds += 1
    tl.store(out_ptr + offs, v + rounds)


@tilec.jit
def locked_increment_kernel(lock_ptr, count_ptr, order_ptr):
    # Every program takes a spin lock, reads and writes the counter, and
    # releases the lock: the count is exact only if the lock excludes.
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    c = tl.load(count_ptr, volatile=True)
    tl.store(order_ptr + tl.program_id(0), c)
    tl.store(count_ptr, c + 1)
    tl.atomic_xchg(lock_ptr, 0)
