"""pytest set-up for the Python package's tests.

Run from the repository root with the built package on the path:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python -m "not gpu"
Tests marked gpu launch kernels; they skip themselves (with the reason) where
no CUDA driver, or no CUDA-enabled torch, is present.
"""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = os.path.join(ROOT, "kernels")
if KERNELS not in sys.path:
    sys.path.insert(0, KERNELS)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: launches kernels on a GPU (needs a CUDA driver and torch with CUDA)")


def _gpu_skip_reason():
    import tilec
    ok, why = tilec.cuda_available()
    if not ok:
        return f"no GPU: {why}"
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "torch does not see a CUDA device"
    return None


@pytest.fixture(scope="session")
def torch_cuda():
    """torch, when a GPU is usable from tilec and torch; otherwise skip."""
    reason = _gpu_skip_reason()
    if reason:
        pytest.skip(reason)
    import torch
    return torch
