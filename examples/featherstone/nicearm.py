"""Holck's test 14 (nicearm): a six-link arm whose joints are driven by PID position servos with effort
limits (Holck's motors with Q_max, position control towards q_pre). Holck drove them from the keyboard;
here the set points are scripted.

14a: the servos take the arm from straight up to Holck's q_pre (see scenes.NICEARM_SETPOINTS) and hold it
     there against gravity; at 3 s servo M3 is sent beyond its stop (−2.5 rad, stop at −2.2): the stop
     holds while the servo pushes against it with its full effort.
14b: the arm stretches out over a ball lying on a small ledge and the turntable (M1) swings it round at
     2 s: the scoop pushes the ball off the ledge.

    python examples/featherstone/nicearm.py [duration]
"""
from __future__ import annotations

import sys

import numpy as np

from impulsim.dynamics.diagnostics import joint_coordinate
from impulsim.experiments.holck import NICEARM_SETPOINTS, nicearm

from _common import report, simulate

H = 1e-3
# PID with an integral term: the error left at 3 s (measured ≤ 7e-3 rad; the integral still closing it)
SETPOINT_TOL = 0.01
# a stop holding a servo at its effort limit: measured crossing 1.5e-4 rad (the servo's effort is applied
# after the stop anticipated the step's load, and the integral term winds up); 1e-3 rad (0.06°) would be a
# stop giving way
STOP_TOL = 1e-3
# The stretched-out arm for 14b, swung round at 2 s. The scoop (M6) stays in line with L5: pitched down
# (M6 = -0.6) its lower half swept into the side of the ledge below the ball and ground along it with the
# turntable at its effort limit, and whether it came free to reach the ball hung on stick-slip details.
REACH = {"M1": [(0.0, 0.0), (2.0, 1.2)], "M2": [(0.0, -0.6)], "M3": [(0.0, -0.9)], "M4": [(0.0, -0.1)],
         "M6": [(0.0, 0.0)]}


def arm(duration):
    t_switch = min(3.0, 0.6 * duration)
    sim = simulate(nicearm(setpoints={"M3": [(0.0, -1.0), (t_switch, -2.5)]}), h=H)
    model = sim.model
    sim.run(t_switch)
    errors = {f"M{k}": joint_coordinate(model, sim.state, f"Q{k}") - NICEARM_SETPOINTS[f"M{k}"] for k in range(1, 7)}
    errors["M3"] = joint_coordinate(model, sim.state, "Q3") + 1.0
    worst = max(abs(e) for e in errors.values())
    lowest = np.inf
    while sim.t < duration - 1e-12:
        sim.step()
        lowest = min(lowest, joint_coordinate(model, sim.state, "Q3"))
    effort = abs(sim.state.servo_effort[model.servo_names.index("M3")])
    crossing = max(0.0, -2.2 - lowest)
    ok = worst < SETPOINT_TOL and crossing < STOP_TOL and lowest < -2.2 + 0.01 and effort > 24.0
    return report("nicearm 14a", ok, f"set-point errors at {t_switch:g} s "
                  + ", ".join(f"{k} {v:+.1e}" for k, v in errors.items())
                  + f" rad; M3 sent to -2.5: lowest Q3 {lowest:.5f} rad (stop -2.2, crossed by {crossing:.1e}), "
                  f"servo effort {effort:.1f} N m (limit 25)")


def push_ball(duration):
    sim = simulate(nicearm(setpoints=REACH, ball=True), h=H)
    model = sim.model
    ball = model.body("ball")
    start = sim.state.body_pos[ball].copy()
    sim.run(duration)
    end = sim.state.body_pos[ball]
    # off the ledge: its centre below the ledge top (0.19 m) and more than a ledge half-width (6 cm) away
    moved = np.linalg.norm(end[:2] - start[:2])
    ok = end[2] < 0.19 and moved > 0.06
    return report("nicearm 14b", ok, f"ball moved {moved:.2f} m sideways, from z = {start[2]:.3f} to {end[2]:.3f} m")


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 6.0
    return arm(duration) + push_ball(duration)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
