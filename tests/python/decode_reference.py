"""float64 references of kernels/decode.py, and bf16 helpers for running
them on the interpreter (numpy has no bfloat16: bf16 arrays are uint16
bits passed through tilec.reinterpret)."""
import numpy as np

import tilec
import tilec.language as tl


def bf16_bits(x):
    """float64 `x` rounded to bf16 (nearest even), as uint16 bits."""
    u = np.asarray(x, np.float64).astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    """The float64 values of bf16 bits."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32) \
        .astype(np.float64)


class Bf16:
    """A bf16 array for the interpreter: `.bits` (uint16, shared with the
    kernel), `.arg` (what a launch takes), `.value` (float64)."""

    def __init__(self, values=None, shape=None):
        self.bits = bf16_bits(values) if values is not None else np.zeros(shape, np.uint16)
        self.arg = tilec.reinterpret(self.bits, tl.bfloat16)

    @property
    def value(self):
        return bf16_value(self.bits)


#: bf16's rounding, the unit of the decode tests' tolerances: one rounding
#: of an output is at most 2^-9 relative, plus the fp32 sums' error.
TOL = 2.0 ** -8


def assert_close(got, want, tol):
    """|got - want| <= tol * (|want| + mean |want|) everywhere."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    bound = tol * (np.abs(want) + np.abs(want).mean())
    worst = float((np.abs(got - want) / bound).max())
    assert worst <= 1.0, f"error {worst:.2f}x the tolerance"


def random_bf16(rng, *shape, scale=1.0):
    return Bf16(rng.standard_normal(shape) * scale)


def rms_norm(x, gamma, eps):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * gamma


def rope(v, pos, theta):
    """Rotate-half RoPE of v [..., D] at integer positions pos [...]."""
    d = v.shape[-1]
    inv_freq = theta ** (-2.0 * np.arange(d // 2) / d)
    angle = np.asarray(pos, np.float64)[..., None] * inv_freq
    cos, sin = np.cos(angle), np.sin(angle)
    lo, hi = v[..., : d // 2], v[..., d // 2:]
    return np.concatenate([lo * cos - hi * sin, hi * cos + lo * sin], axis=-1)


def qkv_rope(cfg, x, gamma, w, bias, pos):
    """(q [B, Hq, D], k [B, Hkv, D], v [B, Hkv, D]) of the new tokens."""
    y = rms_norm(x, gamma, cfg.eps) @ w.T
    if bias is not None:
        y = y + bias
    d, hq, hkv = cfg.head_dim, cfg.q_heads, cfg.kv_heads
    q = y[:, : hq * d].reshape(-1, hq, d)
    k = y[:, hq * d:(hq + hkv) * d].reshape(-1, hkv, d)
    v = y[:, (hq + hkv) * d:].reshape(-1, hkv, d)
    return rope(q, pos[:, None], cfg.rope_theta), rope(k, pos[:, None], cfg.rope_theta), v


def attention(cfg, q, k_cache, v_cache, pos):
    """out [B, Hq * D] of q [B, Hq, D] over each row's pos + 1 cached tokens."""
    b_, hq, d = q.shape
    out = np.zeros((b_, hq, d))
    for b in range(b_):
        n = int(pos[b]) + 1
        for h in range(hq):
            kv = h // cfg.group
            s = k_cache[b, kv, :n] @ q[b, h] / np.sqrt(d)
            p = np.exp(s - s.max())
            out[b, h] = (p / p.sum()) @ v_cache[b, kv, :n]
    return out.reshape(b_, hq * d)


def swiglu(cfg, x, gamma, w_gate_up):
    xn = rms_norm(x, gamma, cfg.eps) if gamma is not None else x
    g = xn @ w_gate_up[: cfg.intermediate].T
    u = xn @ w_gate_up[cfg.intermediate:].T
    return g / (1.0 + np.exp(-g)) * u


def layer(cfg, w, x, pos, k_cache, v_cache):
    """The decoder layer on float64 values; k_cache and v_cache (float64,
    [B, Hkv, L, D]) get the new tokens written. Returns the output."""
    q, k, v = qkv_rope(cfg, x, w["input_norm"], w["qkv"], w.get("qkv_bias"), pos)
    for b in range(x.shape[0]):
        k_cache[b, :, pos[b]] = k[b]
        v_cache[b, :, pos[b]] = v[b]
    mid = attention(cfg, q, k_cache, v_cache, pos) @ w["o"].T + x
    return swiglu(cfg, mid, w["post_norm"], w["gate_up"]) @ w["down"].T + mid


def random_weights(rng, cfg):
    """bf16 weights scaled as a trained layer's are (unit-variance outputs)."""
    def linear(n_out, n_in):
        return random_bf16(rng, n_out, n_in, scale=1.0 / np.sqrt(n_in))
    w = {"input_norm": Bf16(1.0 + 0.1 * rng.standard_normal(cfg.hidden)),
         "qkv": linear(cfg.qkv_rows, cfg.hidden),
         "o": linear(cfg.hidden, cfg.q_size),
         "post_norm": Bf16(1.0 + 0.1 * rng.standard_normal(cfg.hidden)),
         "gate_up": linear(2 * cfg.intermediate, cfg.hidden),
         "down": linear(cfg.hidden, cfg.intermediate)}
    if cfg.qkv_bias:
        w["qkv_bias"] = random_bf16(rng, cfg.qkv_rows, scale=0.1)
    return w
