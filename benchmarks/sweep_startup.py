"""Where a local sweep's start-up goes: cluster start, the worker's imports, its first case.

    python benchmarks/sweep_startup.py [--method spawn|fork|forkserver|all] [--repeat 3]

For each way of starting worker processes (Dask's ``distributed.worker.multiprocessing-method``), with
the kernels already in Numba's on-disk cache and already loaded in this process (as ``run_sweep``'s
warm-up leaves them), prints medians over ``--repeat`` fresh clusters of one worker:

* cluster: ``LocalCluster(n_workers=1)`` and its ``Client`` until the worker is registered [s] (each
  cluster's figure is printed too: with ``forkserver`` the first one also starts the fork server, which
  imports impulsim once for the whole process, as ``run_sweep`` has it do);
* imports: the worker's import of ``impulsim.sweep.runner`` (0 when it came with a fork) [s];
* first case, second case: ``run_time_s`` of one double-pendulum case of 0.2 s run twice on the worker;
  their difference is what the first case pays once per worker (loading kernels, first calls) [s];
* round trip: the wall time of submitting the two cases and receiving their rows, minus their run times,
  over two — what scheduling and moving one row costs [ms].

Wall-clock figures: the load average is printed beside them.
"""
from __future__ import annotations

import argparse
import logging
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "examples" / "double_pendulum.yaml"


def _import_time() -> float:
    """Seconds the worker spends importing the sweep's runner (0 if it is already imported)."""
    import sys
    import time as _t
    if "impulsim.sweep.runner" in sys.modules:
        return 0.0
    start = _t.perf_counter()
    import impulsim.sweep.runner  # noqa: F401
    return _t.perf_counter() - start


def one_cluster(method: str) -> dict:
    """The start-up figures of one fresh cluster of one worker started with ``method``."""
    import dask
    import yaml
    from distributed import Client, LocalCluster
    from impulsim.sweep.runner import _preload_forkserver, run_case
    base = yaml.safe_load(SCENE.read_text())
    run = {"method": None, "options": {}, "duration": 0.2, "h": None, "metrics": ["energy.change"]}
    with dask.config.set({"distributed.worker.multiprocessing-method": method}):
        _preload_forkserver(method)          # as run_sweep does: the fork server imports impulsim
        start = time.perf_counter()
        cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR)
        client = Client(cluster)
        client.wait_for_workers(1)
        t_cluster = time.perf_counter() - start
        try:
            t_import = client.submit(_import_time, pure=False).result()
            start = time.perf_counter()
            rows = [client.submit(run_case, str(SCENE), base, i, {}, run, {}, pure=False).result()
                    for i in range(2)]
            round_trip = (time.perf_counter() - start - sum(r["run_time_s"] for r in rows)) / 2
        finally:
            client.close()
            cluster.close()
    return {"cluster": t_cluster, "imports": t_import, "first case": rows[0]["run_time_s"],
            "second case": rows[1]["run_time_s"], "round trip [ms]": 1e3 * round_trip}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--method", default="all", choices=("spawn", "fork", "forkserver", "all"))
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    import impulsim.sweep as sweep
    import tempfile
    with tempfile.TemporaryDirectory() as out:   # kernels into the cache and into this process
        sweep.run_sweep(SCENE, {}, duration=0.01, out=out, workers=0)
    methods = ("spawn", "forkserver", "fork") if args.method == "all" else (args.method,)
    for method in methods:
        runs = [one_cluster(method) for _ in range(args.repeat)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        clusters = ", ".join(f"{r['cluster']:.2f}" for r in runs)   # the first one starts a fork server
        print(f"{method:10s} " + ", ".join(f"{k} {v:.3f}" for k, v in med.items())
              + f"  (load {os.getloadavg()[0]:.1f}; clusters {clusters} s)", flush=True)


if __name__ == "__main__":
    main()
