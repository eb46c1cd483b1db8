"""Cross-sections: exact arcs and ellipse as rational quadratic curves, points 0–7 of eq. 3.11, G1 joins."""
import math

import numpy as np
import pytest

from impulsim.apps.bobsleigh.track import load_track
from impulsim.apps.bobsleigh.track import section as sec

ON_CURVE_TOL = 1e-9
"""Points of an exact conic representation lie on the conic to rounding (~1e-15 m at 1 m); 1e-9 m."""

STRAIGHT = sec.DesignSection(0.95, 0.30, 0.45, 0.15, 1.05, 0.0, 0.0, 0.0, 0.30, 0.80, 0.50, 0.15, 90.0)
CURVE = sec.DesignSection(0.60, 0.30, 0.45, 0.35, 1.90, 1.70, 1.15, 0.40, 1.00, 2.2, 0.60, 0.30, 62.0)
BY_AT = sec.DesignSection(0.60, 0.25, 0.50, 0.30, 2.10, 1.40, 0.20, 0.35, 0.80, 1.8, 0.40, 0.25, 70.0)


def _random_designs(n, seed=11):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        b, a = rng.uniform(1.2, 2.5), rng.uniform(1.0, 2.5)
        bt = rng.uniform(0.3, 0.8) * b
        yield sec.DesignSection(rng.uniform(0.3, 1.2), rng.uniform(0.1, 0.5), rng.uniform(0.2, 0.8),
                                rng.uniform(0, 0.5), b, a, bt, 0.3, rng.uniform(0.5, 2.0), rng.uniform(0.5, 2.5),
                                rng.uniform(0.3, 1.0), rng.uniform(0.05, 0.25), rng.uniform(55, 85))


DESIGNS = [STRAIGHT, CURVE, BY_AT] + list(_random_designs(20))


def _dims(design):
    return sec.reconstruct(design, math.radians(design.eps1))


def _segment_points(curve, k, n=41):
    u = k + np.linspace(0, 1, n)
    return sec.evaluate(curve.points, curve.weights, u)


@pytest.mark.parametrize("c", [1, -1])
@pytest.mark.parametrize("design", DESIGNS)
def test_arcs_on_their_circles_and_ellipse_on_its_ellipse(design, c):
    d = _dims(design)
    curve = sec.section_curve(d, c)
    p = sec.boundary_points(d, c)
    mirror = np.array([c, 1.0])
    centres = {1: np.array([-c * d.l_B, d.r_0]),
               4: p[4] + d.r_1 * np.array([-math.sin(d.eps0), math.cos(d.eps0)]) * mirror,
               6: p[6] + d.r_2 * np.array([-math.sin(d.eps), math.cos(d.eps)]) * mirror}
    radii = {1: d.r_0, 4: d.r_1, 6: d.r_2}
    for k, centre in centres.items():
        q = _segment_points(curve, k)
        assert np.max(np.abs(np.linalg.norm(q - centre, axis=1) - radii[k])) < ON_CURVE_TOL
    q = _segment_points(curve, 3)
    if d.degenerate:
        assert np.max(np.abs(q[:, 1])) < ON_CURVE_TOL
    else:
        # x²/b² + (y − a)²/a² = 1, as a distance: residual times the smaller semi-axis
        resid = (q[:, 0] / d.b) ** 2 + ((q[:, 1] - d.a) / d.a) ** 2 - 1
        assert np.max(np.abs(resid)) * min(d.a, d.b) < ON_CURVE_TOL
    for k in (0, 2, 5):                    # straights: collinear with their ends
        q = _segment_points(curve, k)
        e = p[k + 1] - p[k]
        cross = e[0] * (q[:, 1] - p[k, 1]) - e[1] * (q[:, 0] - p[k, 0])
        assert np.max(np.abs(cross)) / np.linalg.norm(e) < ON_CURVE_TOL


@pytest.mark.parametrize("design", [CURVE, BY_AT])
def test_points_0_to_7_where_eq_3_11_puts_them(design):
    d = _dims(design)
    c = 1
    curve = sec.section_curve(d, c)
    ends = sec.evaluate(curve.points, curve.weights, np.arange(8.0))
    th, e = d.theta, d.eps
    dx1 = d.r_1 * (math.cos(e) * math.sin(th) + math.sin(e) * (1 - math.cos(th)))
    dx2 = dx1 + d.h_Z / math.tan(e)
    dx3 = dx2 - d.r_2 * math.sin(e) + math.sqrt(d.r_2 ** 2 * math.sin(e) ** 2
                                                 + 2 * d.r_2 * d.h_2 * math.cos(e) - d.h_2 ** 2)
    want = [(-(d.l_B + d.r_0), d.r_0 + d.h_W), (-(d.l_B + d.r_0), d.r_0), (-d.l_B, 0), (0, 0),
            (d.b_T, d.a_T), (d.b_T + dx1, d.a_T + d.h_1), (d.b_T + dx2, d.a_T + d.h_1 + d.h_Z),
            (d.b_T + dx3, d.a_T + d.h_1 + d.h_Z + d.h_2)]
    np.testing.assert_allclose(ends, want, atol=1e-12)
    # point 4 on the ellipse, and the recomputed a_T / b_T agree with the design value given
    assert (d.b_T / d.b) ** 2 + ((d.a_T - d.a) / d.a) ** 2 == pytest.approx(1.0, abs=1e-12)
    if design.BT > design.AT:
        assert d.b_T == design.BT
    else:
        assert d.a_T == design.AT


@pytest.mark.parametrize("design", DESIGNS)
def test_section_is_G1_at_every_join(design):
    """Every join of the seven pieces is smooth in the geometry (wall→arc→floor→ellipse→arc→straight→arc):
    the end tangent of one piece (towards its last control point) and the start tangent of the next agree."""
    curve = sec.section_curve(_dims(design), 1)
    P = curve.points
    for k in range(1, sec.N_SEGMENTS):
        t_in = P[2 * k] - P[2 * k - 1]
        t_out = P[2 * k + 1] - P[2 * k]
        t_in, t_out = t_in / np.linalg.norm(t_in), t_out / np.linalg.norm(t_out)
        assert abs(t_in[0] * t_out[1] - t_in[1] * t_out[0]) < 1e-9, k
        assert t_in @ t_out > 0


def test_placed_section_has_its_floor_on_the_centre_line_and_walls_up():
    track = load_track("test_chute")
    for s in (5.0, 50.0, 100.0):
        pts = track.section_points(s, 71)
        origin, _, lat, up = track.frame([s])
        rel = pts - origin[0]
        b, h = rel @ lat[0], rel @ up[0]
        # the section lies in the vertical plane through c(s) perpendicular to the plan tangent
        t_plan = np.cross(up[0], lat[0])
        assert np.max(np.abs(rel @ t_plan)) < 1e-9
        assert b[0] > 0 > b[-1]                       # from the left edge to the right edge
        floor = np.argmin(np.abs(b))
        assert abs(h[floor]) < 0.35                   # the centre line runs near the floor
        assert h[0] > 0.9 and h[-1] > 0.9             # both walls rise
        if s == 50.0:                                 # in the left curve C1 the outer (right) wall is higher
            assert h[-1] > h[0] + 1.0
        if s == 100.0:                                # in the right curve C2 the outer (left) wall is higher
            assert h[0] > h[-1] + 1.0
