"""Plan-view profile line: clothoids, arcs and their joins (eqs. 3.1–3.6)."""
import numpy as np
import pytest

from impulsim.apps.bobsleigh.track import load_track
from impulsim.apps.bobsleigh.track.profile import Curve, ProfileLine, SegmentKind, tangent

JOIN_TOL = 1e-9
"""Heading and curvature agree across a join to rounding of O(1) rad and O(0.1) 1/m values evaluated
at s ± 1e-12 m; 1e-9 leaves room for the Fresnel integrals' own ~1e-15 relative error times a ≈ 40 m."""
LINEAR_TOL = 1e-6
"""Largest deviation of κ(s) from its straight-line fit, relative to the slope 1/A²."""


def _random_profile(seed):
    rng = np.random.default_rng(seed)
    curves, s = [], 10.0
    for k in range(6):
        r = rng.uniform(15, 60)
        l_en, l_circ, l_ex = rng.uniform(3, 30), rng.uniform(0, 40), rng.uniform(3, 30)
        s_b = s + rng.uniform(0, 10)
        s_c = s_b + rng.uniform(0, 5)
        s_e = s_c + l_en + l_circ + l_ex + rng.uniform(0, 5)
        curves.append(Curve(1 if k % 2 else -1, s_b, s_c, l_en, l_en * r, l_circ, r, l_ex, l_ex * r, s_e))
        s = s_e
    return ProfileLine(curves, -20.0, s + 30.0)


@pytest.mark.parametrize("profile", [_random_profile(1), _random_profile(2),
                                     load_track("whistler").profile], ids=["random1", "random2", "whistler"])
def test_curvature_linear_on_clothoids_constant_on_arcs_and_G2_joins(profile):
    for i, kind in enumerate(profile.seg_kind):
        s0, length, c, param = profile.seg_s0[i], profile.seg_len[i], profile.seg_c[i], profile.seg_param[i]
        s = s0 + np.linspace(0, length, 101)
        k = profile.evaluate(s).kappa
        if kind in (SegmentKind.ENTRY_CLOTHOID, SegmentKind.EXIT_CLOTHOID):
            slope = c / param * (1 if kind == SegmentKind.ENTRY_CLOTHOID else -1)
            fit = np.polyfit(s - s0, k, 1)
            assert abs(fit[0] - slope) <= LINEAR_TOL * abs(slope)
            assert np.max(np.abs(np.polyval(fit, s - s0) - k)) <= LINEAR_TOL * abs(slope)
        elif kind == SegmentKind.ARC:
            np.testing.assert_allclose(k, c / param, rtol=0, atol=1e-12)
    for s0 in profile.seg_s0[1:]:
        a = profile.evaluate([s0 - 1e-12, s0 + 1e-12])
        assert np.max(np.abs(a.xy[1] - a.xy[0])) < 1e-9
        assert abs(a.beta[1] - a.beta[0]) < JOIN_TOL
        assert abs(a.kappa[1] - a.kappa[0]) < JOIN_TOL


def test_arcs_lie_on_a_circle_of_radius_r_c():
    profile = _random_profile(3)
    for i in np.nonzero(profile.seg_kind == SegmentKind.ARC)[0]:
        s = profile.seg_s0[i] + np.linspace(0, profile.seg_len[i], 50)
        p = profile.evaluate(s)
        r = profile.seg_param[i]
        centre = p.xy + (profile.seg_c[i] * r) * np.stack([-np.cos(p.beta), -np.sin(p.beta)], 1)
        np.testing.assert_allclose(centre, np.tile(centre[0], (50, 1)), atol=1e-9)
        np.testing.assert_allclose(np.linalg.norm(p.xy - centre[0], axis=1), r, atol=1e-9)


def test_s_is_plan_view_arc_length_and_heading_is_the_tangent():
    profile = _random_profile(4)
    s = np.linspace(profile.s_start, profile.s_end, 400001)
    p = profile.evaluate(s)
    chords = np.diff(p.xy, axis=0)
    length = np.linalg.norm(chords, axis=1)
    # chord of an arc with curvature ≤ 1/15 m over 1 mm is shorter than the arc by < 1e-12 m
    assert abs(length.sum() - (profile.s_end - profile.s_start)) < 1e-6
    mid = 0.5 * (p.beta[1:] + p.beta[:-1])
    assert np.max(np.abs(chords / length[:, None] - tangent(mid))) < 1e-7


def test_left_curve_turns_counter_clockwise():
    p = ProfileLine([Curve(1, 0, 0, 10, 200, 31.4159, 20, 10, 200, 60)], -5, 80)
    end = p.evaluate([80.0])
    assert end.beta[0] == pytest.approx(10 ** 2 / (2 * 200) + 31.4159 / 20 + 10 ** 2 / (2 * 200), abs=1e-12)
    assert end.xy[0, 0] < -20       # heading +y, turning left goes towards −x
