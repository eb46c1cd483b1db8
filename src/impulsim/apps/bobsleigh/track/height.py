"""The height profile h(s): constant slopes joined by circular vertical curves (Rempfler 2015, eqs. 3.8–3.9).

h is the height [m] of the centre line over the plan-view arc length s [m]; slopes m = dh/ds are
dimensionless (the design data give the grade in percent, m = −grade/100). Each :class:`Station` is
where two extrapolated constant-slope pieces meet; a circular arc of signed radius r_h (> 0 where the
slope increases, a sag; < 0 where it decreases, a crest) joins them tangentially.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Station:
    """A vertical intersection: station s_m [m], slopes in and out [-], signed radius r_h [m]."""
    s_m: float
    m_en: float
    m_ex: float
    r_h: float


@dataclass(frozen=True)
class VerticalCurve:
    """One segment of eq. 3.8: straight from (s_b, h_b) to (s_c, h_c), arc to (s_e, h_e)."""
    s_b: float
    h_b: float
    s_c: float
    h_c: float
    s_e: float
    h_e: float
    m_en: float
    m_ex: float
    r_h: float

    @property
    def centre(self) -> tuple[float, float]:
        """Centre (s, h) of the circular part [m]: r_h along the upward normal of the entry slope."""
        a = np.arctan2(self.m_en, 1.0)
        return self.s_c - self.r_h * np.sin(a), self.h_c + self.r_h * np.cos(a)


def vertical_curve(s_b: float, h_b: float, st: Station) -> VerticalCurve:
    """Eq. 3.8: tangent points of the vertical curve at station ``st`` for a segment starting at (s_b, h_b)."""
    h_m = h_b + st.m_en * (st.s_m - s_b)
    a_en, a_ex = np.arctan2(st.m_en, 1.0), np.arctan2(st.m_ex, 1.0)
    # tangent length; the thesis's |r_h| tan(θ/2) is negative on crests (θ < 0), which would put the
    # arc's start after s_m: its magnitude is the distance on both sides
    d = abs(abs(st.r_h) * np.tan(0.5 * (a_ex - a_en)))
    return VerticalCurve(s_b, h_b, st.s_m - d * np.cos(a_en), h_m - d * np.sin(a_en),
                         st.s_m + d * np.cos(a_ex), h_m + d * np.sin(a_ex), st.m_en, st.m_ex, st.r_h)


class HeightProfile:
    """h(s) from a start point (s°, h°) and stations; vectorized evaluation of height and slope."""

    def __init__(self, s0: float, h0: float, stations: list[Station]):
        self.s0, self.h0 = float(s0), float(h0)
        self.stations = list(stations)
        self.segments: list[VerticalCurve] = []
        s_b, h_b = self.s0, self.h0
        for st in self.stations:
            seg = vertical_curve(s_b, h_b, st)
            self.segments.append(seg)
            s_b, h_b = seg.s_e, seg.h_e
        self._s_b = np.array([g.s_b for g in self.segments])
        self._m_first = self.stations[0].m_en if self.stations else 0.0

    def evaluate(self, s) -> tuple[np.ndarray, np.ndarray]:
        """Height h [m] and slope dh/ds [-] at ``s`` [m] (flattened). Before s° the first slope goes on;
        after the last vertical curve its exit slope goes on (the run-out)."""
        s = np.atleast_1d(np.asarray(s, float)).ravel()
        h, m = self.h0 + self._m_first * (s - self.s0), np.full(len(s), self._m_first)
        if not self.segments:
            return h, m
        i = np.clip(np.searchsorted(self._s_b, s, side="right") - 1, 0, len(self.segments) - 1)
        i = np.where(s >= self.s0, i, -1)                  # before s°: the first slope goes on
        for k in np.unique(i[i >= 0]):
            sel = i == k
            h[sel], m[sel] = _segment(self.segments[k], s[sel], last=k == len(self.segments) - 1)
        return h, m


def _segment(g: VerticalCurve, s: np.ndarray, last: bool) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 3.9 on one segment (and the run-out beyond the last one)."""
    h = g.h_b + g.m_en * (s - g.s_b)
    m = np.full(len(s), g.m_en)
    arc = s > g.s_c
    if np.any(arc):
        a_en = np.arctan2(g.m_en, 1.0)
        x = np.minimum(s[arc], g.s_e) - g.s_c
        rc = g.r_h * np.cos(a_en)
        root = np.sqrt(np.maximum(rc * rc - 2 * g.r_h * np.sin(a_en) * x - x * x, 0.0))
        h[arc] = g.h_c + rc - np.sign(g.r_h) * root            # Δh(s) of eq. 3.9
        m[arc] = np.sign(g.r_h) * (g.r_h * np.sin(a_en) + x) / np.where(root > 0, root, np.inf)
    if last:
        out = s > g.s_e
        h[out] = g.h_e + g.m_ex * (s[out] - g.s_e)
        m[out] = g.m_ex
    return h, m
