"""Where a world point is on the track: station s, lateral offset b and height h (Rempfler 2015, eqs. 7.1–7.2).

A k-d tree over the discrete track profile (every 0.5 m, in 3-D so that levels of a track crossing
itself in plan view stay apart) gives a first station; Newton steps on the analytic profile line then
solve for s. b = (q − c(s)) · n(β(s)) (horizontal, positive to the left) and h = (q − c(s)) · e_z.
"""
from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from impulsim.apps.bobsleigh.track.profile import left, tangent

NEWTON_STEPS = 3
"""Analytic Newton steps. The first step is taken on the stored sample (position, heading, curvature of
the nearest of the 0.5 m samples, no evaluation), which leaves an error of order κ' δ³ ≈ 1e-4 m; each
analytic step then squares the relative error: 1e-4 → 1e-9 → rounding on curves of radius ≥ 10 m."""
MODES = ("section", "perpendicular")


class Projector:
    """Nearest-station queries against one track; see the module docstring."""

    def __init__(self, track, ds: float = 0.5):
        self.track = track
        self.s_samples = track.stations(ds)
        self.samples = track.profile.evaluate(self.s_samples)
        self.tree = cKDTree(track.centerline(self.s_samples))

    def project(self, points, mode: str = "section"):
        """(s, b, h) arrays [N] for world points [N, 3] (or one point [3]); see :meth:`Track.project`."""
        if mode not in MODES:
            raise ValueError(f"project: mode must be one of {', '.join(MODES)}, got {mode!r}")
        q = np.atleast_2d(np.asarray(points, float))
        _, idx = self.tree.query(q)
        s = self.s_samples[idx] - self._sample_step(idx, q)
        step = self._section_step if mode == "section" else self._perpendicular_step
        for _ in range(NEWTON_STEPS):
            s = np.clip(s - step(s, q), self.track.s_min, self.track.s_max)
        p = self.track.profile.evaluate(s)
        h_c, _ = self.track.height.evaluate(s)
        d_xy = q[:, :2] - p.xy
        b = np.einsum("ij,ij->i", d_xy, left(p.beta))
        return s, b, q[:, 2] - h_c

    def _sample_step(self, idx, q):
        """Newton step of the section condition on the stored samples (no evaluation of the profile)."""
        xy, beta, kappa = self.samples.xy[idx], self.samples.beta[idx], self.samples.kappa[idx]
        d = xy - q[:, :2]
        return np.einsum("ij,ij->i", d, tangent(beta)) / (1.0 + kappa * np.einsum("ij,ij->i", d, left(beta)))

    def _section_step(self, s, q):
        """Newton step for f(s) = (p(s) − q) · t(s) = 0 (q in the vertical section plane at s)."""
        p = self.track.profile.evaluate(s)
        d = p.xy - q[:, :2]
        f = np.einsum("ij,ij->i", d, tangent(p.beta))
        df = 1.0 + p.kappa * np.einsum("ij,ij->i", d, left(p.beta))     # t·t + (p − q)·κ n
        return f / df

    def _perpendicular_step(self, s, q):
        """Newton step for g(s) = (c(s) − q) · c'(s) = 0 (nearest point of the 3-D centre line)."""
        p = self.track.profile.evaluate(s)
        h, m = self.track.height.evaluate(s)
        eps = 1e-4
        _, m2 = self.track.height.evaluate(np.concatenate([s - eps, s + eps]))
        dm = (m2[len(s):] - m2[:len(s)]) / (2 * eps)                     # h''(s)
        t, n = tangent(p.beta), left(p.beta)
        d_xy, d_z = p.xy - q[:, :2], h - q[:, 2]
        g = np.einsum("ij,ij->i", d_xy, t) + d_z * m
        dg = 1.0 + m * m + p.kappa * np.einsum("ij,ij->i", d_xy, n) + d_z * dm
        return g / dg
