"""What contacts cost where nothing touches or everything sleeps: CPU µs a step of the impulse method.

    python benchmarks/idle_contacts.py            # 15 rounds of 100 steps per row (about a minute)
    python benchmarks/idle_contacts.py --rounds 5

Rows:
* the pyramid of 55 boxes (impulsim.experiments.bender_contacts.pyramid, the thesis's stacking settings with
  shock propagation after the first sweep) asleep whole, with sleeping on: a step that can change nothing is
  skipped (docs/contacts.md);
* the thesis's wall with sleeping on, between its stones falling asleep (0.5 s) and the ball's arrival
  (1.29 s): 15 blocks of 8 steps from step 120;
* the same pyramid beside a ball on a ball joint that keeps swinging, 30 m away: sleeping off, and on, where
  the sleeping boxes' contacts are not detected;
* three capsule links on ball joints swinging in the air (LGS): the full contact step (as such steps were
  taken before), the step that finds no contact and finishes as without contacts (the default, fused, and
  staged), and contacts off.
Each row steps its scene past its settling (80 steps of 10 ms for the pyramids, 120 of 5 ms for the wall, 20 of
2 ms for the chain), then times ``rounds`` blocks of 100 steps (the wall: 8) in process CPU time; the median
block is given.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import impulsim as ims
from impulsim.bench import contact as C
from impulsim.experiments import bender_contacts as B
from impulsim.experiments.idle import pyramid_and_pendulum, swinging_chain


def time_steps(method, state, h, settle, rounds, steps=100):
    """Median CPU µs a step over ``rounds`` blocks of ``steps`` after ``settle`` untimed steps; the last
    StepInfo."""
    for _ in range(settle):
        info = method.step(state, h)
    blocks = []
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(steps):
            info = method.step(state, h)
        blocks.append((time.process_time() - t0) / steps)
    return 1e6 * float(np.median(blocks)), info


def rows(rounds):
    stack = dict(shock_propagation=1)
    model, state = B.pyramid()
    yield "pyramid of 55, asleep whole", time_steps(
        C.make_method(model, B.STACK_SETTINGS, sleep=True, **stack), state, B.STACK_H, 80, rounds)
    model, state = B.wall()       # asleep from 0.5 s until the ball arrives at 1.29 s: steps 120-240 timed
    yield "the wall's 252 stones asleep beside the swinging ball", time_steps(
        C.make_method(model, B.WALL_SETTINGS, **{**B.WALL_SOLVER, "shock_propagation": B.WALL_SHOCK_ITERATIONS},
                      sleep=True), state, B.WALL_H, 120, rounds, steps=min(8, 120 // max(rounds, 1)))
    for sleep in (False, True):
        model, state = pyramid_and_pendulum()
        yield f"pyramid of 55 beside a pendulum, sleep={sleep}", time_steps(
            C.make_method(model, B.STACK_SETTINGS, sleep=sleep, **stack), state, B.STACK_H, 80, rounds)
    for label, options in (("the full contact step", dict(full=True)), ("default (fused)", {}),
                           ("fused=False", dict(fused=False)), ("contacts=False", dict(contacts=False))):
        model, state = swinging_chain()
        full = options.pop("full", False)
        method = ims.make_method("impulse", model, solver="lgs", **options)
        if full:
            method._joints_alone_when_untouched = False      # as every such step was taken before
        yield f"chain of 3 in the air, {label}", time_steps(method, state, 2e-3, 20, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print("| scene | µs a step | bodies asleep | contacts |")
    print("|---|---|---|---|")
    for label, (us, info) in rows(args.rounds):
        print(f"| {label} | {us:.1f} | {info.n_asleep} | {info.n_contacts} |", flush=True)


if __name__ == "__main__":
    main()
