"""`while` loops on the interpreter (issue 17): a scalar loop with a
runtime trip count, a tensor carried under a reduced condition, and a spin
lock built from tl.atomic_cas. test_gpu_while.py runs them on the GPU."""
import numpy as np

import tilec

import while_kernels as k


def collatz_steps(x):
    steps = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps += 1
    return steps


def test_collatz():
    x = np.array([1, 2, 3, 6, 7, 27, 97], np.int32)
    steps = np.full(len(x), -1, np.int32)
    tilec.JITFunction(k.collatz_kernel.fn, interpret=True)[(len(x),)](x, steps)
    np.testing.assert_array_equal(steps, [collatz_steps(int(v)) for v in x])


def halve_expected(x):
    v, rounds = x.copy(), 0
    while v.max() > 1.0:
        v = np.where(v > 1.0, v * np.float32(0.5), v)
        rounds += 1
    return v + np.float32(rounds)


def test_tensor_carried_under_a_reduced_condition():
    x = np.array([0.5, 3.0, 17.0, 100.0, 0.0, 1.0, 2.0, 64.5], np.float32)
    out = np.zeros_like(x)
    tilec.JITFunction(k.halve_kernel.fn, interpret=True)[(1,)](x, out, BLOCK=8)
    np.testing.assert_array_equal(out, halve_expected(x))


def test_spin_lock():
    programs = 40
    lock, count = np.zeros(1, np.int32), np.zeros(1, np.int32)
    order = np.full(programs, -1, np.int32)
    tilec.JITFunction(k.locked_increment_kernel.fn, interpret=True)[(programs,)](
        lock, count, order)
    assert count[0] == programs and lock[0] == 0
    np.testing.assert_array_equal(np.sort(order), np.arange(programs))

