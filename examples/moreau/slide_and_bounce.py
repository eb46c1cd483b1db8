"""Moreau's midpoint time-stepping on three contact scenes with analytic answers:

* boxes sliding down a 15° incline with μ = 0.4, 0.5, 0.6 stop after v0² / (2 g (μ cos α − sin α));
* a ball dropped from 1 m with e = 0.5 bounces to e^{2k} · 1 m;
* a sled on runners (anisotropic friction, thesis §4.3) pushed diagonally loses its lateral slip while
  it keeps gliding forward, slowed by no more than the largest longitudinal friction μ_t m g.

    python examples/moreau/slide_and_bounce.py [h]

Prints each result against its analytic value and exits with 1 if one misses its bound.
"""
import sys

import numpy as np

from impulsim.methods.moreau import MoreauMethod, RunnerFriction
from impulsim.experiments.rempfler import (G, apex_heights, bouncing_ball, incline_box, measured_apexes,
                                            runner_sled, stopping_distance)


def slide(mu, h):
    model, state, downhill = incline_box(mu=mu)
    method = MoreauMethod(model, e_a=1e-9)      # the thesis's e_a = 1e-4 N s lets a 1 kg box creep
    start = state.body_pos[2].copy()
    while np.linalg.norm(state.body_vel[2]) > 1e-7 or state.t < 0.1:
        method.step(state, h)
    return float(np.dot(state.body_pos[2] - start, downhill)), state.t


def bounce(h):
    model, state = bouncing_ball(restitution=0.5)
    method = MoreauMethod(model)
    heights = []
    while state.t < 1.6:
        method.step(state, h)
        heights.append(state.body_pos[2, 2] - 0.1)
    return measured_apexes(heights)[:3]


def sled(h):
    runner = RunnerFriction(mu_t=4e-3, mu_r_ratio=0.66, mu_b_min=0.05, mu_b_max=0.05, axis=(1, 0, 0))
    model, state = runner_sled((2.0, 1.0, 0.0))
    method = MoreauMethod(model, runners={"sled": runner}, e_a=1e-9)
    while state.t < 2.5:
        method.step(state, h)
    return state.body_vel[2].copy(), method.contact_load("sled")[0]


def main(h=1e-3) -> int:
    ok = True
    for mu in (0.4, 0.5, 0.6):
        d, t = slide(mu, h)
        exact = stopping_distance(mu=mu)
        good = abs(d - exact) < G * h * h               # O(g h²): see tests/moreau/test_contacts.py
        ok &= good
        print(f"incline mu {mu:.1f}: stopped after {t:.3f} s at {d:.6f} m, analytic {exact:.6f} m "
              f"({'ok' if good else 'MISS'})")
    apexes = bounce(h)
    expected = apex_heights(n=3)
    good = len(apexes) == 3 and np.abs(apexes - expected).max() < np.sqrt(2 * G) * h   # one step at v0
    ok &= good
    print(f"ball apexes {np.round(apexes, 4)} m, analytic {expected} m ({'ok' if good else 'MISS'})")
    v, force = sled(h)
    # while both slip, the force sits on the set where its normal is the slip direction: on the flat sides
    # for a mostly lateral slip (full μ_b), on the elliptical cap for a mostly forward one, where the lateral
    # share shrinks with the slip angle. So the slip angle falls from 27° to a fraction of a degree, and
    # the forward speed never drops faster than μ_t g.
    lowest = 2.0 - 4e-3 * G * 2.5
    good = abs(v[1]) < 1e-3 * abs(v[0]) and lowest - 1e-9 <= v[0] < 2.0
    ok &= good
    print(f"sled velocity {np.round(v, 5)} m/s: slip angle {np.degrees(np.arctan2(v[1], v[0])):.3f}°, forward "
          f"speed at least {lowest:.5f} m/s; "
          f"mean contact force {np.round(force, 3)} N ({'ok' if good else 'MISS'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1]) if len(sys.argv) > 1 else 1e-3))
