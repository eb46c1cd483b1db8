"""Holck's test 4: an arm of five 1 kg links falls against two static bars (restitution 0.5) and comes
to rest draped over them, without passing through.

    python examples/featherstone/arm_against_bars.py [duration]
"""
from __future__ import annotations

import sys

import numpy as np

from impulsim.experiments.holck import arm_against_bars

from _common import report, simulate


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 3.0
    sim = simulate(arm_against_bars(), h=1e-3)
    detector = sim.method.detector
    collisions, deepest = 0, 0.0
    while sim.t < duration:
        collisions += sim.step().n_collisions
        deepest = max(deepest, -detector.penetration(sim.state))
    speed = float(np.abs(sim.state.body_vel[1:]).max())
    # penetration stays within a few slops (1 mm); a link passing through would show ~2 cm
    return report("arm against bars", collisions > 0 and deepest < 5e-3,
                  f"{collisions} collisions, deepest penetration {deepest * 1e3:.2f} mm, "
                  f"largest speed at the end {speed:.3f} m/s")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
