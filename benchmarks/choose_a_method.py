"""The figures of docs/choose_a_method.md: accuracy and cost of every method that runs scene files, on
two small scenes, in one short run.

    python benchmarks/choose_a_method.py            # prints two Markdown tables

1. The double pendulum (two 1 m rods released horizontally), 1 s: the largest error of the two absolute
   angles against the reduced-coordinate solution (SciPy DOP853, tolerances 1e-12), at h = 1 ms and 4 ms,
   and the median wall time per step; the joint tolerances are tight (1e-10) so that the error is the
   method's time discretization.
2. Bender's chain of 20 boxes on ball joints (examples/ball_chain.yaml), 2 s at h = 10 ms with the scene's
   tolerances: median time per step, the largest joint error over the run and the energy drift relative
   to the kinetic energy after the first step (the start velocities do not fit the joints; the first
   step's correction removes that part, the same for every method).

Times are medians over the steps after the first (the first includes compiling); they depend on the
machine and its load.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import impulsim as ims  # noqa: E402
from impulsim.bench import scenes  # noqa: E402
from impulsim.bench.convergence import THETA0, reference_angles  # noqa: E402
from impulsim.dynamics import diagnostics  # noqa: E402
from impulsim.io import load_scene  # noqa: E402
from impulsim.methods.catalog import scene_methods  # noqa: E402

TIGHT = 1e-10
STEPS_H = (1e-3, 4e-3)
VARIANTS = {"impulse": {}, "impulse (solver=lgs)": {"solver": "lgs"}}
"""Rows besides the methods' defaults: the impulse method's LGS solver (linear time on trees)."""


def variants(methods) -> list[tuple[str, str, dict]]:
    """(row label, method, options) for the methods asked for."""
    out = []
    for m in methods:
        extra = [(label, opts) for label, opts in VARIANTS.items() if label.split()[0] == m] or [(m, {})]
        out += [(label, m, opts) for label, opts in extra]
    return out


def timed_run(sim, n: int, every=None):
    """n steps; returns the wall times of the steps [s] and calls every(sim) after each step."""
    times = np.empty(n)
    for i in range(n):
        t0 = time.perf_counter()
        sim.step()
        times[i] = time.perf_counter() - t0
        if every is not None:
            every(sim)
    return times


def pendulum_row(label: str, method: str, opts: dict) -> dict:
    row = {"method": label}
    for h in STEPS_H:
        model, state = scenes.double_pendulum(*THETA0)
        sim = ims.Simulation(model, state, method=ims.make_method(method, model, eps_d=TIGHT, eps_v=TIGHT,
                                                                  **opts), h=h)
        times = timed_run(sim, int(round(1.0 / h)))
        t1 = THETA0[0] + diagnostics.joint_coordinate(model, sim.state, "shoulder")
        t2 = t1 - THETA0[0] + THETA0[1] + diagnostics.joint_coordinate(model, sim.state, "elbow")
        r1, r2 = reference_angles(model, t_end=sim.t, theta0=THETA0)
        wrap = lambda a: (a + math.pi) % (2 * math.pi) - math.pi   # noqa: E731
        row[f"error h={h * 1e3:g} ms [rad]"] = max(abs(wrap(t1 - r1)), abs(wrap(t2 - r2)))
        row[f"ms/step h={h * 1e3:g} ms"] = 1e3 * float(np.median(times[1:]))
    return row


def chain_row(label: str, method: str, opts: dict) -> dict:
    scene = load_scene(ROOT / "examples" / "ball_chain.yaml")
    options = dict(scene.settings.options) if method == scene.settings.method else \
        {k: v for k, v in scene.settings.options.items() if k in ("eps_d", "eps_v")}
    sim = scene.simulation(method=method, **options, **opts)
    sim.step()       # the start velocities do not fit the joints: the first step removes that part
    e0 = diagnostics.total_energy(scene.model, sim.state)
    kinetic0 = diagnostics.kinetic_energy(scene.model, sim.state)
    worst = [0.0]

    def track(s):
        worst[0] = max(worst[0], float(diagnostics.constraint_errors(s.model, s.state).max(initial=0.0)))

    times = timed_run(sim, int(round(2.0 / sim.h)), track)
    drift = (diagnostics.total_energy(scene.model, sim.state) - e0) / kinetic0
    return {"method": label, "ms/step": 1e3 * float(np.median(times[1:])), "largest joint error [m]": worst[0],
            "energy drift / kinetic after step 1": drift}


def main() -> None:
    from impulsim.bench import markdown_table
    methods = sys.argv[1:] or list(scene_methods())
    print("### Double pendulum, 1 s\n")
    rows = variants(methods)
    print(markdown_table([pendulum_row(*r) for r in rows]), flush=True)
    print("\n### Chain of 20 on ball joints, 2 s at h = 10 ms\n")
    print(markdown_table([chain_row(*r) for r in rows]), flush=True)


if __name__ == "__main__":
    main()
