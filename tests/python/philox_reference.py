"""Philox 4x32 and the uniform and normal floats Triton derives from it, in
numpy: what tl.randint, tl.rand and tl.randn must produce."""
import numpy as np

MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85
ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57


def philox(seed, offsets, rounds=10):
    """The four uint32 counter words after `rounds` rounds, for the counter
    (offset's low word, its high word, 0, 0) and the key (seed's low word,
    its high word)."""
    seed &= MASK64
    out = []
    for offset in offsets:
        offset = int(offset) & MASK64
        c = [offset & MASK32, offset >> 32, 0, 0]
        k0, k1 = seed & MASK32, seed >> 32
        for _ in range(rounds):
            pb, pa = ROUND_B * c[2], ROUND_A * c[0]
            c = [(pb >> 32) ^ c[1] ^ k0, pb & MASK32, (pa >> 32) ^ c[3] ^ k1, pa & MASK32]
            k0, k1 = (k0 + KEY_A) & MASK32, (k1 + KEY_B) & MASK32
        out.append(c)
    return np.array(out, dtype=np.uint32).T


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
