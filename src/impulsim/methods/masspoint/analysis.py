"""Measurements on recorded mass-point trajectories: periods, rotation angles, tilt, energy figures.

Pure functions of arrays, so that the experiments, tests, examples and benchmarks measure alike.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ellipk


def pendulum_period_theory(amplitude: float, length: float, g: float) -> float:
    """Exact period [s] of a mathematical pendulum of ``length`` [m] swinging to ``amplitude`` [rad]:
    T = 4 √(l/g) K(k²), k = sin(amplitude/2), K the complete elliptic integral of the first kind."""
    return 4.0 * math.sqrt(length / g) * float(ellipk(math.sin(amplitude / 2.0) ** 2))


def zero_crossings(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Times [s] where the sampled signal x changes sign, by linear interpolation between samples.

    Near a crossing of a harmonic signal x'' = −ω² x ≈ 0, so the interpolation error is O(h³)."""
    k = np.nonzero(np.signbit(x[:-1]) != np.signbit(x[1:]))[0]
    return t[k] - x[k] * (t[k + 1] - t[k]) / (x[k + 1] - x[k])


def period_from_crossings(t: np.ndarray, x: np.ndarray) -> float:
    """Mean period [s] between the first and last zero crossing (two crossings per period)."""
    tc = zero_crossings(t, x)
    if tc.shape[0] < 3:
        raise ValueError("need at least three zero crossings to measure a period")
    return 2.0 * (tc[-1] - tc[0]) / (tc.shape[0] - 1)


def turn_angles_about_z(pos: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Angle [rad] a point turns about the vertical through ``centre`` in each step, shape [n_steps].

    ``pos`` and ``centre`` have shape [n_steps + 1, 3]."""
    rel = pos[:, :2] - centre[:, :2]
    return np.diff(np.unwrap(np.arctan2(rel[:, 1], rel[:, 0])))


def body_frames(origin: np.ndarray, axis_point: np.ndarray, ref_point: np.ndarray) -> np.ndarray:
    """Orthonormal frames [n, 3, 3] (columns u, w, a) of a rigid point set: a along origin→axis_point,
    u the part of axis_point→ref_point perpendicular to a, w = a × u."""
    a = axis_point - origin
    a = a / np.linalg.norm(a, axis=1)[:, None]
    u = ref_point - axis_point
    u = u - np.sum(u * a, axis=1)[:, None] * a
    u = u / np.linalg.norm(u, axis=1)[:, None]
    return np.stack([u, np.cross(a, u), a], axis=2)


def spin_per_step(frames: np.ndarray) -> np.ndarray:
    """Rotation [rad] about the body axis (third column) between consecutive frames, shape [n − 1].

    The relative rotation R_{k+1} R_kᵀ has angle φ and unit axis n; the spin is φ (n·a)."""
    rel = np.einsum("kij,klj->kil", frames[1:], frames[:-1])
    cos_phi = np.clip((np.trace(rel, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0)
    skew = np.stack([rel[:, 2, 1] - rel[:, 1, 2], rel[:, 0, 2] - rel[:, 2, 0], rel[:, 1, 0] - rel[:, 0, 1]], 1)
    sin_phi = 0.5 * np.linalg.norm(skew, axis=1)
    n = skew / np.where(sin_phi > 0, 2.0 * sin_phi, 1.0)[:, None]
    return np.arctan2(sin_phi, cos_phi) * np.sum(n * frames[1:, :, 2], axis=1)


def tilt_from_vertical(frames: np.ndarray) -> np.ndarray:
    """Angle [rad] between each frame's axis (third column) and world z."""
    return np.arccos(np.clip(frames[:, 2, 2], -1.0, 1.0))


def deficit_percent(energy: np.ndarray, kinetic: np.ndarray, reference: float) -> np.ndarray:
    """100 (E − E_ref) / E_kin per sample (the report's energy deficit "relative to the current E_kin");
    NaN where E_kin = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(kinetic > 0.0, 100.0 * (energy - reference) / kinetic, np.nan)


def energy_drops(energy: np.ndarray, threshold: float) -> list[tuple[int, float]]:
    """Steps k where E fell by more than ``threshold`` [J] from step k−1 to k, as (k, ΔE) pairs."""
    d = np.diff(energy)
    return [(int(k) + 1, float(d[k])) for k in np.nonzero(d < -threshold)[0]]
