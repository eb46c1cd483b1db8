"""Mass properties of closed meshes (Mirtich) against closed forms and an independent tetrahedron sum;
convex hull topology; BVH queries against brute force; clear errors for shapes without volume."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import impulsim as ims
from impulsim.errors import ModelError
from impulsim.geometry import ConvexHull, HalfSpace, TriangleMesh, convex_hull, mesh_mass_properties
from impulsim.geometry.bvh import build_bvh, bvh_query_box

REL_TOL = 1e-12
"""Mirtich's integrals are exact for polyhedra; sums of O(100) terms of O(1) lose ~1e-14 relative."""


def _box_mesh(a, b, c):
    pts = np.array([[x, y, z] for x in (0, a) for y in (0, b) for z in (0, c)], float)
    hull = convex_hull(pts)
    return hull.vertices, hull.triangles


def test_box_mesh_mass_properties_match_closed_form():
    v, t = _box_mesh(1.0, 2.0, 3.0)
    p = mesh_mass_properties(v + (5, -1, 2), t, density=7.0)
    m = 7.0 * 6.0
    assert abs(p.mass - m) < REL_TOL * m
    np.testing.assert_allclose(p.com, (5.5, 0.0, 3.5), rtol=0, atol=1e-12)
    want = np.diag([m * (4 + 9) / 12, m * (1 + 9) / 12, m * (1 + 4) / 12])
    np.testing.assert_allclose(p.inertia, want, rtol=0, atol=REL_TOL * m * 10)


def _tetra_sum(v, t, density):
    """Independent reference: signed tetrahedra from the origin, with the covariance formula
    C = V/20 (Σ x_i x_iᵀ + (Σ x_i)(Σ x_i)ᵀ) over the tetrahedron's 4 corners (one at 0)."""
    mass, first, cov = 0.0, np.zeros(3), np.zeros((3, 3))
    for tri in t:
        p = v[tri]
        vol = np.dot(p[0], np.cross(p[1], p[2])) / 6.0
        s = p.sum(axis=0)
        mass += density * vol
        first += density * vol * s / 4.0
        cov += density * vol / 20.0 * (p.T @ p + np.outer(s, s))
    com = first / mass
    cov -= mass * np.outer(com, com)
    return mass, com, np.trace(cov) * np.eye(3) - cov


@settings(max_examples=30, derandomize=True, deadline=None)
@given(seed=st.integers(0, 2 ** 31))
def test_random_hull_mass_properties_match_tetrahedron_sum(seed):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(int(rng.integers(4, 40)), 3)) * rng.uniform(0.1, 3.0, 3) + rng.normal(size=3)
    hull = convex_hull(pts)
    p = mesh_mass_properties(hull.vertices, hull.triangles, density=3.0)
    m, com, inertia = _tetra_sum(hull.vertices, hull.triangles, 3.0)
    assert abs(p.mass - m) <= 1e-10 * m
    np.testing.assert_allclose(p.com, com, atol=1e-10 * np.abs(pts).max())
    np.testing.assert_allclose(p.inertia, inertia, atol=1e-9 * np.abs(inertia).max())


def test_hull_faces_are_merged_polygons_with_outward_normals():
    v, _ = _box_mesh(1, 1, 1)
    hull = convex_hull(v)
    assert len(hull.face_start) - 1 == 6 and len(hull.edges) == 12
    centre = hull.vertices.mean(axis=0)
    for f in range(6):
        loop = hull.face_verts[hull.face_start[f]:hull.face_start[f + 1]]
        assert len(loop) == 4
        n = hull.face_normal[f]
        assert np.dot(n, hull.vertices[loop[0]] - centre) > 0
        # counter-clockwise seen from outside: consecutive edge cross products point along n
        p = hull.vertices[loop]
        assert np.dot(np.cross(p[1] - p[0], p[2] - p[1]), n) > 0


@settings(max_examples=20, derandomize=True, deadline=None)
@given(seed=st.integers(0, 2 ** 31))
def test_bvh_query_returns_every_triangle_whose_box_overlaps(seed):
    rng = np.random.default_rng(seed)
    v = rng.uniform(-10, 10, (300, 3))
    t = rng.integers(0, 300, (500, 3))
    bvh = build_bvh(v, t)
    lo = rng.uniform(-10, 8, 3)
    hi = lo + rng.uniform(0.1, 6, 3)
    out = np.zeros(600, np.int64)
    n = bvh_query_box(*bvh, lo, hi, np.zeros(128, np.int64), out)
    found = set(out[:n].tolist())
    tri_lo, tri_hi = v[t].min(axis=1), v[t].max(axis=1)
    overlap = np.all(tri_lo <= hi, axis=1) & np.all(tri_hi >= lo, axis=1)
    assert set(np.nonzero(overlap)[0].tolist()) <= found
    assert len(found) == n                                  # no triangle twice


def test_shapes_without_volume_raise_model_errors():
    with pytest.raises(ModelError, match="HalfSpace has no volume"):
        b = ims.ModelBuilder()
        b.add_body("plate", shapes=[HalfSpace()])
        b.build()
    open_mesh = TriangleMesh(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles=[[0, 1, 2]])
    assert not open_mesh.closed
    with pytest.raises(ModelError, match="not closed"):
        b = ims.ModelBuilder()
        b.add_body("sheet", shapes=[open_mesh])
        b.build()
    with pytest.raises(ModelError, match="coplanar"):
        ConvexHull(points=[[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    with pytest.raises(ModelError, match="outside"):
        TriangleMesh(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles=[[0, 1, 3]])


def test_body_takes_mass_and_inertia_from_its_closed_mesh():
    v, t = _box_mesh(0.5, 1.0, 2.0)
    b = ims.ModelBuilder()
    b.add_body("brick", shapes=[TriangleMesh(vertices=v, triangles=t)], density=2.0)
    model, state = b.build()
    m = 2.0 * 1.0
    assert abs(model.body_mass[1] - m) < REL_TOL * m
    np.testing.assert_allclose(sorted(model.body_inertia[1]),
                               sorted([m * (1 + 4) / 12, m * (0.25 + 4) / 12, m * (0.25 + 1) / 12]),
                               rtol=1e-12)
    np.testing.assert_allclose(state.body_pos[1], (0.25, 0.5, 1.0), atol=1e-12)
