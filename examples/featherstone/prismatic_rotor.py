"""Holck's test 7: link L1 turns about the vertical at 1.1 rad/s while a motor pushes link L2 out along
it. The turning rate follows ω(q₂) = L_z / I_z(q₂): it falls as the mass moves out (Holck's Figure 5.10).

    python examples/featherstone/prismatic_rotor.py [duration]
"""
from __future__ import annotations

import sys

from impulsim.dynamics import diagnostics
from impulsim.dynamics.diagnostics import joint_coordinate
from impulsim.experiments.holck import prismatic_rotor

from _common import report, simulate

I_BOX = (0.2 ** 2 + 0.02 ** 2) / 12.0     # 1 kg box 0.2 × 0.02 m about its short axis [kg m²]


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 5.0
    sim = simulate(prismatic_rotor(effort=0.05), h=1e-3)
    model = sim.model
    lz = diagnostics.angular_momentum(model, sim.state)[2]
    worst = 0.0
    print("   t [s]   q2 [m]   omega [rad/s]   L_z / I_z(q2)")
    while sim.t < duration:
        sim.run(0.5)
        q2 = joint_coordinate(model, sim.state, "slide")
        omega = joint_coordinate(model, sim.state, "turn", rate=True)
        expect = lz / (2 * I_BOX + 0.1 ** 2 + (0.1 + q2) ** 2)
        worst = max(worst, abs(omega - expect) / expect)
        print(f"  {sim.t:6.2f}  {q2:7.4f}  {omega:13.6f}  {expect:13.6f}")
    return report("prismatic rotor", worst < 1e-9, f"largest relative deviation from L_z / I_z: {worst:.1e}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
