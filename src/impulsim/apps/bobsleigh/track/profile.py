"""The plan view of the track: the profile line p(s) built from curves (Rempfler 2015, eqs. 3.1–3.7).

Every curve is straight → entry clothoid → circular arc → exit clothoid → straight, given by the ten
design values of :class:`Curve`. The line lies in the world's x–y plane (z up). ``s`` is the arc length
of the plan-view line [m]; the timing starts at s = 0, which is the world origin when the line starts
with a straight. The heading β(s) [rad] is measured counter-clockwise about +z from the +y axis, so the
line starts along +y; the unit tangent is t(β) = (−sin β, cos β, 0) and the unit vector to the left of
travel is n(β) = (−cos β, −sin β, 0).

Coordinates. The thesis models the track y-up with the start along −z; its (x, y, z) is the world's
(x, z, −y) here, so every equation keeps its form: e_z^P becomes t(β), e_x^P becomes n(β).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.special import fresnel

LEFT, RIGHT = 1, -1
"""Values of a curve's turning direction c (left turn: counter-clockwise seen from above)."""


class SegmentKind(enum.IntEnum):
    """Kinds of profile-line segments."""
    STRAIGHT = 0
    ENTRY_CLOTHOID = 1
    ARC = 2
    EXIT_CLOTHOID = 3


@dataclass(frozen=True)
class Curve:
    """The ten design values of one curve [m, m²] (thesis §3.1.1).

    ``c`` is +1 for a left and −1 for a right curve; ``s_b`` is where the curve begins, ``s_c`` where its
    entry clothoid begins (entry straight l_s,en = s_c − s_b), ``s_e`` where it ends (the exit straight
    fills up to it). ``A2_en`` = l_cl,en · r_c and ``A2_ex`` = l_cl,ex · r_c are the clothoid parameters
    A²; they are checked against the product by the file reader and must equal it (G2 join).
    """
    c: int
    s_b: float
    s_c: float
    l_cl_en: float
    A2_en: float
    l_circ: float
    r_c: float
    l_cl_ex: float
    A2_ex: float
    s_e: float

    @property
    def s_curved_end(self) -> float:
        """Where the exit clothoid ends and the exit straight begins [m]."""
        return self.s_c + self.l_cl_en + self.l_circ + self.l_cl_ex

    @property
    def turn(self) -> float:
        """Signed change of heading over the curve [rad] (positive: left)."""
        return self.c * (self.l_cl_en ** 2 / (2 * self.A2_en) + self.l_circ / self.r_c
                         + self.l_cl_ex ** 2 / (2 * self.A2_ex))


class ProfilePoints(NamedTuple):
    """Points of the profile line: position [N, 2] (x, y), heading β [N] rad, signed curvature κ [N] 1/m."""
    xy: np.ndarray
    beta: np.ndarray
    kappa: np.ndarray


class ProfileLine:
    """The profile line p(s) of a list of curves, from ``s_start`` (reference point, p = (0, s_start))
    to ``s_end``; straights fill the gaps between curves. Evaluation is vectorized over s."""

    def __init__(self, curves: list[Curve], s_start: float, s_end: float):
        self.curves = list(curves)
        self.s_start, self.s_end = float(s_start), float(s_end)
        self._build_segments()

    def _build_segments(self) -> None:
        """Segment table: start s, length, kind, c, A² or r, and start point/heading (walked like §3.1.1)."""
        rows = []                                   # (s0, length, kind, c, param)
        s = self.s_start
        for cu in self.curves:
            rows.append((s, cu.s_c - s, SegmentKind.STRAIGHT, 0, 0.0))
            rows.append((cu.s_c, cu.l_cl_en, SegmentKind.ENTRY_CLOTHOID, cu.c, cu.A2_en))
            rows.append((cu.s_c + cu.l_cl_en, cu.l_circ, SegmentKind.ARC, cu.c, cu.r_c))
            rows.append((cu.s_c + cu.l_cl_en + cu.l_circ, cu.l_cl_ex, SegmentKind.EXIT_CLOTHOID, cu.c, cu.A2_ex))
            s = cu.s_curved_end
        rows.append((s, self.s_end - s, SegmentKind.STRAIGHT, 0, 0.0))
        short = [r for r in rows if r[1] < 0]
        if short:
            raise ValueError(f"profile line: the segment starting at s = {short[0][0]:g} m has negative length "
                             f"{short[0][1]:g} m (curves overlap or leave the profile)")
        rows = [r for r in rows if r[1] > 0]            # absent clothoids and straights
        self.seg_s0 = np.array([r[0] for r in rows])
        self.seg_len = np.array([r[1] for r in rows])
        self.seg_kind = np.array([int(r[2]) for r in rows], np.int64)
        self.seg_c = np.array([r[3] for r in rows], float)
        self.seg_param = np.array([r[4] for r in rows])
        n = len(rows)
        self.seg_xy0, self.seg_beta0 = np.zeros((n, 2)), np.zeros(n)
        xy, beta = np.array([0.0, self.s_start]), 0.0          # reference point (thesis p° = (0, 0, −s°))
        for i in range(n):
            self.seg_xy0[i], self.seg_beta0[i] = xy, beta
            end = self._evaluate(np.array([self.seg_len[i]]), np.array([i]))
            xy, beta = end.xy[0], end.beta[0]

    def segment_of(self, s: np.ndarray) -> np.ndarray:
        """Index of the segment holding each s (the first/last one beyond the ends: straights extend)."""
        i = np.searchsorted(self.seg_s0, s, side="right") - 1
        return np.clip(i, 0, len(self.seg_s0) - 1)

    def evaluate(self, s) -> ProfilePoints:
        """Position, heading and curvature at arc lengths ``s`` [m] (any shape, flattened)."""
        s = np.atleast_1d(np.asarray(s, float)).ravel()
        i = self.segment_of(s)
        return self._evaluate(s - self.seg_s0[i], i)

    def _evaluate(self, sigma: np.ndarray, i: np.ndarray) -> ProfilePoints:
        """Points at distance ``sigma`` into segments ``i``."""
        kind = self.seg_kind[i]
        kinds = np.unique(kind)
        if len(kinds) == 1:                              # one kind (e.g. a single point): no masking
            return self._evaluate_kind(int(kinds[0]), sigma, i)
        xy = np.empty((len(sigma), 2))
        beta, kappa = np.empty(len(sigma)), np.empty(len(sigma))
        for k in kinds:
            m = kind == k
            xy[m], beta[m], kappa[m] = self._evaluate_kind(int(k), sigma[m], i[m])
        return ProfilePoints(xy, beta, kappa)

    def _evaluate_kind(self, k: int, sigma: np.ndarray, j: np.ndarray) -> ProfilePoints:
        """Points in segments ``j``, all of kind ``k``."""
        dxy, db, kap = _SEGMENT_FUNCTIONS[k](sigma, self.seg_c[j], self.seg_param[j], self.seg_len[j])
        b0 = self.seg_beta0[j]
        t, n = tangent(b0), left(b0)
        # local (forward, left) offsets turned into the segment's start frame
        xy = self.seg_xy0[j] + dxy[:, :1] * t + dxy[:, 1:] * n
        return ProfilePoints(xy, b0 + db, np.broadcast_to(kap, sigma.shape).astype(float))


def tangent(beta) -> np.ndarray:
    """Unit plan-view tangent t(β) [N, 2] (thesis e_z^P)."""
    beta = np.asarray(beta, float)
    return np.stack([-np.sin(beta), np.cos(beta)], axis=-1)


def left(beta) -> np.ndarray:
    """Unit plan-view vector to the left of travel n(β) [N, 2] (thesis e_x^P)."""
    beta = np.asarray(beta, float)
    return np.stack([-np.cos(beta), -np.sin(beta)], axis=-1)


def _straight(sigma, c, param, length):
    """Eq. 3.1: p = p0 + σ t(β0), β = β0."""
    zero = np.zeros_like(sigma)
    return np.stack([sigma, zero], axis=1), zero, zero


def _clothoid_local(sigma, c, A2):
    """Eq. 3.3 in the start frame: (forward, left) = a (C(σ/a), c S(σ/a)), a = sqrt(π A²)."""
    a = np.sqrt(np.pi * A2)
    S, C = fresnel(sigma / a)
    return np.stack([a * C, c * a * S], axis=1)


def _entry_clothoid(sigma, c, A2, length):
    """Eq. 3.3: curvature rising linearly from 0, κ = c σ/A², β = β0 + c σ²/(2A²)."""
    return _clothoid_local(sigma, c, A2), c * sigma ** 2 / (2 * A2), c * sigma / A2


def _arc(sigma, c, r, length):
    """Eq. 3.4: p = p0 + r (sin Δβ t0 + c (1 − cos Δβ) n0), Δβ = σ/r."""
    db = sigma / r
    return np.stack([r * np.sin(db), c * r * (1 - np.cos(db))], axis=1), c * db, c / r


def _exit_clothoid(sigma, c, A2, length):
    """Eqs. 3.5–3.6: the entry clothoid with c → −c run backwards from the segment's end.

    With τ = l − σ the remaining length and h(τ) the helper clothoid seen from the end point turned by
    π, p(σ) − p0 = R(c Δβ_h(0) + π) (h(τ) − h(l)); in the start frame that is
    (−a (C(τ/a) − C(l/a)), c a (S(τ/a) − S(l/a))) turned by the total turn c l²/(2A²).
    """
    tau = length - sigma
    h = _clothoid_local(tau, -c, A2) - _clothoid_local(length, -c, A2)
    gamma = c * length ** 2 / (2 * A2) + np.pi       # rotation of the helper frame (eq. 3.5)
    cg, sg = np.cos(gamma), np.sin(gamma)
    # rotate (forward, left) coordinates by gamma counter-clockwise about +z
    local = np.stack([cg * h[:, 0] - sg * h[:, 1], sg * h[:, 0] + cg * h[:, 1]], axis=1)
    db_h = tau ** 2 / (2 * A2)
    return local, -c * (db_h - length ** 2 / (2 * A2)), c * tau / A2


_SEGMENT_FUNCTIONS = (_straight, _entry_clothoid, _arc, _exit_clothoid)
"""Evaluation per :class:`SegmentKind`, indexed by its value."""
