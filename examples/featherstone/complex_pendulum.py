"""Holck's test 13 (complexpendulum): timing of a complex mechanism. A mobile of 30 bodies in one
articulated tree hangs from a static top bar and swings (restitution 0.7, its parts knock together); a free
ball is dropped onto the bar. Reported per step size: the compute time per step and the share of real time
it takes, t_compute / t_simulated (Holck's "share of the time slice": about 4 % at 1/10 s, 16 % at a three
times smaller step, on a 2.6 GHz Pentium 4).

At 1/10 s the ball, falling 0.15 m per step when it reaches the bar, passes through it: contacts are taken
from the state at the start of a step, with no time-of-impact search (Holck's bisection had one; his run 1
at 0.3 s showed the same fall-through). At 1/30 s the ball lands on the bar.

    python examples/featherstone/complex_pendulum.py [duration]
"""
from __future__ import annotations

import sys
import time

from impulsim.dynamics import diagnostics
from impulsim.experiments.holck import complex_pendulum

from _common import report, simulate

# the mobile's contacts dissipate (e = 0.7); a step's energy may rise only by the push-back of penetrations
# and the RK4 error of the swing (measured ≤ 1.3e-7 J at 1/30 s)
RISE_TOL = 1e-3
STEPS = (("1/10 s", 0.1), ("1/30 s", 1.0 / 30.0))


def run(h, duration):
    """(seconds per step, collisions, largest energy rise in a step [J], lowest ball centre [m], energies)"""
    sim = simulate(complex_pendulum(), h=h)
    sim.step()                                 # compile and warm up outside the timing
    model = sim.model
    ball = model.body("ball")
    e0 = energy = diagnostics.total_energy(model, sim.state)
    collisions, rise, lowest, n, busy = 0, 0.0, sim.state.body_pos[ball, 2], 0, 0.0
    while sim.t < duration - 1e-12:
        start = time.perf_counter()
        collisions += sim.step().n_collisions
        busy += time.perf_counter() - start
        n += 1
        new = diagnostics.total_energy(model, sim.state)
        rise, energy = max(rise, new - energy), new
        lowest = min(lowest, sim.state.body_pos[ball, 2])
    return busy / n, collisions, rise, lowest, e0, energy


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 10.0
    failures = 0
    run(1.0 / 30.0, 0.5)                        # compile every kernel (contacts too) before timing
    for label, h in STEPS:
        per_step, collisions, rise, lowest, e0, e1 = run(h, duration)
        share = per_step / h
        ok = collisions > 0 and rise < RISE_TOL and e1 < e0
        if h < 0.05:
            ok = ok and lowest > 0.0            # the ball stays on (above the underside of) the bar
        failures += report(f"complex pendulum h = {label}", ok,
                           f"{per_step * 1e3:.2f} ms per step, share of real time {100 * share:.1f} %, "
                           f"{collisions} collisions, energy {e0:.3f} -> {e1:.3f} J (largest rise in a step "
                           f"{rise:.1e} J), lowest ball centre {lowest:+.3f} m")
    return failures


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
