"""Pendulum laws: the physical pendulum's period, the double pendulum against reduced coordinates."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.experiments.bender import double_pendulum as double_rod_pendulum, double_pendulum_reference
from impulsim.experiments.laws import rod_pendulum, rod_pendulum_period
from impulsim.dynamics.diagnostics import joint_coordinate
from tests.verification.methods import methods_with, make_method

G = 9.81
H = 1e-3
# A second-order method at h = 1 ms has a relative period error of order (ω h)² ≈ 1e-5 for ω ≈ 4 rad/s;
# the bound is 1e-4 relative.
PERIOD_REL_TOL = 1e-4
# Joint tolerance far below the discretization error, so that the measured error is the method's own.
TIGHT_EPS = 1e-10


def downward_zero_crossings(times, angles):
    """Times where the angle crosses 0 going negative, linearly interpolated (θ'' = 0 there)."""
    out = []
    for i in range(1, len(angles)):
        if angles[i - 1] > 0.0 >= angles[i]:
            w = angles[i - 1] / (angles[i - 1] - angles[i])
            out.append(times[i - 1] + w * (times[i] - times[i - 1]))
    return np.array(out)


@pytest.mark.parametrize("method", methods_with("joints"))
@pytest.mark.parametrize("amplitude_deg", [5.0, 30.0, 90.0])
def test_physical_pendulum_period_matches_elliptic_integral(method, amplitude_deg):
    amplitude = np.radians(amplitude_deg)
    model, state = rod_pendulum(amplitude)
    T = rod_pendulum_period(model, amplitude, g=G)
    sim = ims.Simulation(model, state, method=make_method(method, model, eps_d=TIGHT_EPS, eps_v=TIGHT_EPS), h=H)
    # joint coordinates count from the initial pose; the angle from the vertical adds the amplitude
    times, angles = [0.0], [amplitude]
    while sim.t < 3.2 * T:
        sim.step()
        times.append(sim.t)
        angles.append(amplitude + joint_coordinate(model, sim.state, "pivot"))
    crossings = downward_zero_crossings(np.array(times), np.array(angles))
    assert len(crossings) >= 3
    measured = (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    assert abs(measured - T) / T < PERIOD_REL_TOL


def reduced_double_pendulum(model, theta0, t_end):
    """Angles of the two-rod pendulum from its reduced-coordinate ODE (absolute angles θ1, θ2), solved
    with SciPy's DOP853 at tolerances 1e-12 (the same reference the order benchmark uses)."""
    return double_pendulum_reference(model, t_end, theta0=theta0, g=G)


def double_pendulum_error(method, h, t_end=1.0, theta0=(np.pi / 2, np.pi / 2)):
    model, state = double_rod_pendulum(*theta0)
    sim = ims.Simulation(model, state, method=make_method(method, model, eps_d=TIGHT_EPS, eps_v=TIGHT_EPS), h=h)
    sim.run(t_end)
    # joint coordinates count from the initial pose
    t1 = theta0[0] + joint_coordinate(model, sim.state, "shoulder")
    t2 = theta0[1] + joint_coordinate(model, sim.state, "shoulder") + joint_coordinate(model, sim.state, "elbow")
    r1, r2 = reduced_double_pendulum(model, theta0, t_end)
    wrap = lambda a: (a + np.pi) % (2 * np.pi) - np.pi
    return max(abs(wrap(t1 - r1)), abs(wrap(t2 - r2)))


# the bound after 1 s at h = 1 ms
DOUBLE_PENDULUM_TOL = 1e-3
# second order: halving h divides the error by 4; 3.5 leaves room for the higher-order remainder
MIN_ERROR_RATIO = 3.5


@pytest.mark.parametrize("method", methods_with("joints"))
def test_double_pendulum_matches_reduced_coordinates_with_second_order(method):
    e1 = double_pendulum_error(method, 1e-3)
    e2 = double_pendulum_error(method, 5e-4)
    assert e1 < DOUBLE_PENDULUM_TOL
    assert e1 / e2 >= MIN_ERROR_RATIO, f"error ratio {e1 / e2:.2f} (order {np.log2(e1 / e2):.2f})"
