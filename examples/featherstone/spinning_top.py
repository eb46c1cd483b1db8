"""Holck's test 2: a ball (radius 0.05 m, 3 kg) spinning at 26.6 rad/s is set down among four barriers,
with friction 0, 0.1, 0.6 and 0.9. Without friction it spins in place; with friction it rolls off at
v = (2/7) ω₀ r (angular momentum about the contact point is conserved), sooner the higher the friction,
and rebounds from a barrier.

    python examples/featherstone/spinning_top.py [duration]
"""
from __future__ import annotations

import sys

import numpy as np

from impulsim.experiments.holck import spinning_top

from _common import report, simulate

SPIN, RADIUS = 26.6, 0.05


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 2.0
    failures = 0
    rolling = 2.0 / 7.0 * SPIN * RADIUS
    for mu in (0.0, 0.1, 0.6, 0.9):
        sim = simulate(spinning_top(friction=mu), h=1e-3)
        k = sim.model.body("top")
        t_roll, peak = None, 0.0
        while sim.t < duration:
            sim.step()
            v = sim.state.body_vel[k, 0]
            peak = max(peak, v)
            if t_roll is None and mu > 0 and abs(v - rolling) < 1e-5:
                t_roll = sim.t
        if mu == 0.0:
            drift = float(np.abs(sim.state.body_pos[k, :2]).max())
            failures += report("top mu=0", drift < 1e-6, f"horizontal drift {drift:.1e} m")
        else:
            # sliding lasts (2/7) ω₀ r / (μ g) with μ the combined coefficient
            expect = rolling / (mu * 9.81)
            ok = t_roll is not None and abs(t_roll - expect) < 0.05 * expect + 2e-3 and abs(peak - rolling) < 1e-5
            failures += report(f"top mu={mu}", ok, f"rolls at {peak:.5f} m/s (2/7 ω r = {rolling:.5f}) from "
                               f"t = {t_roll} s (expected {expect:.3f} s)")
    return failures


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
