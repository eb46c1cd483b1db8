"""Force elements: the spring–mass period and a PID servo holding a hinge against gravity."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics.diagnostics import joint_coordinate
from tests.verification.methods import methods_with, make_method

MASS = 2.0
STIFFNESS = 50.0
H = 1e-3
# Spring forces are held constant over a step; the period error is O((ω h)²) ≈ 2.5e-5 relative at
# ω = 5 rad/s, h = 1 ms. The bound is 1e-3.
PERIOD_REL_TOL = 1e-3


def spring_oscillator():
    """A block on a frictionless vertical slider hanging from a spring (rest length 1 m), pulled 0.2 m
    below its equilibrium."""
    b = ims.ModelBuilder("spring oscillator")
    g = 9.81
    z_eq = -1.0 - MASS * g / STIFFNESS
    b.add_body("block", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=MASS, position=(0, 0, z_eq - 0.2))
    b.add_slider("rail", "world", "block", anchor=(0, 0, z_eq - 0.2), axis=(0, 0, 1))
    b.add_spring("spring", "world", "block", stiffness=STIFFNESS, rest_length=1.0)
    return b.build()


@pytest.mark.parametrize("method", methods_with("springs"))
def test_spring_mass_period(method):
    model, state = spring_oscillator()
    T = 2 * np.pi * np.sqrt(MASS / STIFFNESS)
    sim = ims.Simulation(model, state, method=make_method(method, model), h=H)
    z_eq = -1.0 - MASS * 9.81 / STIFFNESS
    times, z = [0.0], [state.body_pos[1, 2] - z_eq]
    while sim.t < 5.2 * T:
        sim.step()
        times.append(sim.t)
        z.append(sim.state.body_pos[1, 2] - z_eq)
    times, z = np.array(times), np.array(z)
    up = np.nonzero((z[:-1] < 0.0) & (z[1:] >= 0.0))[0]
    crossings = times[up] - z[up] * (times[up + 1] - times[up]) / (z[up + 1] - z[up])
    measured = (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    assert len(crossings) >= 4
    assert abs(measured - T) / T < PERIOD_REL_TOL


SERVO_TARGET = 0.5          # [rad]
SETTLE_TOL = 1e-3           # [rad], the bound, within 2 s and held afterwards


def servo_arm(setpoints=((0.0, SERVO_TARGET),)):
    """A 1 m, 2 kg arm on a horizontal hinge, starting hanging down, with a PID servo on the angle.

    With J = m l²/3 ≈ 0.67 kg m² the gains place the closed-loop poles near s = −10 (J s³ + kd s² + kp s
    + ki ≈ J (s + 10)³), so the integral error decays well within the 2 s the issue allows.
    """
    b = ims.ModelBuilder("servo arm")
    b.add_body("arm", shapes=[ims.Box(size=(0.05, 0.05, 1.0))], mass=2.0, position=(0, 0, -0.5))
    b.add_hinge("shoulder", "world", "arm", anchor=(0, 0, 0), axis=(1, 0, 0))
    b.add_servo("drive", "shoulder", "angle", kp=200.0, ki=700.0, kd=20.0, limit=60.0,
                setpoints=setpoints)
    return b.build()


def test_a_scalar_set_point_is_a_constant_one():
    """add_servo(..., setpoints=0.5) as a scene file's ``setpoints: 0.5``: the same set-point sequence."""
    scalar, _ = servo_arm(setpoints=SERVO_TARGET)
    pairs, _ = servo_arm()
    for name in ("servo_sp_start", "servo_sp_time", "servo_sp_value", "servo_sp_linear"):
        assert np.array_equal(getattr(scalar, name), getattr(pairs, name)), name
    assert scalar.servo_sp_value[0] == SERVO_TARGET


@pytest.mark.parametrize("method", methods_with("servos"))
def test_pid_servo_settles_and_holds_against_gravity(method):
    model, state = servo_arm()
    sim = ims.Simulation(model, state, method=make_method(method, model), h=H)
    sim.run(2.0)
    errors = []
    for _ in range(1000):
        sim.step()
        errors.append(abs(joint_coordinate(model, sim.state, "shoulder") - SERVO_TARGET))
    assert max(errors) < SETTLE_TOL
    # holding the arm at 0.5 rad against gravity needs a steady torque m g (l/2) sin θ
    hold = 2.0 * 9.81 * 0.5 * np.sin(SERVO_TARGET)
    assert abs(abs(sim.state.servo_effort[0]) - hold) / hold < 1e-2
