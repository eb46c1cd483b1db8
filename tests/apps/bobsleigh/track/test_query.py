"""Where a point is on the track: (s, b, h) of eqs. 7.1–7.2, and curve indices."""
import numpy as np
import pytest

from impulsim.apps.bobsleigh.track import load_track

QUERY_TOL = 1e-6
"""Newton on the analytic profile converges quadratically from within 0.25 m; six steps reach rounding
(~1e-12 m), 1e-6 m is the required accuracy."""


@pytest.fixture(scope="module", params=["test_chute", "whistler"])
def track(request):
    return load_track(request.param)


def test_section_coordinates_round_trip(track):
    rng = np.random.default_rng(5)
    n = 5000
    s = rng.uniform(track.s_min + 1, track.s_max - 1, n)
    b, h = rng.uniform(-1.2, 1.2, n), rng.uniform(-0.3, 2.5, n)
    origin, _, lat, up = track.frame(s)
    q = origin + b[:, None] * lat + h[:, None] * up
    s2, b2, h2 = track.project(q)
    assert np.max(np.abs(s2 - s)) < QUERY_TOL
    assert np.max(np.abs(b2 - b)) < QUERY_TOL
    assert np.max(np.abs(h2 - h)) < QUERY_TOL


def test_perpendicular_projection_finds_the_nearest_centre_line_point(track):
    rng = np.random.default_rng(6)
    n = 3000
    s = rng.uniform(track.s_min + 2, track.s_max - 2, n)
    origin, t, lat, up = track.frame(s)
    normal = np.cross(t, lat)                          # in the 3-D normal plane, perpendicular to lat
    u, v = rng.uniform(-1.0, 1.0, n), rng.uniform(-0.3, 1.5, n)
    q = origin + u[:, None] * lat + v[:, None] * normal
    s2, b2, h2 = track.project(q, mode="perpendicular")
    assert np.max(np.abs(s2 - s)) < QUERY_TOL
    # eqs. 7.1–7.2: b along the horizontal lateral, h vertical
    assert np.max(np.abs(b2 - u)) < QUERY_TOL
    assert np.max(np.abs(h2 - v * normal[:, 2])) < QUERY_TOL
    # and it is the nearest point: no sample of the centre line within ±3 m is closer
    c = track.centerline(s2)
    d = np.linalg.norm(q - c, axis=1)
    for ds in np.linspace(-3, 3, 61):
        other = track.centerline(np.clip(s2 + ds, track.s_min, track.s_max))
        assert np.all(np.linalg.norm(q - other, axis=1) >= d - 1e-9)


def test_curve_index():
    t = load_track("test_chute")
    np.testing.assert_array_equal(t.curve_index([0, 29.9, 30, 50, 69.9, 70, 72, 75, 100, 124.9, 125, 170]),
                                  [-1, -1, 0, 0, 0, -1, -1, 1, 1, 1, -1, -1])
