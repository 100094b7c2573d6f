"""The part of Triton's runtime API that kernels' host code reaches for:
`tilec.runtime.driver.active` answers what `triton.runtime.driver.active`
does on an NVIDIA GPU (the current device and stream, its properties, its
target), so that host code such as Triton's fused-softmax tutorial, which
sizes its grid from the GPU's registers and shared memory, runs unchanged.

Devices and streams are torch's (tilec launches on torch's current stream);
the properties and the target come from the CUDA driver through tilec.
"""
from collections import namedtuple

from . import _tilec

__all__ = ["driver", "GPUTarget"]

#: What `get_current_target()` returns, as Triton's: backend "cuda", arch the
#: compute capability as an int (90 on an H100 or H200), warp_size 32.
GPUTarget = namedtuple("GPUTarget", ["backend", "arch", "warp_size"])


def _torch():
    try:
        import torch
    except ImportError as e:
        raise RuntimeError("tilec.runtime.driver: this call needs torch with CUDA") from e
    return torch


class _Utils:
    """`driver.active.utils`."""

    @staticmethod
    def get_device_properties(device=None):
        """The GPU's properties under Triton's keys: max_shared_mem (bytes a
        block may opt in to), max_num_regs (registers per block),
        multiprocessor_count, warpSize, sm_clock_rate and mem_clock_rate
        (kHz), mem_bus_width (bits); tilec adds name, compute_capability,
        max_threads_per_sm and l2_cache_size. `device`: an ordinal, a
        torch.device, or None for the current GPU."""
        if device is None:
            ordinal = -1
        elif isinstance(device, int):
            ordinal = device
        elif isinstance(device, str):  # "cuda", "cuda:1"
            kind, _, index = device.partition(":")
            if kind != "cuda" or (index and not index.isdigit()):
                raise ValueError(f"get_device_properties: not a CUDA device: {device!r}")
            ordinal = int(index) if index else -1
        else:  # a torch.device
            ordinal = device.index if device.index is not None else -1
        return _tilec.device_properties(ordinal)


class CudaDriver:
    """The active driver: an NVIDIA GPU through the CUDA driver."""

    utils = _Utils()

    @staticmethod
    def is_active():
        return _tilec.cuda_available()[0]

    def get_current_device(self):
        """The ordinal of torch's current CUDA device."""
        return _torch().cuda.current_device()

    def set_current_device(self, device):
        _torch().cuda.set_device(device)

    def get_current_stream(self, device=None):
        """torch's current stream on `device` (None: the current one), as a
        CUstream handle (an int)."""
        torch = _torch()
        if device is None:
            device = torch.cuda.current_device()
        return torch.cuda.current_stream(device).cuda_stream

    def get_active_torch_device(self):
        """torch.device("cuda", current ordinal): where tensors for tilec's
        launches belong."""
        torch = _torch()
        return torch.device("cuda", torch.cuda.current_device())

    def get_device_interface(self):
        """torch.cuda (what Triton returns for its CUDA driver)."""
        return _torch().cuda

    def get_current_target(self):
        """GPUTarget("cuda", <compute capability>, 32) of the current GPU;
        without one, of tilec's default target (sm_90a → 90)."""
        target = _tilec.default_target()  # "sm_90a", "sm_80", ...
        arch = int("".join(ch for ch in target[3:] if ch.isdigit()))
        return GPUTarget("cuda", arch, 32)

    def get_benchmarker(self):
        """tilec.testing.do_bench."""
        from .testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        """A 256 MB buffer whose writing empties the L2 (as do_bench does)."""
        torch = _torch()
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")

    def clear_cache(self, cache):
        cache.zero_()

    def __repr__(self):
        return "<tilec.runtime CudaDriver>"


class _DriverConfig:
    """`driver`: `driver.active` is the CUDA driver (tilec has no other)."""

    def __init__(self):
        self.active = CudaDriver()
        self.default = self.active

    def set_active(self, driver):
        if not isinstance(driver, CudaDriver):
            raise ValueError("tilec drives NVIDIA GPUs only: set_active takes a "
                             "tilec.runtime.CudaDriver")
        self.active = driver

    def reset_active(self):
        self.active = self.default


driver = _DriverConfig()
