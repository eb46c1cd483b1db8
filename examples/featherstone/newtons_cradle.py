"""Holck's test 3: Newton's cradle of six 3 kg balls on 0.56 m rods, restitution 1, no friction, step
1/50 s as in the thesis. The right ball starts 30.3° out; the total energy stays constant over 10 s and
the right pendulum keeps swinging.

    python examples/featherstone/newtons_cradle.py [duration]
"""
from __future__ import annotations

import sys

from impulsim.dynamics import diagnostics
from impulsim.experiments.holck import newtons_cradle

from _common import report, simulate

# RK4 at h = 20 ms on pendulums of period ~1.6 s plus the impulse stop eps_v: measured 1e-6 J of ~3 J
ENERGY_TOL = 1e-5


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 10.0
    sim = simulate(newtons_cradle(), h=1.0 / 50.0)
    model = sim.model
    e0 = diagnostics.total_energy(model, sim.state)
    ke_scale = 3.5 * 9.81 * 0.61 * 0.137       # m g l (1 − cos 30.3°) of the raised pendulum [J]
    worst, collisions, peaks = 0.0, 0, []
    while sim.t < duration:
        collisions += sim.step().n_collisions
        worst = max(worst, abs(diagnostics.total_energy(model, sim.state) - e0) / ke_scale)
        peaks.append(abs(diagnostics.joint_coordinate(model, sim.state, "pivot5", rate=True)))
    last = max(peaks[-100:])
    return report("newtons cradle", worst < ENERGY_TOL and collisions > 0,
                  f"{collisions} collisions, energy change {worst:.1e} of the swing energy, right pendulum's "
                  f"peak rate {max(peaks[:100]):.3f} rad/s at first, {last:.3f} rad/s in the last 2 s")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
