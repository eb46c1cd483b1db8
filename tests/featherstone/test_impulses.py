"""Mirtich's impulse response of articulated links: the collision matrix from test impulses against two
independent references, and contacts resolved through the tree."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.methods.featherstone import FeatherstoneMethod
from impulsim.methods.featherstone.impulses import collision_matrix
from tests.featherstone.random_trees import random_tree_model, random_state

# K from O(n) impulse propagation and the force-response of the ABA are both exact linear maps of the
# same H⁻¹; they agree to round-off (~1e-14 here).
EXACT_TOL = 1e-9


def collision_matrix_of(method, state, body, point):
    """K of a contact between ``body`` at world ``point`` and the static world, from test impulses."""
    method.coordinates(state)
    dyn, tree = method.dyn, method.tree
    dyn.articulated_inertias()
    t = int(np.nonzero(tree.body == body)[0][0])
    n = tree.n
    K = np.zeros((3, 3))
    art = (tree.root, tree.end, tree.parent, tree.v_start, dyn.S, dyn.IA, dyn.U, dyn.Dinv, np.zeros(6))
    scratch = (np.zeros((n, 6)), np.zeros(tree.nv), np.zeros(tree.nv), np.zeros((n, 6)), np.zeros((n, 6)),
               np.zeros((n, 6)), np.zeros((n, 12)), np.zeros(6))
    collision_matrix(t, -1, point, point, art, scratch, K, np.zeros(3))
    return K


def point_acceleration(method, state, body, point):
    """Acceleration [m/s²] of the body point at world ``point`` from the ABA at ``state``."""
    method.accelerations(state)
    dyn, tree = method.dyn, method.tree
    i = int(np.nonzero(tree.body == body)[0][0])
    a, w = dyn.a[i], dyn.v[i, :3]
    v_point = dyn.v[i, 3:] + np.cross(w, point)
    # classical acceleration of a body point: a_O + α × p + ω × v_p (a_O spatial, about the origin)
    return a[3:] + np.cross(a[:3], point) + np.cross(w, v_point)


@pytest.mark.parametrize("floating", [False, True], ids=["fixed-base", "floating-base"])
@pytest.mark.parametrize("seed", range(4))
def test_collision_matrix_is_the_response_of_the_equations_of_motion(seed, floating):
    model, state = random_tree_model(seed, n_bodies=7, floating=floating)
    state, _, _ = random_state(model, state, seed)
    method = FeatherstoneMethod(model, contacts=False)
    rng = np.random.default_rng(seed)
    body = int(rng.integers(1, model.n_bodies))
    point = state.body_pos[body] + rng.normal(scale=0.3, size=3)
    K = collision_matrix_of(method, state, body, point)
    # Holck Theorem 1: K is symmetric and (for a link with fewer than 3 freedoms) positive semi-definite
    assert np.allclose(K, K.T, atol=EXACT_TOL)
    assert np.linalg.eigvalsh(0.5 * (K + K.T)).min() > -EXACT_TOL
    # reference 1: a force F at the point changes the point's acceleration by K F (velocity terms cancel)
    a0 = point_acceleration(method, state, body, point)
    F = rng.normal(size=3)
    loaded = state.copy()
    loaded.body_force[body] = F
    loaded.body_torque[body] = np.cross(point - state.body_pos[body], F)
    a1 = point_acceleration(method, loaded, body, point)
    assert np.allclose(a1 - a0, K @ F, atol=EXACT_TOL)


def test_collision_matrix_against_a_finite_difference_step():
    """A large force F = p/δ over one Euler step of δ changes the point velocity by K p + O(δ)."""
    model, state = random_tree_model(5, n_bodies=6)
    state, _, _ = random_state(model, state, 5)
    body = 4
    point = state.body_pos[body] + np.array([0.1, -0.2, 0.05])
    K = collision_matrix_of(FeatherstoneMethod(model, contacts=False), state, body, point)
    p = np.array([0.3, -0.1, 0.2])

    def point_velocity_after(force, delta):
        s = state.copy()
        s.body_force[body] = force
        s.body_torque[body] = np.cross(point - s.body_pos[body], force)
        FeatherstoneMethod(model, contacts=False, integrator="euler").step(s, delta)
        # the body point that was at ``point`` (it moved by O(δ²) under the large force)
        return s.body_vel[body] + np.cross(s.body_omega[body], point - state.body_pos[body])

    errors = []
    for delta in (1e-5, 1e-6, 1e-7):
        du = point_velocity_after(p / delta, delta) - point_velocity_after(np.zeros(3), delta)
        errors.append(np.linalg.norm(du - K @ p))
    # the step's velocity terms act for δ on a velocity changed by O(|K p|): the error is first order in δ
    # (measured: 0.14 δ against |K p| = 0.046), so it must fall tenfold with δ and be small at δ = 1e-7
    assert errors[0] / errors[1] == pytest.approx(10.0, rel=1e-2)
    assert errors[1] / errors[2] == pytest.approx(10.0, rel=1e-2)
    assert errors[2] < 1e-6 * np.linalg.norm(K @ p)


def test_rigid_body_collision_matrix_is_holcks_closed_form():
    """For a free body K = (1/m) 1 − r̃ I⁻¹ r̃ (Holck eq. 2.16), with I the world inertia."""
    b = ims.ModelBuilder("free", gravity=(0, 0, 0))
    q = np.array([0.9, 0.1, -0.3, 0.2])
    b.add_body("box", mass=2.5, inertia=(0.3, 0.5, 0.7), position=(0.2, -0.1, 0.4), orientation=q / np.linalg.norm(q),
               angular_velocity=(0.3, -1.0, 2.0), velocity=(1.0, 0.0, -0.5))
    model, state = b.build()
    point = np.array([0.5, 0.1, 0.3])
    K = collision_matrix_of(FeatherstoneMethod(model, contacts=False), state, 1, point)
    from impulsim.math import quat_to_matrix, cross_matrix
    R = quat_to_matrix(state.body_quat[1])
    I_inv = R @ np.diag(1.0 / model.body_inertia[1]) @ R.T
    r = cross_matrix(point - state.body_pos[1])
    assert np.allclose(K, np.eye(3) / 2.5 - r @ I_inv @ r, atol=EXACT_TOL)
