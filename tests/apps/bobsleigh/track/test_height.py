"""Height profile: constant slopes joined by circular vertical curves (eqs. 3.8–3.9)."""
import numpy as np
import pytest

from impulsim.apps.bobsleigh.track import load_track
from impulsim.apps.bobsleigh.track.height import HeightProfile, Station


def _profiles():
    yield load_track("whistler").height
    yield load_track("sanki").height
    rng = np.random.default_rng(7)
    stations, s, m = [], 0.0, -0.05
    for _ in range(12):
        s += rng.uniform(60, 120)
        m_new = m + rng.choice([-1, 1]) * rng.uniform(0.02, 0.1)
        stations.append(Station(s, m, m_new, np.sign(m_new - m) * rng.uniform(100, 400)))
        m = m_new
    yield HeightProfile(-10.0, 50.0, stations)


@pytest.mark.parametrize("hp", list(_profiles()), ids=["whistler", "sanki", "random"])
def test_slope_continuous_and_vertical_curves_circular(hp):
    for g in hp.segments:
        for s in (g.s_c, g.s_e):
            h, m = hp.evaluate([s - 1e-9, s + 1e-9])
            assert abs(h[1] - h[0]) < 1e-8                 # |m| < 1 over 2e-9 m
            assert abs(m[1] - m[0]) < 1e-6                 # |dm/ds| = 1/|r_h| cos³α ≤ 0.01 1/m over 2e-9 m, plus rounding
        cs, ch = g.centre
        s = np.linspace(g.s_c, g.s_e, 64)
        h, m = hp.evaluate(s)
        np.testing.assert_allclose(np.hypot(s - cs, h - ch), abs(g.r_h), rtol=0, atol=1e-9)
        # the slope at the ends is the stated slope in and out
        _, m_ends = hp.evaluate([g.s_c, g.s_e])
        assert m_ends[0] == pytest.approx(g.m_en, abs=1e-9)
        assert m_ends[1] == pytest.approx(g.m_ex, abs=1e-7)


def test_slope_is_the_derivative_of_height():
    hp = next(_profiles())
    s = np.linspace(-50, 1500, 20001)
    h, m = hp.evaluate(s)
    eps = 1e-5
    hp_, _ = hp.evaluate(s + eps)
    hm_, _ = hp.evaluate(s - eps)
    assert np.max(np.abs((hp_ - hm_) / (2 * eps) - m)) < 1e-5
