"""The contact comparison for Moreau's method: the incline (analytic stopping distance) and the bouncing
ball (analytic apex heights), each with its error and time per step.

Run: ``python -m impulsim.methods.moreau.benchmark`` (options: ``--h 2e-3 1e-3 5e-4``, ``--solver jacobi``).
Every timed run is also the accuracy run, so a fast wrong result cannot pass unnoticed.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from impulsim.methods.moreau import MoreauMethod
from impulsim.methods.moreau.scenes import (apex_heights, bouncing_ball, incline_box, measured_apexes,
                                            stopping_distance)

# percussion tolerance for the incline: the thesis's 1e-4 N s lets a 1 kg box creep at 1e-4 m/s
INCLINE_E_A = 1e-9


def _timed_steps(method, state, h, n, record):
    """Step n times; per-step wall times [s] after the first (which includes compilation) and the first."""
    times = np.empty(n)
    sweeps = np.empty(n)
    for i in range(n):
        t0 = time.perf_counter()
        info = method.step(state, h)
        times[i] = time.perf_counter() - t0
        sweeps[i] = info.iters_vel
        record(state)
    return times, sweeps


def incline_row(h, solver="gauss_seidel"):
    """Stopping-distance error [m] on the 15° incline (μ = 0.5, v0 = 2 m/s) and timings."""
    model, state, downhill = incline_box()
    method = MoreauMethod(model, e_a=INCLINE_E_A, solver=solver)
    start = state.body_pos[2].copy()
    times, sweeps = _timed_steps(method, state, h, int(round(1.2 / h)), lambda s: None)
    distance = float(np.dot(state.body_pos[2] - start, downhill))
    return dict(scene="incline", h=h, error=distance - stopping_distance(),
                speed_end=float(np.linalg.norm(state.body_vel[2])), first=times[0],
                median=float(np.median(times[1:])), sweeps=float(np.median(sweeps)))


def ball_row(h, solver="gauss_seidel", restitution=0.5):
    """Largest error [m] of the first three apex heights of a ball dropped from 1 m (e = 0.5) and timings."""
    model, state = bouncing_ball(restitution=restitution)
    method = MoreauMethod(model, solver=solver)
    heights = []
    times, sweeps = _timed_steps(method, state, h, int(round(1.6 / h)),
                                 lambda s: heights.append(s.body_pos[2, 2] - 0.1))
    apexes = measured_apexes(heights)[:3]
    expected = apex_heights(restitution=restitution, n=3)
    error = float(np.abs(apexes - expected[:len(apexes)]).max()) if len(apexes) == 3 else np.nan
    return dict(scene="ball", h=h, error=error, speed_end=np.nan, first=times[0],
                median=float(np.median(times[1:])), sweeps=float(np.median(sweeps)))


def contact_comparison(steps=(2e-3, 1e-3, 5e-4), solver="gauss_seidel") -> list[dict]:
    """Rows (scene, h, error, first-step and median step time, median sweeps) for both scenes."""
    rows = []
    for h in steps:
        rows.append(incline_row(h, solver))
        rows.append(ball_row(h, solver))
    return rows


def print_rows(rows) -> None:
    print(f"{'scene':8} {'h [s]':>8} {'error [m]':>11} {'first [s]':>10} {'median [us]':>12} {'sweeps':>7}")
    for r in rows:
        print(f"{r['scene']:8} {r['h']:8.1e} {r['error']:11.3e} {r['first']:10.3f} {1e6 * r['median']:12.1f} "
              f"{r['sweeps']:7.0f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--h", type=float, nargs="+", default=[2e-3, 1e-3, 5e-4])
    parser.add_argument("--solver", default="gauss_seidel", choices=["gauss_seidel", "jacobi"])
    args = parser.parse_args(argv)
    print_rows(contact_comparison(tuple(args.h), args.solver))


if __name__ == "__main__":
    main()
