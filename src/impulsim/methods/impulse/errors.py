"""Constraint errors of the basic joints, as world vectors d (Bender 3.2.3).

Position errors are evaluated on predicted poses at t0+h. For translational primitives d is the
displacement A's point must make relative to B's point (d = b − a); for rotational ones d is the
rotation vector A must turn by relative to B. The correcting impulse then solves
(P K Pᵀ) λ = P d / h (eq. 3.15, 3.20). Velocity errors are the relative velocity B minus A (minus the
prescribed target), solved with (P K Pᵀ) λ = P Δu (eq. 3.16, 3.21).
"""
import numpy as np
from numba import njit

from impulsim.math.quaternion import quat_rotate, quat_mul, quat_conj, quat_to_rotvec
from impulsim.math.linalg import basis_perpendicular
from impulsim.methods.impulse.rows import (BALL, DISTANCE, LINE, PLANE, ROTATION_LOCK, DIRECTION,
                                           DOUBLE_ROTATION, VEL_POINT, VEL_ANGULAR, impulse_points)


@njit(cache=True)
def _angle_axis_between(x, y):
    """Rotation vector turning unit vector x onto unit vector y by the shorter way."""
    c = np.cross(x, y)
    s = np.sqrt(np.dot(c, c))
    cos = np.dot(x, y)
    if s < 1e-14:
        if cos > 0.0:
            return c
        p, _ = basis_perpendicular(x)   # antiparallel: any perpendicular axis
        return np.pi * p
    return np.arctan2(s, cos) / s * c


@njit(cache=True)
def position_error(kind, pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a, axis_b, target, qrel):
    """Error vector d of one primitive at the given poses (world frame) [m or rad]."""
    if kind == ROTATION_LOCK:
        # A should be at q_b ⊗ qrel⁻¹; d = rotvec(q_b ⊗ qrel⁻¹ ⊗ q_a⁻¹)
        return quat_to_rotvec(quat_mul(quat_mul(q_b, quat_conj(qrel)), quat_conj(q_a)))
    if kind == DIRECTION:
        return _angle_axis_between(quat_rotate(q_a, axis_a), quat_rotate(q_b, axis_b))
    if kind == DOUBLE_ROTATION:
        x = quat_rotate(q_a, axis_a)
        y = quat_rotate(q_b, axis_b)
        c = np.cross(x, y)
        s = np.sqrt(np.dot(c, c))
        if s < 1e-14:
            return np.zeros(3)
        alpha = np.arctan2(s, np.dot(x, y))
        return (alpha - target) / s * c
    a, b = impulse_points(kind, pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a)
    d = b - a
    if kind == DISTANCE:
        n = np.sqrt(np.dot(d, d))
        if n < 1e-15:
            return np.zeros(3)
        return (n - target) / n * d
    return d


@njit(cache=True)
def velocity_error(kind, vel_a, omega_a, vel_b, omega_b, ra, rb, vel_target):
    """Relative velocity B minus A (minus the prescribed target) at the impulse points [m/s or rad/s]."""
    if kind == ROTATION_LOCK or kind == DIRECTION or kind == DOUBLE_ROTATION:
        return omega_b - omega_a
    if kind == VEL_ANGULAR:
        return omega_b - omega_a - vel_target
    ua = vel_a + np.cross(omega_a, ra)
    ub = vel_b + np.cross(omega_b, rb)
    if kind == VEL_POINT:
        return ub - ua - vel_target
    return ub - ua
