"""Identities of the spatial algebra (impulsim.math.spatial), checked on random inputs.

Every identity is exact in real arithmetic; the tolerance 1e-9 covers the round-off of a few 6×6 products
of entries up to ~10 (relative error ~1e-15 per operation, amplified at most ~1e3 by the magnitudes).
"""
import numpy as np
from hypothesis import given, settings, strategies as st

from impulsim.math.quaternion import quat_to_matrix
from impulsim.math.spatial import (cross_force, cross_motion, crf, crm, force_transform, plucker,
                                   plucker_inverse, spatial_inertia, transform_inertia)

TOL = 1e-9

finite = st.floats(-3.0, 3.0, allow_nan=False)
vec3 = st.lists(finite, min_size=3, max_size=3).map(np.array)
vec6 = st.lists(finite, min_size=6, max_size=6).map(np.array)
quat = st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).map(np.array).filter(
    lambda q: np.linalg.norm(q) > 0.1).map(lambda q: q / np.linalg.norm(q))
rotation = quat.map(quat_to_matrix)
positive = st.floats(0.1, 5.0)


def random_inertia(moments, q):
    """A valid rotational inertia: principal moments made to satisfy the triangle inequality, rotated."""
    a, b, c = sorted(moments)
    c = min(c, a + b)   # I_max ≤ I_1 + I_2 for any rigid body
    R = quat_to_matrix(q)
    return R @ np.diag([a, b, c]) @ R.T


@settings(max_examples=60, deadline=None)
@given(rotation, vec3, rotation, vec3)
def test_composition_of_transforms_is_the_transform_of_the_composed_frames(E1, r1, E2, r2):
    # frame B = (E1, r1) in A; frame C = (E2, r2) in B  =>  C in A: rotation E2 E1, origin r1 + E1ᵀ r2
    composed = plucker(E2 @ E1, r1 + E1.T @ r2)
    assert np.allclose(plucker(E2, r2) @ plucker(E1, r1), composed, atol=TOL)


@settings(max_examples=60, deadline=None)
@given(rotation, vec3)
def test_inverse_transform(E, r):
    X = plucker(E, r)
    assert np.allclose(plucker_inverse(X) @ X, np.eye(6), atol=TOL)
    assert np.allclose(plucker_inverse(X), np.linalg.inv(X), atol=TOL)
    # the inverse is the transform of the reverse displacement: rotation Eᵀ, origin −E r
    assert np.allclose(plucker_inverse(X), plucker(E.T, -E @ r), atol=TOL)


@settings(max_examples=60, deadline=None)
@given(rotation, vec3, vec6, vec6)
def test_power_is_invariant_under_motion_and_force_transforms(E, r, v, f):
    X = plucker(E, r)
    assert np.allclose(force_transform(X), np.linalg.inv(X).T, atol=TOL)
    assert abs((X @ v) @ (force_transform(X) @ f) - v @ f) < TOL


@settings(max_examples=60, deadline=None)
@given(vec6, vec6, vec6)
def test_force_cross_product_is_the_dual_of_the_motion_cross_product(v, m, f):
    assert np.allclose(crf(v), -crm(v).T, atol=TOL)
    assert np.allclose(cross_motion(v, m), crm(v) @ m, atol=TOL)
    assert np.allclose(cross_force(v, f), crf(v) @ f, atol=TOL)
    # (v ×m m) · f = −m · (v ×f f), and v ×m v = 0
    assert abs(cross_motion(v, m) @ f + m @ cross_force(v, f)) < TOL
    assert np.allclose(cross_motion(v, v), 0.0, atol=TOL)


@settings(max_examples=60, deadline=None)
@given(rotation, vec3, vec6, vec6, vec6)
def test_cross_products_commute_with_transforms(E, r, v, m, f):
    X = plucker(E, r)
    Xf = force_transform(X)
    assert np.allclose(X @ cross_motion(v, m), cross_motion(X @ v, X @ m), atol=TOL)
    assert np.allclose(Xf @ cross_force(v, f), cross_force(X @ v, Xf @ f), atol=TOL)


@settings(max_examples=60, deadline=None)
@given(positive, vec3, st.lists(positive, min_size=3, max_size=3), quat, rotation, vec3)
def test_inertia_transform_matches_the_inertia_built_in_the_new_frame(m, c, moments, q, E, r):
    Ic = random_inertia(moments, q)
    I_a = spatial_inertia(m, c, Ic)
    # the same body described in frame B = (E, r): centre E (c − r), rotational inertia E Ic Eᵀ
    I_b = spatial_inertia(m, E @ (c - r), E @ Ic @ E.T)
    assert np.allclose(transform_inertia(plucker(E, r), I_a), I_b, atol=TOL)


@settings(max_examples=60, deadline=None)
@given(positive, vec3, st.lists(positive, min_size=3, max_size=3), quat, vec6)
def test_spatial_momentum_and_kinetic_energy_of_a_rigid_body(m, c, moments, q, v):
    Ic = random_inertia(moments, q)
    I = spatial_inertia(m, c, Ic)
    w, v_o = v[:3], v[3:]
    v_c = v_o + np.cross(w, c)                       # velocity of the centre of mass
    momentum = np.concatenate([Ic @ w + np.cross(c, m * v_c), m * v_c])
    assert np.allclose(I @ v, momentum, atol=TOL)
    assert abs(0.5 * v @ I @ v - (0.5 * m * v_c @ v_c + 0.5 * w @ Ic @ w)) < TOL
    assert np.allclose(I, I.T, atol=TOL)
    # Euler's equation for a body moving without acceleration: f = v ×f I v is the gyroscopic load
    assert abs(v @ cross_force(v, I @ v)) < TOL      # it does no work
