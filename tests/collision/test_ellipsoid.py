"""The Ellipsoid shape: mass properties, support mapping, contact with a ground plane, scene files, viewer mesh.

Pairs of an ellipsoid with every other convex shape are checked against the support-function reference in
test_narrow_phase.py; here are the closed forms an ellipsoid has of its own.
"""
import numpy as np
import pytest

import impulsim as ims
from impulsim.collision import Detector
from impulsim.geometry import ConvexHull
from impulsim.geometry.mass import shape_mass_properties
from impulsim.io import scene_from_string
from impulsim.io.shape_meshes import shape_mesh
from impulsim.math import quat_to_matrix
from tests.collision.reference import random_quat

SEMI = np.array([0.3, 0.12, 0.07])


def _surface_points(semi, rings=80, segments=160):
    """Points of the ellipsoid's surface on latitude rings (both poles included)."""
    pts = [(0.0, 0.0, -semi[2]), (0.0, 0.0, semi[2])]
    for k in range(1, rings):
        v = np.pi * k / rings
        for j in range(segments):
            u = 2.0 * np.pi * j / segments
            pts.append((semi[0] * np.cos(u) * np.sin(v), semi[1] * np.sin(u) * np.sin(v), -semi[2] * np.cos(v)))
    return np.array(pts)


def test_mass_properties_match_a_dense_inscribed_hull():
    # the hull of 12,642 surface points is inscribed: its volume is below the ellipsoid's by the polygon
    # sag, ~(π/160)² / 2 ≈ 2e-4 relative per direction; 1e-3 leaves room for both directions
    ell = shape_mass_properties(ims.Ellipsoid(semi_axes=SEMI), 1000.0)
    hull = shape_mass_properties(ConvexHull(points=_surface_points(SEMI)), 1000.0)
    assert ell.mass == pytest.approx(1000.0 * 4.0 / 3.0 * np.pi * SEMI.prod())
    assert hull.mass == pytest.approx(ell.mass, rel=1e-3)
    assert hull.mass < ell.mass
    np.testing.assert_allclose(np.diag(hull.inertia), np.diag(ell.inertia), rtol=2e-3)
    np.testing.assert_allclose(hull.com, 0.0, atol=1e-12)


def test_bad_semi_axes_are_refused_by_name():
    with pytest.raises(ValueError, match="ellipsoid semi-axis"):
        ims.Ellipsoid(semi_axes=(0.1, 0.0, 0.1))
    with pytest.raises(ValueError, match="ellipsoid semi-axes"):
        ims.Ellipsoid(semi_axes=(0.1, 0.2))


@pytest.mark.parametrize("seed", range(20))
def test_distance_to_the_ground_is_the_centre_height_minus_the_reach(seed):
    # the lowest point of an ellipsoid with axes R and semi-axes A lies |A Rᵀ e_z| below its centre, and
    # there its outward normal is −e_z: the contact with z = 0 is exact in closed form
    rng = np.random.default_rng(seed)
    q = random_quat(rng)
    z = rng.uniform(-0.05, 0.3)
    b = ims.ModelBuilder("ground")
    b.add_body("ground", shapes=[ims.HalfSpace()], static=True)
    b.add_body("e", shapes=[ims.Ellipsoid(semi_axes=SEMI)], mass=1.0, position=(0.1, -0.2, z), orientation=q)
    model, state = b.build()
    R = quat_to_matrix(q)
    reach = np.linalg.norm(SEMI * (R.T @ np.array([0.0, 0.0, 1.0])))
    contacts = Detector(model, eps_c=1.0).detect(state)
    assert contacts.count == 1
    assert contacts.distance[0] == pytest.approx(z - reach, abs=1e-12)
    # the touching point is on the ellipsoid's surface, where its normal is vertical
    touching = contacts.point_a[0] if contacts.body_a[0] == model.body("e") else contacts.point_b[0]
    y = R.T @ (touching - np.array([0.1, -0.2, z]))
    assert np.linalg.norm(y / SEMI) == pytest.approx(1.0, abs=1e-12)
    normal_body = y / SEMI ** 2
    np.testing.assert_allclose(np.cross(R @ normal_body, [0.0, 0.0, 1.0]), 0.0, atol=1e-12)


def test_scene_files_and_the_viewer_know_the_ellipsoid():
    scene = scene_from_string("bodies: [{name: e, shapes: [ellipsoid: {semi_axes: [0.3, 0.12, 0.07]}], "
                              "density: 500}]\n", "ellipsoid.yaml")
    assert scene.model.body_inv_mass[1] == pytest.approx(1.0 / (500.0 * 4.0 / 3.0 * np.pi * SEMI.prod()))
    verts, faces = shape_mesh(scene.model, 0)
    np.testing.assert_allclose(np.linalg.norm(verts / SEMI, axis=1), 1.0, atol=1e-12)
    assert faces.max() < len(verts)
