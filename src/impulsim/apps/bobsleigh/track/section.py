"""Cross-sections of the ice channel as degree-2 rational curves (Rempfler 2015, §3.1.4, eqs. 3.11–3.15, A.2–A.6).

A section has eight points 0…7 joined by seven segments: 0–1 straight wall of height h_W, 1–2 arc r_0,
2–3 floor of length l_B, 3–4 quarter-ellipse piece (semi-axes b across, a up; a straight floor piece on
straight track), 4–5 arc r_1 turning by θ, 5–6 straight rising h_Z at the angle ε, 6–7 arc r_2 rising h_2.
It is built in section coordinates (x, y) [m] with point 3 at the origin and y up; c = +1 (left curve)
puts the raised side 4…7 at +x, which is the right of travel, the outside of the curve.

Every segment is a rational quadratic Bézier piece with end weights 1 and one inner control point; the
seven pieces make one curve with knots 0,0,0,1,1,2,2,…,7,7,7 (each segment spans one parameter unit),
so all sections share degree, control-point count (15) and knot vector and can be lofted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

N_SEGMENTS = 7
N_CONTROL = 2 * N_SEGMENTS + 1
SEGMENT_NAMES = ("wall 0-1", "arc r0 1-2", "floor 2-3", "ellipse 3-4", "arc r1 4-5", "straight 5-6",
                 "arc r2 6-7")


@dataclass(frozen=True)
class DesignSection:
    """Design values of one section as the construction data name them [m, degrees for eps].

    h_W (HW2), r_0 (AK), l_B (BI), d_C (CE), B, A, BT, AT, R1, h_Z (HZ), R2, H2 and eps1; A, AT and BT
    are 0 on straight track (the ellipse degenerates to a straight).
    """
    h_W: float
    r_0: float
    l_B: float
    d_C: float
    B: float
    A: float
    BT: float
    AT: float
    R1: float
    h_Z: float
    R2: float
    H2: float
    eps1: float


@dataclass(frozen=True)
class SectionDims:
    """The reconstructed dimensions of a section [m, rad] (thesis Fig. 3.11)."""
    h_W: float
    r_0: float
    l_B: float
    d_C: float
    b: float
    a: float
    b_T: float
    a_T: float
    r_1: float
    h_1: float
    h_Z: float
    r_2: float
    h_2: float
    eps: float
    eps0: float

    @property
    def theta(self) -> float:
        """Angle of the arc 4–5 [rad] (eq. A.6)."""
        return self.eps - self.eps0

    @property
    def degenerate(self) -> bool:
        """True on straight track: the segment 3–4 is a straight floor piece."""
        return self.a_T == 0.0


def epsilon_from_design(eps1_deg: float) -> float:
    """ε [rad] from the design value eps1 [deg], which the data give sometimes as the complement (A.1)."""
    return math.radians(eps1_deg if eps1_deg >= 45.0 else 90.0 - eps1_deg)


def reconstruct(d: DesignSection, eps: float) -> SectionDims:
    """The dimensions of Fig. 3.11 from design values, recomputing b_T, a_T, θ and h_1 (eqs. A.2–A.6).

    ``eps`` is the angle of the straight 5–6 to the horizontal [rad]. Raises ValueError naming the
    dimension when the values do not make a section.
    """
    if d.AT == 0.0:                                           # (A.2) straight track
        b_T, a_T, b, a, eps0 = d.B - d.R1, 0.0, d.B - d.R1, 0.0, 0.0
        if b_T <= 0:
            raise ValueError(f"B - R1 must be positive on straight track, got {b_T:g}")
    else:                                                     # (A.3) on the ellipse x²/B² + (y−A)²/A² = 1
        b, a = d.B, d.A
        if d.BT > d.AT:
            if not 0 < d.BT < b:
                raise ValueError(f"BT must lie in (0, B), got {d.BT:g}")
            b_T, a_T = d.BT, a * (1 - math.sqrt(1 - (d.BT / b) ** 2))
        else:
            if not 0 < d.AT < a:
                raise ValueError(f"AT must lie in (0, A), got {d.AT:g}")
            b_T, a_T = b * math.sqrt(1 - ((d.AT - a) / a) ** 2), d.AT
        eps0 = math.atan(a * b_T / (b * math.sqrt(b * b - b_T * b_T)))      # (A.6) slope at the ellipse end
    theta = eps - eps0
    if not theta > 0:
        raise ValueError(f"eps ({math.degrees(eps):.3f} deg) must exceed the slope at the ellipse end "
                         f"({math.degrees(eps0):.3f} deg)")
    h_1 = d.R1 * (math.sin(eps) * math.sin(theta) - math.cos(eps) * (1 - math.cos(theta)))     # (A.5)
    return SectionDims(d.h_W, d.r_0, d.l_B, d.d_C, b, a, b_T, a_T, d.R1, h_1, d.h_Z, d.R2, d.H2, eps, eps0)


def boundary_points(d: SectionDims, c: int) -> np.ndarray:
    """Points 0…7 [8, 2] in section coordinates (eqs. 3.11–3.12).

    The thesis prints h_Z inside the root of Δx_3; the rise of the arc 6–7 is h_2, which is what is used.
    """
    se, ce = math.sin(d.eps), math.cos(d.eps)
    th = d.theta
    dx1 = d.r_1 * (ce * math.sin(th) + se * (1 - math.cos(th)))
    dx2 = dx1 + d.h_Z / math.tan(d.eps)
    root = d.r_2 ** 2 * se ** 2 + 2 * d.r_2 * d.h_2 * ce - d.h_2 ** 2
    if root < 0:
        raise ValueError(f"h2 = {d.h_2:g} is more than the arc r2 = {d.r_2:g} can rise")
    dx3 = dx2 - d.r_2 * se + math.sqrt(root)
    x = np.array([-(d.l_B + d.r_0), -(d.l_B + d.r_0), -d.l_B, 0.0, d.b_T, d.b_T + dx1, d.b_T + dx2, d.b_T + dx3])
    y = np.array([d.r_0 + d.h_W, d.r_0, 0.0, 0.0, d.a_T, d.a_T + d.h_1, d.a_T + d.h_1 + d.h_Z,
                  d.a_T + d.h_1 + d.h_Z + d.h_2])
    return np.stack([c * x, y], axis=1)


def arc_middle(pb: np.ndarray, pe: np.ndarray, r: float, c: int) -> tuple[np.ndarray, float]:
    """Inner control point and weight of a circular arc of radius r from pb to pe (eq. 3.14).

    The arc turns counter-clockwise for c = +1 and clockwise for c = −1 (always towards the channel).
    """
    chord = pe - pb
    length = float(np.hypot(*chord))
    half = c * math.asin(min(length / (2 * r), 1.0))          # θ/2
    m = 0.5 * (pb + pe)
    n = np.array([chord[1], -chord[0]]) / length              # chord turned clockwise
    s_pt = m + c * r * (1 - math.cos(half)) * n               # the arc's midpoint
    w = math.cos(half)
    s = w / (1 + w)
    return s_pt / s - (1 - s) / s * m, w


def ellipse_middle(pb: np.ndarray, pe: np.ndarray, d: SectionDims, c: int) -> tuple[np.ndarray, float]:
    """Inner control point and weight of the ellipse piece from pb (point 3) to pe (point 4) (eq. 3.15).

    The quarter ellipse pb, Q_M = pb + (c b, 0) (weight √2/2), Q_E = pb + (c b, a) is split at the
    parameter u of pe. The split piece has end weights 1 and w(u); it is brought to end weights 1, 1 by
    dividing the inner weight by sqrt(w(u)) (the standard reparametrization), which the thesis leaves out
    (without it the curve is another conic through the same ends).
    """
    q_e = pb + np.array([c * d.b, d.a])
    q_m = pb + np.array([c * d.b, 0.0])
    w_mid = math.sqrt(2) / 2
    dvec = pe - q_m
    s = -(d.a * d.b_T - d.a_T * d.b) / (d.a * (d.b_T - d.b) - d.a_T * d.b)
    n = pe + s * dvec
    u = 1.0 / (1.0 + math.sqrt(np.linalg.norm(n - q_e) / np.linalg.norm(pb - n)))
    w_m = (1 - u) + u * w_mid
    p_m = ((1 - u) * pb + u * w_mid * q_m) / w_m
    w_end = (1 - u) ** 2 + 2 * u * (1 - u) * w_mid + u ** 2
    return p_m, w_m / math.sqrt(w_end)


class SectionCurve(NamedTuple):
    """A section as one rational quadratic B-spline: control points [15, 2] and weights [15]."""
    points: np.ndarray
    weights: np.ndarray


def section_curve(d: SectionDims, c: int) -> SectionCurve:
    """Control net of the section in section coordinates, points 0 → 7 (eqs. 3.13–3.15)."""
    p = boundary_points(d, c)
    ctrl = np.empty((N_CONTROL, 2))
    w = np.ones(N_CONTROL)
    ctrl[0::2] = p
    radii = {1: d.r_0, 4: d.r_1, 6: d.r_2}
    for k in range(N_SEGMENTS):
        pb, pe = p[k], p[k + 1]
        if np.hypot(*(pe - pb)) <= 0:
            raise ValueError(f"segment {SEGMENT_NAMES[k]} has zero length")
        if k in radii:
            ctrl[2 * k + 1], w[2 * k + 1] = arc_middle(pb, pe, radii[k], c)
        elif k == 3 and not d.degenerate:
            ctrl[2 * k + 1], w[2 * k + 1] = ellipse_middle(pb, pe, d, c)
        else:
            ctrl[2 * k + 1] = 0.5 * (pb + pe)                 # (3.13) straights
    return SectionCurve(ctrl, w)


def basis_matrix(u: np.ndarray) -> np.ndarray:
    """Rows of B-spline basis values [len(u), 15] at parameters u in [0, 7] for the shared knot vector."""
    u = np.asarray(u, float)
    k = np.clip(np.floor(u).astype(int), 0, N_SEGMENTS - 1)
    t = u - k
    rows = np.zeros((len(u), N_CONTROL))
    idx = np.arange(len(u))
    rows[idx, 2 * k] = (1 - t) ** 2
    rows[idx, 2 * k + 1] = 2 * t * (1 - t)
    rows[idx, 2 * k + 2] = t ** 2
    return rows


def evaluate(points: np.ndarray, weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Points of rational curves at parameters u: points [..., 15, D], weights [..., 15] → [..., len(u), D]."""
    basis = basis_matrix(u)
    hom = np.einsum("uk,...k,...kd->...ud", basis, weights, points)
    return hom / np.einsum("uk,...k->...u", basis, weights)[..., None]
