"""dp.allocator: on glibc, freed arrays below 32 MiB stay in the process for the next step."""
import os
import subprocess
import sys

import pytest

import dp.allocator

PROBE = """
import numpy as np, dp
def rss_mib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
before = rss_mib()
array = np.ones(20 * 2**20 // 8)      # 20 MiB, touched
held = rss_mib()
del array
print(round(held - before), round(rss_mib() - before))
"""
glibc = pytest.mark.skipif(not dp.allocator._glibc(), reason="the thresholds exist only in glibc")


def grown_then_kept(dp_malloc):
    env = {**os.environ, "DP_MALLOC": dp_malloc}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                          check=True)
    return [int(n) for n in done.stdout.split()]


@glibc
def test_a_freed_array_is_kept_for_reuse():
    grown, kept = grown_then_kept("")
    assert grown >= 19 and kept >= 19, (grown, kept)


@glibc
def test_dp_malloc_default_leaves_the_allocator_alone():
    grown, kept = grown_then_kept("default")
    assert grown >= 19 and kept <= 2, (grown, kept)


def test_tune_reports_what_it_did():
    assert dp.allocator.tune({"DP_MALLOC": "default"}) is False
    assert dp.allocator.tune({}) is dp.allocator._glibc()
