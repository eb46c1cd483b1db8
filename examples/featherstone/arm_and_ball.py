"""Holck's test 5: an arm of four links and an end cube falls onto a free ball lying on the floor
(restitution 0.5, friction 0.4) and drapes over it, pushing it aside; link–rigid-body contacts use
K = K_link + K_ball from impulses through the tree.

    python examples/featherstone/arm_and_ball.py [duration]
"""
from __future__ import annotations

import sys

from impulsim.dynamics import diagnostics
from impulsim.experiments.holck import arm_and_ball

from _common import report, simulate


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 3.0
    sim = simulate(arm_and_ball(), h=1e-3)
    model, detector = sim.model, sim.method.detector
    ball = model.body("ball")
    y0 = sim.state.body_pos[ball, 1]
    e0 = diagnostics.total_energy(model, sim.state)
    collisions, deepest, gain = 0, 0.0, 0.0
    while sim.t < duration:
        collisions += sim.step().n_collisions
        deepest = max(deepest, -detector.penetration(sim.state))
        gain = max(gain, diagnostics.total_energy(model, sim.state) - e0)
    moved = sim.state.body_pos[ball, 1] - y0
    # a link passing through the ball would show a penetration of centimetres; the contacts (e = 0.5,
    # friction) dissipate, though Newton's law with friction could add a little in oblique impacts (Holck
    # §2.4): allow 1 mJ (measured: none)
    ok = collisions > 0 and deepest < 5e-3 and abs(moved) > 1e-3 and gain < 1e-3
    return report("arm and ball", ok, f"{collisions} collisions, deepest penetration {deepest * 1e3:.2f} mm, "
                  f"ball pushed {moved * 100:+.1f} cm along y, energy {diagnostics.total_energy(model, sim.state) - e0:+.2f} J "
                  f"(largest gain {gain:.1e} J)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
