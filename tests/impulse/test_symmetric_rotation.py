"""The closed-form free rotation of torque-free bodies with two equal principal moments (the bodies of the
chain, tree and loop scenes), which the impulse method's free step and predictions use in place of RK4.

The reference integrates Euler's equations ω̇_l = J_l⁻¹(−ω_l × J_l ω_l), q̇ = ½ q ⊗ (0, ω_l) with SciPy's
DOP853 at rtol 1e-13, independently of the library's integrators.
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from impulsim.experiments import bender as scenes
from impulsim.dynamics.integrate import Integrator, free_step_body, integrate_rotation, symmetry_axis
from impulsim.math.vec import qrot, qrot_inv

CLOSED_FORM_TOL = 1e-11
# DOP853 at rtol 1e-13 over one step of |ω| h ≤ 1.5 rad agrees with the exact solution to ~1e-13 (measured
# 3e-13 at worst); the closed form itself is exact up to rounding (~1e-15).
RK4_GAP = 1e-9
# RK4's local error on these steps is O((|ω| h)^5) ≈ 1e-6 at the largest: the closed form must be visibly
# more accurate than RK4, not just equal to it.

SYMMETRIC = [(2.0, 2.0, 0.5), (0.3, 1.0, 1.0), (1.0, 0.2, 1.0), (0.7, 0.7, 0.7)]


def reference(q, omega, inertia, h):
    """Orientation and world angular velocity after h [s], integrated from Euler's equations."""
    inertia = np.asarray(inertia)
    w0 = np.array(qrot_inv(tuple(q), tuple(omega)))

    def rhs(_, y):
        q, w = y[:4], y[4:]
        dq = 0.5 * np.array([-q[1] * w[0] - q[2] * w[1] - q[3] * w[2], q[0] * w[0] + q[2] * w[2] - q[3] * w[1],
                             q[0] * w[1] - q[1] * w[2] + q[3] * w[0], q[0] * w[2] + q[1] * w[1] - q[2] * w[0]])
        return np.concatenate([dq, -np.cross(w, inertia * w) / inertia])

    y = solve_ivp(rhs, (0.0, h), np.concatenate([q, w0]), method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1]
    q1 = y[:4] / np.linalg.norm(y[:4])
    return q1, np.array(qrot(tuple(q1), tuple(y[4:])))


def free_rotation(q, omega, inertia, h, scheme=Integrator.RK4):
    inertia = np.asarray(inertia, float)
    zero = (0.0, 0.0, 0.0)
    _, q1, _, w1 = free_step_body(zero, tuple(q), zero, tuple(omega), zero, zero, inertia, 1.0 / inertia, 1.0, h,
                                  int(scheme))
    return np.array(q1), np.array(w1)


def quat_distance(a, b):
    """Largest component difference of two unit quaternions up to sign."""
    return min(np.abs(a - b).max(), np.abs(a + b).max())


@pytest.mark.parametrize("inertia", SYMMETRIC, ids=["axis z", "axis x", "axis y", "sphere"])
def test_free_step_of_symmetric_body_is_exact(inertia):
    rng = np.random.default_rng(7)
    h = 0.1
    for _ in range(5):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        omega = rng.normal(size=3) * 5.0          # up to ~1.5 rad per step, with spin about the axis
        q1, w1 = free_rotation(q, omega, inertia, h)
        qr, wr = reference(q, omega, inertia, h)
        assert quat_distance(q1, qr) < CLOSED_FORM_TOL
        assert np.abs(w1 - wr).max() < CLOSED_FORM_TOL * max(1.0, np.abs(wr).max())
        # the plain RK4 scheme is further from the reference: the closed form is what the step uses
        q4, _ = integrate_rotation(tuple(q), tuple(omega), (0.0, 0.0, 0.0), np.asarray(inertia),
                                   1.0 / np.asarray(inertia), h, int(Integrator.RK4))
        assert quat_distance(np.array(q4), qr) > RK4_GAP


def test_euler_scheme_and_asymmetric_bodies_keep_their_integrators():
    rng = np.random.default_rng(3)
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    omega = rng.normal(size=3)
    for inertia, scheme in (((2.0, 2.0, 0.5), Integrator.EULER), ((1.0, 2.0, 3.0), Integrator.RK4)):
        inertia = np.asarray(inertia)
        q1, w1 = free_rotation(q, omega, inertia, 0.05, scheme)
        q2, w2 = integrate_rotation(tuple(q), tuple(omega), (0.0, 0.0, 0.0), inertia, 1.0 / inertia, 0.05,
                                    int(scheme))
        assert np.array_equal(q1, q2) and np.array_equal(w1, w2)


def test_torque_switches_the_closed_form_off():
    q = np.array([1.0, 0.0, 0.0, 0.0])
    inertia = np.array([2.0, 2.0, 0.5])
    zero = (0.0, 0.0, 0.0)
    tau = (0.0, 0.3, 0.0)
    _, q1, _, w1 = free_step_body(zero, tuple(q), zero, (1.0, 0.0, 2.0), zero, tau, inertia, 1.0 / inertia, 1.0,
                                  0.05, int(Integrator.RK4))
    q2, w2 = integrate_rotation(tuple(q), (1.0, 0.0, 2.0), tau, inertia, 1.0 / inertia, 0.05, int(Integrator.RK4))
    assert np.array_equal(q1, q2) and np.array_equal(w1, w2)


def test_symmetry_axis_classification():
    assert symmetry_axis(np.array([2.0, 2.0, 0.5])) == 2
    assert symmetry_axis(np.array([0.3, 1.0, 1.0])) == 0
    assert symmetry_axis(np.array([1.0, 0.2, 1.0])) == 1
    assert symmetry_axis(np.array([0.7, 0.7, 0.7])) == 3
    assert symmetry_axis(np.array([1.0, 2.0, 3.0])) == -1
    assert symmetry_axis(np.array([0.0, 0.0, 1.0])) == -1      # degenerate: left to the chosen scheme


def test_scene_bodies_are_symmetric_bitwise():
    # the closed form applies to every body of Bender's scenes: their moments are equal bit for bit
    for model, _ in (scenes.tree(5), scenes.chain(10), scenes.three_loops()):
        moving = model.body_inv_mass > 0
        assert all(symmetry_axis(I) == 2 for I in model.body_inertia[moving])
