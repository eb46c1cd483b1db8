"""Median time per step of Bender's 20-link ball-joint chain (h = 10 ms, eps 1e-6) for both joint solvers.

    python benchmarks/chain20_step_time.py [--steps N]

Prints the median, 10th and 90th percentile of the step time after a warm-up, the first step's time
(compilation, when the Numba cache is cold) and re-checks the joints after timing. The thesis took
23.20 ms (iterative) and 2.78 ms (LGS) per step on a 3.4 GHz Pentium 4 (Table 3.1).
"""
import argparse
import time

import numpy as np

import impulsim as ims
from impulsim.experiments.bender import chain

EPS = 1e-6
THESIS_MS = {"iterative": 23.20, "lgs": 2.78}


def measure(solver: str, steps: int) -> dict:
    model, state = chain(20, seed=0)
    sim = ims.Simulation(model, state, method="impulse", h=0.01, solver=solver, eps_d=EPS, eps_v=EPS)
    t0 = time.perf_counter()
    sim.step()
    first = time.perf_counter() - t0
    for _ in range(50):
        sim.step()
    times = np.empty(steps)
    for i in range(steps):
        t0 = time.perf_counter()
        sim.step()
        times[i] = time.perf_counter() - t0
    worst = ims.diagnostics.constraint_errors(model, sim.state).max()
    return dict(solver=solver, median_ms=1e3 * np.median(times), p10_ms=1e3 * np.percentile(times, 10),
                p90_ms=1e3 * np.percentile(times, 90), first_step_ms=1e3 * first, max_joint_error=worst,
                physics_ok=bool(worst <= EPS), thesis_ms=THESIS_MS[solver])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=500)
    args = ap.parse_args()
    print("| solver | median ms/step | p10 | p90 | first step ms | max joint error | physics ok | thesis ms |")
    print("|---|---|---|---|---|---|---|---|")
    for solver in ("iterative", "lgs"):
        r = measure(solver, args.steps)
        print(f"| {r['solver']} | {r['median_ms']:.3f} | {r['p10_ms']:.3f} | {r['p90_ms']:.3f} | "
              f"{r['first_step_ms']:.0f} | {r['max_joint_error']:.2e} | {r['physics_ok']} | {r['thesis_ms']} |")


if __name__ == "__main__":
    main()
