"""Holck's tests 8 and 9: a single link, no gravity, moving at 1 rad/s (hinge, limits ±2 rad) or 1 m/s
(slider, limits −0.18 … 0.09 m) between its stops. With restitution 1 the speed is kept and its sign flips
at every hit; with 0.5 it is halved exactly at every hit.

    python examples/featherstone/joint_limits.py [duration]
"""
from __future__ import annotations

import sys

import numpy as np

from impulsim.dynamics.diagnostics import joint_coordinate
from impulsim.experiments.holck import limit_arm

from _common import report, simulate


def hits(kind, e, duration):
    sim = simulate(limit_arm(kind, restitution=e), h=0.01)
    rate = joint_coordinate(sim.model, sim.state, "joint", rate=True)
    speeds = [abs(rate)]
    while sim.t < duration:
        sim.step()
        new = joint_coordinate(sim.model, sim.state, "joint", rate=True)
        if np.sign(new) != np.sign(rate):
            speeds.append(abs(new))
        rate = new
    return np.array(speeds)


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 27.0
    failures = 0
    for kind in ("hinge", "slider"):
        for e in (1.0, 0.5):
            s = hits(kind, e, duration)
            ratios = s[1:] / s[:-1]
            ok = len(ratios) > 0 and np.allclose(ratios, e, atol=1e-10)
            failures += report(f"{kind} limit e={e}", ok, f"speeds at the hits {np.round(s, 6).tolist()}")
    return failures


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
