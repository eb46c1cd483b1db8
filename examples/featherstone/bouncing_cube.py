"""Holck's test 1: a 2 kg cube (0.2 m, tilted by the quaternion (1, 0.2, 0.4, 0.1)) falls onto a static
floor with restitution 1 and no friction; its total energy stays constant over 10 s.

    python examples/featherstone/bouncing_cube.py [duration]
"""
from __future__ import annotations

import sys

from impulsim.dynamics import diagnostics
from impulsim.experiments.holck import bouncing_cube

from _common import report, simulate

# sequential impulses stop at eps_v = 1e-6 m/s: at most |p| eps_v ≈ 1e-5 J per collision of E ≈ 10 J
ENERGY_TOL = 3e-5


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 10.0
    sim = simulate(bouncing_cube(), h=1e-3)
    e0 = diagnostics.total_energy(sim.model, sim.state)
    worst, collisions = 0.0, 0
    while sim.t < duration:
        collisions += sim.step().n_collisions
        worst = max(worst, abs(diagnostics.total_energy(sim.model, sim.state) - e0) / e0)
    return report("bouncing cube", worst < ENERGY_TOL and collisions > 0,
                  f"{collisions} collisions in {sim.t:.1f} s, largest energy change {worst:.2e} of {e0:.3f} J")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
