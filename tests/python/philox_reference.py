"""Philox 4x32 / 4x64 and the uniform and normal floats Triton derives from
it, in numpy: what tl.randint, tl.rand and tl.randn must produce."""
import numpy as np

MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1
CONSTANTS = {32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
             64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B,
                  0xD2E7470EE14C6C93, 0xCA5A826395121157)}


def philox(seed, offsets, rounds=10, bits=32):
    """The four counter words after `rounds` rounds, for counter
    (offset, 0, 0, 0) and the key from `seed`, as Python ints per element."""
    key_a, key_b, round_a, round_b = CONSTANTS[bits]
    mask = MASK32 if bits == 32 else MASK64
    seed &= MASK64
    out = []
    for offset in offsets:
        c = [int(offset) & mask, 0, 0, 0]
        k0, k1 = (seed & MASK32, seed >> 32) if bits == 32 else (seed, 0)
        for _ in range(rounds):
            pb, pa = round_b * c[2], round_a * c[0]
            c = [(pb >> bits) ^ c[1] ^ k0, pb & mask, (pa >> bits) ^ c[3] ^ k1, pa & mask]
            k0, k1 = (k0 + key_a) & mask, (k1 + key_b) & mask
        out.append(c)
    return np.array(out, dtype=np.uint32 if bits == 32 else np.uint64).T


def uniform(words):
    """Words → float32 in [0, 1): signed, negatives folded, scaled."""
    wide = words.dtype == np.uint64
    x = words.view(np.int64 if wide else np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    scale = np.float32(1.0842020432385337e-19 if wide else 4.6566127342e-10)
    return x.astype(np.float32) * scale


def normal(u1, u2):
    """Box-Muller's first normal, in float64 (the GPU's is within ulps)."""
    u1 = np.maximum(np.float32(1e-7), u1).astype(np.float64)
    theta = (np.float32(6.283185307179586) * u2).astype(np.float64)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(theta)
