"""Speed-up of a sweep on 2 Dask workers over 1, the per-case overhead and the compile cost per worker.

    python benchmarks/sweep_speedup.py [--cases 32] [--duration 10] [--repeat 3] [--start-method fork]

The sweep: the double pendulum with the lower link's mass over ``--cases`` values, each case simulated for
``--duration`` s. Each run writes to a fresh directory, so no case is skipped. Printed per run: the wall
time of ``run_sweep`` (cluster start included, as a user waits for it), the sum of the cases' own times
(``run_time_s`` of each row: building the scene and stepping), and from these

* speed-up = wall(1 worker) / wall(2 workers), medians over ``--repeat`` pairs (the pairs alternate
  which runs first, so that a drifting load does not favour one side);
* start-up: the wall time of a sweep of one case on 1 worker minus that case's run_time_s, median of
  ``--repeat`` (the warm-up step, cluster start and close; with ``spawn`` also the worker's imports and its
  loading of the compiled kernels from Numba's cache);
* per-case overhead = (wall(1 worker) − start-up − Σ run_time_s) / cases: scheduling, moving the row,
  writing its Parquet file.

Dask itself is imported before any timing (once per process, about 1 s; a user's first sweep pays it).

Wall-clock figures: run on a machine with both cores free (``uptime`` is printed beside them).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import impulsim.sweep as sweep

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "examples" / "double_pendulum.yaml"


def one_sweep(cases: int, duration: float, workers: int, start_method=None) -> tuple[float, float]:
    """(wall time of run_sweep [s], sum of the cases' run_time_s [s]) in a fresh output directory."""
    out = Path(tempfile.mkdtemp(prefix="sweep-speedup-"))
    try:
        start = time.perf_counter()
        table = sweep.run_sweep(SCENE, {"bodies.lower.mass": f"0.5:2.0:{cases}"}, duration=duration,
                                metrics=["energy.change"], out=out, workers=workers,
                                start_method=start_method)
        wall = time.perf_counter() - start
        rows = table.to_pylist()
        assert len(rows) == cases and all(r["status"] == "ok" for r in rows), rows[:2]
        return wall, sum(r["run_time_s"] for r in rows)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=32)
    p.add_argument("--duration", type=float, default=10.0, help="simulated seconds per case")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--start-method", choices=("fork", "forkserver", "spawn"), default=None,
                   help="how the local cluster starts its workers (default: run_sweep's)")
    args = p.parse_args()
    import distributed  # noqa: F401  (imported once, outside the timings)
    print(f"load before: {os.getloadavg()[0]:.2f}")
    one_sweep(1, 0.01, 0)                                    # kernels into Numba's cache, once
    startups = []
    for _ in range(args.repeat):
        wall, case = one_sweep(1, args.duration, 1, args.start_method)
        startups.append(wall - case)
    startup = statistics.median(startups)
    walls = {1: [], 2: []}
    case_sums = []
    for k in range(args.repeat):
        for workers in ((1, 2) if k % 2 == 0 else (2, 1)):
            wall, cases = one_sweep(args.cases, args.duration, workers, args.start_method)
            walls[workers].append(wall)
            if workers == 1:
                case_sums.append(cases)
            print(f"  {workers} worker(s): {wall:.2f} s wall, cases {cases:.2f} s, load {os.getloadavg()[0]:.2f}")
    w1, w2 = statistics.median(walls[1]), statistics.median(walls[2])
    outside = w1 - statistics.median(case_sums)
    overhead = (outside - startup) / args.cases
    print(f"speed-up 2 workers over 1: {w1 / w2:.2f} ({w1:.2f} s / {w2:.2f} s, {args.cases} cases of "
          f"{args.duration:g} s); without the start-up: {(w1 - startup) / (w2 - startup):.2f}")
    print(f"walls [s]: 1 worker {', '.join(f'{w:.2f}' for w in walls[1])}; "
          f"2 workers {', '.join(f'{w:.2f}' for w in walls[2])}")
    print(f"start-up: {startup:.2f} s (median of {', '.join(f'{s:.2f}' for s in startups)})")
    print(f"1 worker: {outside:.2f} s outside the cases in all; per case beyond the start-up: "
          + (f"{1e3 * overhead:.1f} ms" if overhead > 0 else "below the noise of the start-up figure"))
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
