"""Helpers shared by the benchmark scripts: memory readings and a description of the machine."""
from __future__ import annotations

import os
import platform
import resource
from pathlib import Path


def memory() -> dict:
    """This process's resident memory in MiB: ``{"now", "peak", "source"}``.

    On Linux from /proc/self/status (VmRSS, VmHWM). VmHWM rather than ru_maxrss, because the
    ru_maxrss of a child started from a large parent reports the parent's peak: the kernel carries
    the high-water mark of the memory image that exec replaced into the child's ru_maxrss.
    Elsewhere ru_maxrss (KiB, bytes on macOS) serves for both.
    """
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines()
                      if line.startswith(("VmRSS:", "VmHWM:")))
        return {"now": int(fields["VmRSS"].split()[0]) / 1024,
                "peak": int(fields["VmHWM"].split()[0]) / 1024, "source": "VmHWM"}
    except (OSError, KeyError, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak /= 2**20 if platform.system() == "Darwin" else 1024
        return {"now": peak, "peak": peak, "source": "ru_maxrss"}


def machine() -> str:
    """Cores, CPU model and versions, for the head of a report."""
    import numpy as np
    model = ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in
                      Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")), "")
    except OSError:
        pass
    return (f"{os.cpu_count()} logical cores{', ' + model if model else ''}; "
            f"python {platform.python_version()}, numpy {np.__version__}")


class OtherLoad:
    """How busy the other processes kept the CPU while a block ran (Linux; None elsewhere):

        with OtherLoad() as load:
            ...
        load.cores   # average number of cores the rest of the machine used meanwhile

    Timings taken while other programs compete for the cores are not worth much, and a BLAS
    whose threads must share a core with another process can slow down many times over.
    """

    def __enter__(self):
        self.cores, self._start = None, self._sample()
        return self

    def __exit__(self, *exc):
        end = self._sample()
        if self._start and end:
            machine_busy, own, wall = (e - s for s, e in zip(self._start, end))
            self.cores = max(machine_busy - own, 0.0) / wall if wall > 0 else None

    @staticmethod
    def _sample():
        """(busy CPU-seconds of the machine, CPU-seconds of this process, wall seconds)."""
        try:
            ticks = [int(t) for t in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]]
        except (OSError, ValueError):
            return None
        user, nice, system, _idle, _iowait, irq, softirq = ticks
        times = os.times()
        return ((user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK"),
                times.user + times.system, times.elapsed)

    def warning(self) -> str:
        if self.cores is None:
            return ""
        note = f"other processes used {self.cores:.2f} of {os.cpu_count()} cores meanwhile"
        return note + (" -- the machine was busy: these timings are unreliable"
                       if self.cores > 0.25 else "")


def one_thread():
    """Limit the BLAS and PyTorch to one thread: call before NumPy is imported (the variables),
    and again after (threadpoolctl and torch.set_num_threads, when they are installed)."""
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    try:
        import threadpoolctl
        threadpoolctl.threadpool_limits(limits=1)
    except ImportError:
        pass


def median_times(steps: dict, repeats: int, warmup: int = 3, clock=None) -> dict:
    """{name: step function} -> {name: median seconds per call}: after `warmup` calls of each,
    `repeats` rounds in which the functions take turns, so that a slow phase of the machine hits
    them all alike. `clock`: time.perf_counter (wall, the default) or time.process_time."""
    import statistics
    import time
    clock = clock or time.perf_counter
    for step in steps.values():
        for _ in range(warmup):
            step()
    seconds = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            start = clock()
            step()
            seconds[name].append(clock() - start)
    return {name: statistics.median(s) for name, s in seconds.items()}


def import_torch(threads=1):
    """PyTorch limited to `threads`, or None when it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    return torch


def benchmark_arguments(doc: str, argv=None):
    """--repeats and --dtype, the options of the scripts that compare one step with PyTorch."""
    import argparse
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=21, help="timed steps of each (default 21)")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall: elapsed time (default); cpu: this process's CPU time, which "
                             "leaves out the time other processes held the core (one thread)")
    return parser.parse_args(argv)


def agree(name: str, theirs: dict, reference: dict, tolerance: float):
    """Stop the script unless every array of `theirs` is within `tolerance` of `reference`'s
    (relative to the largest magnitude of the reference array)."""
    import sys
    import numpy as np
    for key, value in theirs.items():
        scale = max(float(np.abs(reference[key]).max()), 1e-12)
        error = float(np.abs(np.asarray(value) - reference[key]).max()) / scale
        if error > tolerance:
            sys.exit(f"{name} disagrees with dp on {key}: relative error {error:.2g}")


def time_side_by_side(steps: dict, args, torch_target: float = 2.0) -> dict:
    """Time the step functions (`median_times`, args.repeats rounds on args.clock) and print one
    line per implementation: ms per step and the ratio of dp to it; then whether
    dp <= torch_target x torch, and how busy the machine was. Returns {name: seconds per step}."""
    import time
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    with OtherLoad() as load:
        per_step = median_times(steps, args.repeats, clock=clock)
    print(f"forward + backward, median per step ({args.clock} clock):")
    for name, seconds in per_step.items():
        print(f"  {name:<8} {seconds * 1e3:9.2f} ms/step   dp/{name} = {per_step['dp'] / seconds:.2f}")
    if "torch" in per_step:
        verdict = "met" if per_step["dp"] <= torch_target * per_step["torch"] else "MISSED"
        print(f"target dp <= {torch_target:g} x torch: {verdict}")
    if load.warning():
        print(load.warning())
    return per_step
