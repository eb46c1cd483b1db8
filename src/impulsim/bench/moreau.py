"""The contact comparison for Moreau's method: the incline (analytic stopping distance) and the bouncing
ball (analytic apex heights), each with its error and time per step.

Run: ``python -m impulsim.bench.moreau`` (options: ``--h 2e-3 1e-3 5e-4``, ``--solver jacobi``).
Every timed run is also the accuracy run, so a fast wrong result cannot pass unnoticed. The measurements
are those of :mod:`impulsim.bench.method_contacts`, where every contact-capable method runs the same scenes
(``impulsim bench methods``).
"""
from __future__ import annotations

import argparse

from impulsim.bench import method_contacts
from impulsim.methods.moreau import MoreauMethod

# percussion tolerance for the incline: the thesis's 1e-4 N s lets a 1 kg box creep at 1e-4 m/s
INCLINE_E_A = method_contacts.MOREAU_E_A


def incline_row(h, solver="gauss_seidel"):
    """Stopping-distance error [m] on the 15° incline (μ = 0.5, v0 = 2 m/s) and timings."""
    r = method_contacts.incline(lambda m: MoreauMethod(m, e_a=INCLINE_E_A, solver=solver), h)
    return dict(scene="incline", h=h, **r)


def ball_row(h, solver="gauss_seidel", restitution=0.5):
    """Largest error [m] of the first three apex heights of a ball dropped from 1 m (e = 0.5) and timings."""
    r = method_contacts.ball(lambda m: MoreauMethod(m, solver=solver), h, restitution=restitution)
    return dict(scene="ball", h=h, error=r["error"], speed_end=float("nan"), first=r["first"],
                median=r["median"], sweeps=r["sweeps"])


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
