"""What contacts cost where nothing touches or everything sleeps: CPU µs a step of the impulse method.

    python benchmarks/idle_contacts.py            # 15 rounds of 100 steps per row (about a minute)
    python benchmarks/idle_contacts.py --rounds 5

Rows:
* the pyramid of 55 boxes (impulsim.experiments.bender_contacts.pyramid, the thesis's stacking settings with
  shock propagation after the first sweep) asleep whole, with sleeping on: a step that can change nothing is
  skipped (docs/contacts.md);
* the same pyramid beside a ball on a ball joint that keeps swinging, 30 m away: sleeping off, and on, where
  the sleeping boxes' contacts are not detected;
* three capsule links on ball joints swinging in the air (LGS): the contact step, the step that finds no
  contact and finishes as without contacts (the default), and contacts off.
Each row steps its scene past its settling (80 steps of 10 ms for the pyramids, 20 of 2 ms for the chain), then
times ``rounds`` blocks of 100 steps in process CPU time; the median block is given.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import impulsim as ims
from impulsim.bench import contact as C
from impulsim.experiments import bender_contacts as B


def pyramid_and_pendulum(n_base: int = 10):
    """The pyramid of ``n_base`` boxes on its base row and a 0.2 m ball on a 3 m ball joint 30 m away, released
    sideways (it never comes to rest)."""
    b = B._stack_builder("pyramid and pendulum")
    for row in range(n_base):
        for i in range(n_base - row):
            B._add_box(b, f"box{row}_{i}", ((i - 0.5 * (n_base - row - 1)) * B.STACK_BOX, 0.0,
                                            (row + 0.5) * B.STACK_BOX))
    b.add_body("bob", shapes=[ims.Sphere(radius=0.2)], mass=1.0, position=(33.0, 0.0, 10.0))
    b.add_ball("rope", "world", "bob", anchor=(30.0, 0.0, 10.0))
    return b.build()


def swinging_chain(height: float = 10.0):
    """Three capsules on ball joints hanging from a pivot ``height`` [m] above the ground, swinging at 3 rad/s."""
    b = ims.ModelBuilder("chain in the air")
    b.add_body("ground", shapes=[ims.HalfSpace()], static=True)
    parent, pivot = "world", np.array([0.0, 0.0, height])
    for k in range(3):
        b.add_body(f"link{k}", shapes=[ims.Capsule(radius=0.05, length=0.4)], mass=1.0,
                   position=pivot - (0, 0, 0.25 + 0.5 * k))
        b.add_ball(f"joint{k}", parent, f"link{k}", anchor=pivot - (0, 0, 0.5 * k))
        parent = f"link{k}"
    model, state = b.build()
    swing = np.array([0.0, 3.0, 0.0])
    state.body_omega[-3:] = swing
    state.body_vel[-3:] = np.cross(swing, state.body_pos[-3:] - pivot)
    return model, state


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
    for sleep in (False, True):
        model, state = pyramid_and_pendulum()
        yield f"pyramid of 55 beside a pendulum, sleep={sleep}", time_steps(
            C.make_method(model, B.STACK_SETTINGS, sleep=sleep, **stack), state, B.STACK_H, 80, rounds)
    for label, options in (("contact step (fused=False)", dict(fused=False)), ("default", {}),
                           ("contacts=False", dict(contacts=False))):
        model, state = swinging_chain()
        yield f"chain of 3 in the air, {label}", time_steps(
            ims.make_method("impulse", model, solver="lgs", **options), state, 2e-3, 20, rounds)


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
