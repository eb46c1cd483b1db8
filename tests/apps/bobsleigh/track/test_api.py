"""The Track API the bob is built against: shapes, frames and their relations."""
import numpy as np

import impulsim as ims
from impulsim.apps.bobsleigh.track import Track, load_track


def test_frame_is_consistent_with_the_centre_line():
    t = load_track("whistler")
    s = np.linspace(t.s_min + 1, t.s_max - 1, 997)
    origin, tangent, lateral, up = t.frame(s)
    for a in (origin, tangent, lateral, up):
        assert a.shape == (len(s), 3)
    np.testing.assert_allclose(origin, t.centerline(s), atol=0)
    for a in (tangent, lateral, up):
        np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.einsum("ij,ij->i", tangent, lateral), 0.0, atol=1e-12)
    np.testing.assert_allclose(lateral[:, 2], 0.0, atol=0)
    np.testing.assert_allclose(up, np.tile([0, 0, 1.0], (len(s), 1)))
    # the tangent is the derivative of the centre line
    eps = 1e-5
    d = (t.centerline(s + eps) - t.centerline(s - eps)) / (2 * eps)
    np.testing.assert_allclose(tangent, d / np.linalg.norm(d, axis=1)[:, None], atol=1e-7)
    # lateral points to the left: turning left (κ > 0) the centre of curvature lies along +lateral
    k = t.curvature(s)
    ahead = t.centerline(s + 1.0) - origin
    sel = np.abs(k) > 1e-3
    assert np.all(np.sign(np.einsum("ij,ij->i", ahead, lateral)[sel]) == np.sign(k[sel]))


def test_api_types_and_sizes():
    t = load_track("test_chute")
    assert isinstance(t, Track)
    assert t.start_s == 0.0 and t.finish_s == 150.0 and t.length == 150.0
    v, tri = t.mesh()
    assert v.dtype == np.float64 and tri.dtype == np.int64 and v.shape[1] == 3 and tri.shape[1] == 3
    shape = t.triangle_mesh()
    assert isinstance(shape, ims.TriangleMesh) and len(shape.triangles) == len(tri)
    pts = t.section_points(100.0, 29)
    assert pts.shape == (29, 3)
    s, b, h = t.project(pts)
    np.testing.assert_allclose(s, 100.0, atol=1e-9)
    assert b[0] > 0 > b[-1]
