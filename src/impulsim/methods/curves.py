"""Curves and functions of time that drive Wagner's rheonomic constraints (PointToFunction, PointToPath).

A *function of time* is any callable ``f(t) -> (p, ṗ, p̈)`` returning three world 3-vectors [m, m/s, m/s²]
(or [m/s, m/s², m/s³] when it prescribes a velocity). :class:`Polynomial` builds one from coefficients,
like the polynomial strings of Wagner's FctConnector.
"""
from __future__ import annotations

from math import comb

import numpy as np


class Polynomial:
    """f(t) = Σ_k a_k t^k per world axis; ``coefficients`` has shape [degree + 1, 3], a_0 first."""

    def __init__(self, coefficients):
        a = np.atleast_2d(np.asarray(coefficients, float))
        if a.ndim != 2 or a.shape[1] != 3 or not np.all(np.isfinite(a)):
            raise ValueError(f"polynomial coefficients must be finite, shape [degree + 1, 3], got {a.shape}")
        self.a = a

    def __call__(self, t: float):
        k = np.arange(self.a.shape[0], dtype=float)
        powers = t ** np.maximum(k - 2, 0)       # t^(k-2), guarded at k < 2
        p = (t ** k) @ self.a
        v = (k * t ** np.maximum(k - 1, 0) * (k >= 1)) @ self.a
        acc = (k * (k - 1) * powers * (k >= 2)) @ self.a
        return p, v, acc


class BezierCurve:
    """A Bézier curve B(u), u ∈ [0, 1], through its control points (world frame [m], shape [n, 3]).

    Two points give a line, three a quadratic and four a cubic, as in Wagner's curve tool; more points
    raise the degree (n − 1).
    """

    def __init__(self, control_points):
        P = np.asarray(control_points, float)
        if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 2 or not np.all(np.isfinite(P)):
            raise ValueError(f"a Bézier curve needs at least two finite 3-D control points, got shape {P.shape}")
        self.P = P
        self.degree = P.shape[0] - 1
        n = self.degree
        self._d1 = n * np.diff(P, axis=0)
        self._d2 = (n - 1) * np.diff(self._d1, axis=0) if n >= 2 else np.zeros((1, 3))

    @staticmethod
    def _bernstein(points, u):
        n = points.shape[0] - 1
        if n < 0:
            return np.zeros(3)
        w = np.array([comb(n, i) * u ** i * (1.0 - u) ** (n - i) for i in range(n + 1)])
        return w @ points

    def point(self, u: float) -> np.ndarray:
        """B(u) [m]."""
        return self._bernstein(self.P, u)

    def tangent(self, u: float) -> np.ndarray:
        """dB/du [m]."""
        return self._bernstein(self._d1, u)

    def curvature_vector(self, u: float) -> np.ndarray:
        """d²B/du² [m]."""
        return self._bernstein(self._d2, u) if self.degree >= 2 else np.zeros(3)

    def closest_parameter(self, x, u_guess: float | None = None, samples: int = 64) -> float:
        """u minimizing |B(u) − x|: a coarse search (or the guess), refined by Newton's method on
        g(u) = B'(u)·(B(u) − x) = 0, clamped to [0, 1]."""
        x = np.asarray(x, float)
        if u_guess is None:
            grid = np.linspace(0.0, 1.0, samples + 1)
            u = float(grid[np.argmin([np.sum((self.point(g) - x) ** 2) for g in grid])])
        else:
            u = float(u_guess)
        for _ in range(20):
            d = self.point(u) - x
            t = self.tangent(u)
            g = float(t @ d)
            dg = float(t @ t + self.curvature_vector(u) @ d)
            if dg <= 0.0:
                break
            u_new = min(1.0, max(0.0, u - g / dg))
            if abs(u_new - u) < 1e-14:
                u = u_new
                break
            u = u_new
        return u
