"""The bob's tree on every method that can model it, for the cost of a step: the nine bodies and eight
joints of the two-man bob as a library Model (steering joint held at β = 0 as a fixed joint, no springs,
no contacts: the segment contacts and joint springs are the bob's own), tumbling under gravity from a
random twist. Prints the median µs per step at h = 0.2 ms and each method's largest difference in the body
positions after 0.5 s from Featherstone's (RK4 at 0.05 ms).

    PYTHONPATH=src python benchmarks/bob_methods.py
"""
import time

import numpy as np

import impulsim as ims
from impulsim.apps.bobsleigh.bob import load_bob
from impulsim.methods import make

H, DURATION = 2e-4, 0.5


def bob_model(seed=1):
    bob = load_bob()
    b = ims.ModelBuilder("bob tree")
    rng = np.random.default_rng(seed)
    w = rng.normal(size=3)
    for body in bob.bodies:
        b.add_body(body["name"], mass=body["mass"], inertia=tuple(body["inertia"]), position=body["com"],
                   angular_velocity=tuple(w), velocity=tuple(np.cross(w, body["com"])))
    for body in bob.bodies[1:]:
        kind = "fixed" if body.get("actuated") else "hinge"
        b.add_joint(kind, body["name"] + "_joint", body["parent"], body["name"], anchor=body["point"],
                    axis=body["axis"])
    return b.build()


def timed(model, state, name, h, **options):
    s = state.copy()
    method = make(name, model, **options)
    method.step(s, h)                                   # compile / warm up
    times = []
    for _ in range(int(DURATION / h) - 1):
        t0 = time.perf_counter()
        method.step(s, h)
        times.append(time.perf_counter() - t0)
    return s, np.median(times) * 1e6


def main():
    model, state = bob_model()
    ref, _ = timed(model, state, "featherstone", 5e-5, contacts=False)
    rows = [("moreau_minimal", dict(contacts=False)), ("featherstone", dict(contacts=False)),
            ("featherstone", dict(contacts=False, integrator="euler")), ("impulse", {}), ("lagrange", {})]
    print(f"bob tree (9 bodies, 12 DOF), h = {H * 1e3} ms, {DURATION} s")
    for name, opts in rows:
        try:
            s, us = timed(model, state, name, H, **opts)
        except Exception as exc:                      # a method that refuses the model says why
            print(f"  {name:15s} refused: {exc}")
            continue
        err = np.abs(s.body_pos - ref.body_pos).max()
        print(f"  {name:15s} {str(opts.get('integrator', '')):6s} median {us:7.1f} us/step   "
              f"max position difference {err:.2e} m")


if __name__ == "__main__":
    main()
