"""Microseconds per step of the impulse method on a model with joint limits: single steps called from Python
against ``run`` in its compiled loop with limits (methods/impulse/limit_run.py), in one process, with the
position and velocity passes a step.

    PYTHONPATH=src python benchmarks/limits_run.py             # 9 rounds of 500 steps
    PYTHONPATH=src python benchmarks/limits_run.py --rounds 3

The model: an arm of six links (0.3 m boxes, 800 kg/m³) on hinges whose axes alternate between y and x, each
between stops at ±0.6 rad (restitution 0.3), released horizontally under gravity at h = 1 ms, so the links
fall onto their stops and then rest on them. A round times a block of single steps and then a block of the
same length in the loop, in CPU time of the process (the machine is shared); the table gives the medians over
the rounds and the median of the per-round ratios. The loop is compiled before the rounds.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import impulsim as ims
from impulsim.methods.impulse import run_path

H = 1e-3


def arm(n: int = 6):
    """The limited arm of the module docstring: (model, state)."""
    b = ims.ModelBuilder("limited arm")
    parent, p = "world", np.zeros(3)
    for k in range(n):
        along_x = k % 2 == 0
        e = np.array([1.0, 0.0, 0.0]) if along_x else np.array([0.0, 0.0, -1.0])
        size = (0.3, 0.08, 0.08) if along_x else (0.08, 0.08, 0.3)
        b.add_body(f"link{k}", shapes=[ims.Box(size=size)], density=800, position=p + 0.15 * e)
        b.add_hinge(f"joint{k}", parent, f"link{k}", anchor=p, axis=(0, 1, 0) if along_x else (1, 0, 0))
        b.add_limit(f"stops{k}", f"joint{k}", -0.6, 0.6, restitution=0.3)
        parent, p = f"link{k}", p + 0.3 * e
    return b.build()


def measure(solver: str, rounds: int, steps: int) -> dict:
    """Medians of CPU µs a step, single steps and ``run``, and the passes a step of the measured run."""
    model, state = arm()
    single = ims.make_method("impulse", model, solver=solver, contacts=False)
    looped = ims.make_method("impulse", model, solver=solver, contacts=False)
    s_single, s_looped = state.copy(), state.copy()
    saved = run_path.COMPILE_PAYS_STEPS
    run_path.COMPILE_PAYS_STEPS = 0          # compile the loop now, not from 200 000 steps on
    try:
        looped.run(s_looped, H, 10)
        single.step(s_single, H)
        times, infos = [], []
        for _ in range(rounds):
            t0 = time.process_time()
            for _ in range(steps):
                single.step(s_single, H)
            t1 = time.process_time()
            infos.append(looped.run(s_looped, H, steps))
            t2 = time.process_time()
            times.append(((t1 - t0) / steps * 1e6, (t2 - t1) / steps * 1e6))
    finally:
        run_path.COMPILE_PAYS_STEPS = saved
    times = np.array(times)
    n = rounds * steps
    return {"solver": solver, "path": looped.run_path, "step": float(np.median(times[:, 0])),
            "run": float(np.median(times[:, 1])), "ratio": float(np.median(times[:, 0] / times[:, 1])),
            "pos": sum(i.iters_pos for i in infos) / n, "vel": sum(i.iters_vel for i in infos) / n,
            "max_pos": max(i.max_iters_pos for i in infos)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--steps", type=int, default=500)
    args = parser.parse_args()
    print("| solver | run_path | step() µs | run() µs | step / run | position passes a step (max) | velocity passes a step |")
    print("|---|---|---|---|---|---|---|")
    for solver in ("iterative", "lgs"):
        r = measure(solver, args.rounds, args.steps)
        print(f"| {r['solver']} | {r['path']} | {r['step']:.0f} | {r['run']:.0f} | {r['ratio']:.1f} | "
              f"{r['pos']:.0f} ({r['max_pos']}) | {r['vel']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
