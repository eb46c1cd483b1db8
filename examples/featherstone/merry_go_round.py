"""Holck's test 6: a disc turning at 0.5 rad/s carries two hanging arms of seven links; the arms swing
out (centrifugal and Coriolis forces in the rotating frame) and the disc slows, with the angular momentum
about the vertical unchanged.

    python examples/featherstone/merry_go_round.py [duration]
"""
from __future__ import annotations

import sys

import numpy as np

from impulsim.dynamics import diagnostics
from impulsim.experiments.holck import merry_go_round

from _common import report, simulate


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 5.0
    sim = simulate(merry_go_round(), h=1e-3)
    model = sim.model
    lz = diagnostics.angular_momentum(model, sim.state)[2]
    tip = model.body("left6")
    r0 = np.hypot(*sim.state.body_pos[tip, :2])
    r_max = r0
    while sim.t < duration:
        sim.step()
        r_max = max(r_max, np.hypot(*sim.state.body_pos[tip, :2]))
    drift = abs(diagnostics.angular_momentum(model, sim.state)[2] - lz) / lz
    return report("merry-go-round", drift < 1e-9 and r_max > r0,
                  f"tip swings out from {r0:.3f} m to {r_max:.3f} m from the axis; L_z drift {drift:.1e}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
