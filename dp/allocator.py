"""The C allocator's thresholds, set once for training loops (Linux with glibc only).

A training step allocates and frees arrays of the same few sizes at every step: activations,
gradients and new parameter values, megabytes each. glibc's malloc serves such arrays with fresh
pages from the system (mmap) until its adaptive threshold has grown past them, and it returns
freed memory at the top of its heap to the system as soon as more than twice that threshold is
free; every time it does, the next step faults the same pages in again, one by one. On the MNIST
MLP in float64 (benchmarks/mnist_mlp.py) that made `Model.get_grad` up to 1.7 times slower,
depending on the order in which a loop happened to free its arrays.

So on import dp asks malloc to serve arrays below 32 MiB from its heap and to keep up to 64 MiB
of freed memory for reuse. Larger arrays still come from and go back to the system at once.
NumPy code in the same process benefits alike. Set the environment variable ``DP_MALLOC=default``
before importing dp to leave the allocator alone.
"""
from __future__ import annotations

import ctypes
import os

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3      # mallopt's parameters, from glibc's malloc.h
MMAP_THRESHOLD = 32 * 2**20                       # glibc's own upper limit for this setting
TRIM_THRESHOLD = 64 * 2**20


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):   # not a glibc system (macOS, Windows, musl)
        return False


def tune(environ=os.environ) -> bool:
    """Set the thresholds; True if they were set (glibc, and DP_MALLOC is not 'default')."""
    if environ.get("DP_MALLOC", "").lower() == "default" or not _glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD,
                                                                              TRIM_THRESHOLD))
