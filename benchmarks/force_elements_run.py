"""Microseconds per step of ``Simulation.run`` on the example scenes with force elements (PID servos, springs):
stepped in Python (``fused=False`` keeps ``run`` to calls of ``step``) against the impulse method's compiled
loop (the default), measured in one process.

    PYTHONPATH=src python benchmarks/force_elements_run.py            # 25 rounds
    PYTHONPATH=src python benchmarks/force_elements_run.py --quick    # 5 rounds

Each scene is loaded from its file (examples/servo_arm.yaml, examples/spring_oscillator.yaml) with its own
settings (h = 1 ms; contacts off for the oscillator), with each solver (the scenes' default, iterative, and
LGS), and both simulations of a pair start from the same state. A round times one block of steps of each
contender in turn, in CPU time of the process, each after an untimed tenth of a block (see
paired_blocks.py); the table gives the medians over the rounds and the median of the per-round ratios. The
loop is compiled before the rounds (a warm-up block with ``run_path.COMPILE_PAYS_STEPS = 0``). With
``fused=False`` an all-LGS step with force elements is the staged step, as it is by default: the Python
column is what ``run`` took before it had a loop for these models.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired_blocks as paired  # noqa: E402

from impulsim.io import load_scene  # noqa: E402
from impulsim.methods.impulse import run_path  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENES = [
    # name, file, steps per block, options
    ("servo arm", "examples/servo_arm.yaml", 2000, {}),
    # its two blocks may collide, which switches contacts on (and keeps run in Python): off here
    ("spring oscillator, contacts off", "examples/spring_oscillator.yaml", 2000, dict(contacts=False)),
]


def contender(scene, **options):
    """(block, simulation): ``block(k)`` advances the simulation by k steps through ``Simulation.run``."""
    sim = scene.simulation(**options)

    def block(k):
        sim.run(k * sim.h)
    return block, sim


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="5 rounds instead of 25")
    args = ap.parse_args(argv)
    rounds = 5 if args.quick else 25
    run_path.COMPILE_PAYS_STEPS = 0         # compile the loop in the warm-up, not on a long first run
    print(f"load average {os.getloadavg()[0]:.2f}; {rounds} rounds; CPU µs per step of Simulation.run, medians")
    print("| scene | solver | steps per block | python (fused=False) | run path | run | python / run |")
    print("|---|---|---|---|---|---|---|")
    for name, path, block, options in SCENES:
        scene = load_scene(os.path.join(ROOT, path))
        for solver in ("iterative", "lgs"):
            python, _ = contender(scene, fused=False, solver=solver, **options)
            loop, sim_l = contender(scene, solver=solver, **options)
            contenders = {"python": python, "run": loop}
            for fn in contenders.values():      # warm-up: kernels and the loop compiled, caches filled
                fn(block)
            times = paired.time_rounds(contenders, dict.fromkeys(contenders, block), rounds)
            ratio = np.median(times["python"] / times["run"])
            print(f"| {name} | {solver} | {block} | {np.median(times['python']):.1f} | {sim_l.method.run_path} | "
                  f"{np.median(times['run']):.1f} | {ratio:.1f} |", flush=True)


if __name__ == "__main__":
    main()
