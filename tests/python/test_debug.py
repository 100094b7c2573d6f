"""Debugging on the CPU interpreter (issues 16 and 17): tl.device_print
prints Triton's lines, one per element; tl.device_assert and `assert` on
runtime values are checked only with debug=True (@jit, launch keyword,
compile(), TILEC_DEBUG=1) and then report the program, the failing
element, the message and the compared values. The GPU side, which must
print the very same lines, is test_gpu_debug.py."""
import numpy as np
import pytest

import tilec

import debug_kernels as k


def interpreted(fn, **options):
    """A fresh JITFunction of `fn`'s Python function on the interpreter."""
    return tilec.JITFunction(fn.fn, interpret=True, **options)


def lines(capfd):
    out = capfd.readouterr().out
    return [l for l in out.splitlines() if l.startswith("pid (")]


def test_print_one_line_per_element_in_triton_format(capfd):
    x = np.array([1.5, -2.0, 0.25, 7.0, 9.0], np.float32)
    interpreted(k.print_1d)[(2,)](x, 5, BLOCK=4)
    assert lines(capfd) == [
        "pid (0, 0, 0) idx (0) x: 1.500000",
        "pid (0, 0, 0) idx (1) x: -2.000000",
        "pid (0, 0, 0) idx (2) x: 0.250000",
        "pid (0, 0, 0) idx (3) x: 7.000000",
        "pid (1, 0, 0) idx (0) x: 9.000000",
        "pid (1, 0, 0) idx (1) x: 0.000000",  # masked off: other=0.0
        "pid (1, 0, 0) idx (2) x: 0.000000",
        "pid (1, 0, 0) idx (3) x: 0.000000",
    ]


def test_print_operands_hex_signed_scalars_and_padding(capfd):
    m, n = 2, 16
    x = (np.arange(m * n, dtype=np.float32) - 3).reshape(m, n)
    i = (np.arange(m * n) - 20).astype(np.int8).reshape(m, n)
    interpreted(k.print_mixed)[(1,)](x, i, M=m, N=n)
    got = lines(capfd)
    # Indices padded to their dimension's digits (16 columns: 2 digits).
    assert got[0] == "pid (0, 0, 0) idx (0,  0) x, i: (operand 0) -3.000000"
    assert got[m * n + 17] == "pid (0, 0, 0) idx (1,  1) x, i: (operand 1) -3"
    # fp16 in hex: its own 4 digits, as Triton shows it.
    half = [l for l in got if " half: " in l]
    assert half[3] == "pid (0, 0, 0) idx (0,  3) half: 0x0000"
    assert half[4] == "pid (0, 0, 0) idx (0,  4) half: 0x3c00"
    assert half[0] == "pid (0, 0, 0) idx (0,  0) half: 0xc200"
    sums = [l for l in got if " sum: " in l]
    assert sums == ["pid (0, 0, 0) idx (0) sum: %d" % i[0].astype(np.int32).sum(),
                    "pid (0, 0, 0) idx (1) sum: %d" % i[1].astype(np.int32).sum()]
    assert "pid (0, 0, 0) idx () scalar: -1" in got
    assert got[-1] == "pid (0, 0, 0) no values"
    assert len(got) == 3 * m * n + m + 2


def test_assert_is_off_without_debug():
    x = np.array([1.0, 5.0, 2.0], np.float32)
    interpreted(k.check_below)[(1,)](x, 3, 3.0, BLOCK=4)
    np.testing.assert_array_equal(x, [2.0, 6.0, 3.0])


def test_assert_reports_program_element_message_and_values():
    x = np.array([1.0, 2.0, 2.5, 0.5, 0.0, 9.0], np.float32)
    with pytest.raises(tilec.Error) as e:
        interpreted(k.check_below, debug=True)[(2,)](x, 6, 3.0, BLOCK=4)
    message = str(e.value)
    assert "debug_kernels.py:" in message
    assert ("error: assertion failed, idx (1): x must stay below the limit: "
            "left 9.000000, right 3.000000 in program (1, 0, 0) of kernel "
            "'check_below'") in message
    # The programs before the failing one ran.
    np.testing.assert_array_equal(x[:4], [2.0, 3.0, 3.5, 1.5])


def test_masked_off_elements_pass():
    x = np.array([1.0, 2.0, 50.0], np.float32)  # 50 lies past n
    interpreted(k.check_below, debug=True)[(1,)](x, 2, 3.0, BLOCK=4)
    np.testing.assert_array_equal(x, [2.0, 3.0, 50.0])


def test_assert_statement_and_its_message():
    x = np.array([4, 0, 5], np.int32)
    with pytest.raises(tilec.Error, match=r"assertion failed, idx \(1\): no zeros: "
                                          r"left 0, right 0 in program \(0, 0, 0\)"):
        interpreted(k.check_statement, debug=True)[(1,)](x, 3, BLOCK=4)


def test_launch_keyword_overrides_the_jit_setting():
    x = np.array([7.0], np.float32)
    fn = interpreted(k.check_below)
    with pytest.raises(tilec.Error, match="x must stay below the limit"):
        fn[(1,)](x, 1, 3.0, BLOCK=4, debug=True)
    fn_debug = interpreted(k.check_below, debug=True)
    fn_debug[(1,)](x, 1, 3.0, BLOCK=4, debug=False)
    assert x[0] == 8.0


def test_tilec_debug_environment(monkeypatch):
    monkeypatch.setenv("TILEC_DEBUG", "1")
    assert tilec.JITFunction(k.check_below.fn).debug
    monkeypatch.setenv("TILEC_DEBUG", "0")
    assert not tilec.JITFunction(k.check_below.fn).debug


def test_compile_with_debug_has_the_assertion():
    fn = tilec.JITFunction(k.check_below.fn)
    signature = "*fp32:16,i32,fp32"
    plain_kernel = fn.compile(signature, BLOCK=128, target="sm_90a")
    checked_kernel = fn.compile(signature, BLOCK=128, target="sm_90a", debug=True)
    assert not plain_kernel.debug and checked_kernel.metadata["debug"]
    plain, checked = plain_kernel.asm["ptx"], checked_kernel.asm["ptx"]
    # One i64 extent per pointer argument after the kernel's own: 3 + 1.
    assert ".param .u64 check_below_param_3" in checked
    assert "check_below_param_3" not in plain
    assert "__assertfail" not in plain and "vprintf" not in plain
    assert "__assertfail" in checked and "vprintf" in checked
    # Its own cache entry: the plain compile is still there, unchanged.
    assert fn.compile(signature, BLOCK=128, target="sm_90a").asm["ptx"] == plain
    # Prints are compiled either way.
    assert "vprintf" in tilec.JITFunction(k.print_1d.fn).compile(
        "*fp32,i32", BLOCK=64, target="sm_90a").asm["ptx"]
