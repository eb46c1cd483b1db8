"""Property tests of the narrow phase for every convex shape pair against the support-function reference.

For each pair of kinds (both orders), random sizes and poses, some apart and some overlapping:
the detector's signed distance d and normal n satisfy s(n) = d and s(u) ≤ d on dense directions (so d
is the exact signed distance, see reference.py); the closest points lie on the surfaces and differ by
d·n; swapping the pair flips n and swaps the points; a common rigid motion changes nothing but the frame.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from impulsim.collision import Detector
from impulsim.geometry import ShapeKind
from impulsim.math import quat_mul, quat_to_matrix
from tests.collision.reference import (WorldShape, fibonacci_sphere, random_quat, separation, shape_of,
                                       two_body_model)

KINDS = [ShapeKind.SPHERE, ShapeKind.BOX, ShapeKind.CYLINDER, ShapeKind.CAPSULE, ShapeKind.CONVEX,
         ShapeKind.ELLIPSOID]
PAIRS = list(itertools.combinations_with_replacement(KINDS, 2))
EPA_PAIRS = {(a, b) for a, b in PAIRS if (ShapeKind.CYLINDER in (a, b) and ShapeKind.SPHERE not in (a, b))
             or ShapeKind.ELLIPSOID in (a, b)}
"""Pairs whose penetration depth comes from EPA. Regression: the polytope used to fold on some deep
penetrations (faces far from the new vertex that saw it by rounding were removed too) and the depth came
out too small, e.g. cylinder–capsule, seed 59, spread 0.625, after a rigid motion."""


def _params(pairs):
    return [pytest.param(a, b, id=f"{a.name.lower()}-{b.name.lower()}") for a, b in pairs]


DIRECTIONS = fibonacci_sphere(4000)

DIST_TOL = 1e-8
"""Distance agreement [m]: SAT may prefer a face axis over an edge axis separating by up to 1e-9 more
(EDGE_BIAS), EPA stops within 1e-10 of the boundary; coordinates are O(1) m, rounding is ~1e-15."""
SURFACE_TOL = 1e-9
"""Closest points must lie on their surfaces within 1e-9 m (the issue's figure)."""
EXAMPLES = settings(max_examples=25, derandomize=True, deadline=None)


def _scene(ka, kb, seed, spread):
    rng = np.random.default_rng(seed)
    sa, sb = shape_of(ka, rng), shape_of(kb, rng)
    pa = np.zeros(3)
    pb = rng.normal(size=3)
    pb *= spread / np.linalg.norm(pb)
    return two_body_model(sa, sb, pa, random_quat(rng), pb, random_quat(rng))


def _check_pair(model, state, prox):
    a, b = WorldShape(model, state, 0), WorldShape(model, state, 1)
    d, n = prox.distance, prox.normal
    assert abs(np.linalg.norm(n) - 1.0) < 1e-12
    assert abs(separation(a, b, n[None, :])[0] - d) < DIST_TOL
    assert np.max(separation(a, b, DIRECTIONS)) <= d + DIST_TOL
    assert abs(a.sdf(prox.point_a)) < SURFACE_TOL
    assert abs(b.sdf(prox.point_b)) < SURFACE_TOL
    np.testing.assert_allclose(prox.point_a - prox.point_b, d * n, atol=DIST_TOL)


@pytest.mark.parametrize("ka,kb", _params(PAIRS))
@EXAMPLES
@given(seed=st.integers(0, 2 ** 31), spread=st.floats(0.0, 3.0))
def test_signed_distance_matches_reference(ka, kb, seed, spread):
    model, state = _scene(ka, kb, seed, spread)
    det = Detector(model)
    _check_pair(model, state, det.distance(state, 0, 1))


def test_separated_curved_pair_witness_points_lie_along_the_normal():
    """Regression (found by the test above): a box and a cylinder 0.5 m apart; GJK's distance and normal had
    converged, its witness points had not (they slid 3e-7 m along the flat-ish closest features)."""
    model, state = _scene(ShapeKind.BOX, ShapeKind.CYLINDER, 323027184, 1.65625)
    _check_pair(model, state, Detector(model).distance(state, 0, 1))


@pytest.mark.parametrize("ka,kb", PAIRS, ids=[f"{a.name.lower()}-{b.name.lower()}" for a, b in PAIRS])
@EXAMPLES
@given(seed=st.integers(0, 2 ** 31), spread=st.floats(0.0, 3.0))
def test_swapping_the_pair_flips_normal_and_swaps_points(ka, kb, seed, spread):
    model, state = _scene(ka, kb, seed, spread)
    det = Detector(model)
    ab, ba = det.distance(state, 0, 1), det.distance(state, 1, 0)
    assert ab.distance == ba.distance
    np.testing.assert_array_equal(ab.normal, -ba.normal)
    np.testing.assert_array_equal(ab.point_a, ba.point_b)
    np.testing.assert_array_equal(ab.point_b, ba.point_a)


@pytest.mark.parametrize("ka,kb", _params(PAIRS))
@EXAMPLES
@given(seed=st.integers(0, 2 ** 31), spread=st.floats(0.0, 3.0))
def test_common_rigid_motion_leaves_distance_unchanged(ka, kb, seed, spread):
    model, state = _scene(ka, kb, seed, spread)
    det = Detector(model)
    before = det.distance(state, 0, 1)
    rng = np.random.default_rng(seed + 1)
    q, t = random_quat(rng), rng.uniform(-10, 10, 3)
    R = quat_to_matrix(q)
    moved = state.copy()
    moved.body_pos[:] = state.body_pos @ R.T + t
    for i in range(model.n_bodies):
        moved.body_quat[i] = quat_mul(q, state.body_quat[i])
    after = det.distance(moved, 0, 1)
    # positions grow to |t| ~ 17 m, so rounding in the transformed coordinates is ~1e-14 relative
    assert abs(after.distance - before.distance) < DIST_TOL
    if before.distance < -DIST_TOL or before.distance > DIST_TOL:
        # the normal is unique unless the shapes just touch (then any supporting direction is right)
        _check_pair(model, moved, after)


def _boxes(pos_b, quat_b=(1, 0, 0, 0), size_a=(1, 1, 1), size_b=(1, 1, 1)):
    import impulsim as ims
    return two_body_model(ims.Box(size=size_a), ims.Box(size=size_b), (0, 0, 0), (1, 0, 0, 0), pos_b, quat_b)


def test_parallel_faces_give_exact_gap():
    model, state = _boxes((0.3, 0.2, 1.25))
    prox = Detector(model).distance(state, 0, 1)
    assert abs(prox.distance - 0.25) < DIST_TOL
    np.testing.assert_allclose(prox.normal, (0, 0, -1), atol=1e-12)


def test_coincident_centres_give_the_smallest_half_extent_as_depth():
    import impulsim as ims
    model, state = two_body_model(ims.Box(size=(1, 2, 3)), ims.Box(size=(1, 2, 3)), (0, 0, 0), (1, 0, 0, 0),
                                  (0, 0, 0), (1, 0, 0, 0))
    prox = Detector(model).distance(state, 0, 1)
    assert abs(prox.distance + 1.0) < DIST_TOL     # separate along x: 0.5 + 0.5
    assert abs(abs(prox.normal[0]) - 1.0) < 1e-12
    model, state = two_body_model(ims.Sphere(radius=0.5), ims.Sphere(radius=0.25), (0, 0, 0), (1, 0, 0, 0),
                                  (0, 0, 0), (1, 0, 0, 0))
    prox = Detector(model).distance(state, 0, 1)
    assert abs(prox.distance + 0.75) < DIST_TOL
    assert abs(np.linalg.norm(prox.normal) - 1.0) < 1e-12


def test_edge_on_edge_crossed_boxes():
    # B turned 45° about x and about z, lowered onto A's top edge along y: its lowest edge crosses it
    qx = np.array([np.cos(np.pi / 8), np.sin(np.pi / 8), 0, 0])
    qz = np.array([np.cos(np.pi / 8), 0, 0, np.sin(np.pi / 8)])
    qa = qx
    qb = quat_mul(qz, qx)
    import impulsim as ims
    h = 0.5 * np.sqrt(2)
    gap = 0.1
    model, state = two_body_model(ims.Box(size=(1, 1, 1)), ims.Box(size=(1, 1, 1)), (0, 0, 0), qa,
                                  (0, 0, 2 * h + gap), qb)
    prox = Detector(model).distance(state, 0, 1)
    assert abs(prox.distance - gap) < DIST_TOL
    np.testing.assert_allclose(prox.normal, (0, 0, -1), atol=1e-9)
    np.testing.assert_allclose(prox.point_a, (0, 0, h), atol=1e-9)


@pytest.mark.parametrize("ka,kb", _params(sorted(EPA_PAIRS)))
def test_epa_depth_is_exact_on_deep_penetrations(ka, kb):
    """Regression for the folding polytope: 40 scenes per EPA pair with the centres at most 0.6 m apart,
    so most overlap deeply; every depth must be the reference's (see _check_pair)."""
    deep = 0
    for seed in range(40):
        model, state = _scene(ka, kb, 7000 + seed, 0.6 * (seed % 5) / 4)
        prox = Detector(model).distance(state, 0, 1)
        _check_pair(model, state, prox)
        deep += prox.distance < -0.1
    assert deep >= 20


def test_distance_queries_compile_one_version_for_models_of_any_kinds():
    """A model of spheres, boxes and capsules only has a narrow phase without the other kinds' code, but its
    distance queries share the one ``pair_distance`` of every kind (about 20 s of CPU on an empty cache
    each, and the same answers)."""
    from impulsim.collision.pairs import pair_distance
    versions = []
    for ka, kb in ((ShapeKind.SPHERE, ShapeKind.BOX), (ShapeKind.SPHERE, ShapeKind.CYLINDER)):
        model, state = _scene(ka, kb, 5, 0.8)
        det = Detector(model)
        assert (det.ws.all_kinds is None) == (kb == ShapeKind.BOX)
        _check_pair(model, state, det.distance(state, 0, 1))
        versions.append(len(pair_distance.signatures))
    assert versions[1] == versions[0] >= 1
