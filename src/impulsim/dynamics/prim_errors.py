"""Geometry of the basic joints shared by every method: impulse points, projections and errors, as world vectors d (Bender 3.2.3), allocation-free.

Position errors are evaluated on predicted poses at t0+h. For translational primitives d is the
displacement A's point must make relative to B's point (d = b − a); for rotational ones d is the
rotation vector A must turn by relative to B. The correcting impulse then solves
(P K Pᵀ) λ = P d / h (eq. 3.15, 3.20). Velocity errors are the relative velocity B minus A (minus the
prescribed target), solved with (P K Pᵀ) λ = P Δu (eq. 3.16, 3.21). All vectors are tuples.
"""
import math

import numpy as np

from impulsim.kernel import njit
from impulsim.math.vec import (v3, q4, add, sub, scale, dot, cross, norm, qmul, qconj, qrot, qto_rotvec,
                               perpendicular_basis)
from impulsim.dynamics.prims import (BALL, DISTANCE, LINE, PLANE, ROTATION_LOCK, DIRECTION, DOUBLE_ROTATION,
                                     VEL_POINT, VEL_ANGULAR)


@njit(cache=True)
def _angle_axis_between(x, y):
    """Rotation vector turning unit vector x onto unit vector y the shorter way."""
    c = cross(x, y)
    s = norm(c)
    cos = dot(x, y)
    if s < 1e-14:
        if cos > 0.0:
            return c
        p, _ = perpendicular_basis(x)   # antiparallel: any perpendicular axis
        return scale(p, math.pi)
    return scale(c, math.atan2(s, cos) / s)


@njit(cache=True)
def impulse_points_t(kind, pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a):
    """World points a (on A) and b (on B) where a translational primitive's impulse acts (tuples).

    For line and plane joints a is the foot point of b on A's line or plane (Bender 3.2.3).
    """
    a = add(pos_a, qrot(q_a, anchor_a))
    b = add(pos_b, qrot(q_b, anchor_b))
    if kind == LINE:
        x = qrot(q_a, axis_a)
        a = add(a, scale(x, dot(sub(b, a), x)))
    elif kind == PLANE:
        n = qrot(q_a, axis_a)
        a = sub(b, scale(n, dot(sub(b, a), n)))
    return a, b


@njit(cache=True, forceinline=True)
def ball_points(pos_a, q_a, pos_b, q_b, anchor_a, anchor_b):
    """Levers r_a, r_b [m] (world frame, from the centres of mass to the anchors) of a ball joint, and its
    error d = (p_b + r_b) − (p_a + r_a) [m]: the values :func:`impulse_points_t` and :func:`position_error_t`
    give for BALL, computed in line for the hot loops of the LGS method."""
    ra = qrot(q_a, anchor_a)
    rb = qrot(q_b, anchor_b)
    return ra, rb, sub(add(pos_b, rb), add(pos_a, ra))


@njit(cache=True)
def position_error_t(kind, pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a, axis_b, target, qrel):
    """Error vector d of one primitive at the given poses (tuples in, tuple out) [m or rad]."""
    if kind == ROTATION_LOCK:
        # A should be at q_b ⊗ qrel⁻¹; d = rotvec(q_b ⊗ qrel⁻¹ ⊗ q_a⁻¹)
        return qto_rotvec(qmul(qmul(q_b, qconj(qrel)), qconj(q_a)))
    if kind == DIRECTION:
        return _angle_axis_between(qrot(q_a, axis_a), qrot(q_b, axis_b))
    if kind == DOUBLE_ROTATION:
        x = qrot(q_a, axis_a)
        y = qrot(q_b, axis_b)
        c = cross(x, y)
        s = norm(c)
        if s < 1e-14:
            return (0.0, 0.0, 0.0)
        return scale(c, (math.atan2(s, dot(x, y)) - target) / s)
    a, b = impulse_points_t(kind, pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a)
    d = sub(b, a)
    if kind == DISTANCE:
        n = norm(d)
        if n < 1e-15:
            return (0.0, 0.0, 0.0)
        return scale(d, (n - target) / n)
    return d


@njit(cache=True)
def velocity_error_t(kind, vel_a, omega_a, vel_b, omega_b, ra, rb, vel_target):
    """Relative velocity B minus A (minus the prescribed target) at the impulse points [m/s or rad/s]."""
    if kind == ROTATION_LOCK or kind == DIRECTION or kind == DOUBLE_ROTATION:
        return sub(omega_b, omega_a)
    if kind == VEL_ANGULAR:
        return sub(sub(omega_b, omega_a), vel_target)
    du = sub(add(vel_b, cross(omega_b, rb)), add(vel_a, cross(omega_a, ra)))
    if kind == VEL_POINT:
        return sub(du, vel_target)
    return du


@njit(cache=True)
def position_error(kind, pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a, axis_b, target, qrel):
    """Array-argument form of :func:`position_error_t` (for diagnostics and tests)."""
    return position_error_t(kind, v3(pos_a), q4(q_a), v3(pos_b), q4(q_b), v3(anchor_a), v3(anchor_b),
                            v3(axis_a), v3(axis_b), target, q4(qrel))


@njit(cache=True)
def velocity_error(kind, vel_a, omega_a, vel_b, omega_b, ra, rb, vel_target):
    """Array-argument form of :func:`velocity_error_t`."""
    return velocity_error_t(kind, v3(vel_a), v3(omega_a), v3(vel_b), v3(omega_b), v3(ra), v3(rb),
                            v3(vel_target))


@njit(cache=True)
def impulse_points(kind, pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a):
    """Array-argument form of impulse_points_t: world points a (on A) and b (on B)."""
    a, b = impulse_points_t(kind, v3(pos_a), q4(q_a), v3(pos_b), q4(q_b), v3(anchor_a), v3(anchor_b),
                            v3(axis_a))
    return np.array(a), np.array(b)


@njit(cache=True)
def _set_row(P, r, v):
    P[r, 0] = v[0]
    P[r, 1] = v[1]
    P[r, 2] = v[2]


@njit(cache=True)
def projection_t(kind, a, b, q_a, q_b, axis_a, axis_b):
    """Rows of the projection P of a primitive as tuples (unused rows zero) and their number f:
    (f, p0, p1, p2). a, b are the impulse points, q_a, q_b the orientations (tuples)."""
    zero = (0.0, 0.0, 0.0)
    if kind == BALL or kind == VEL_POINT or kind == ROTATION_LOCK or kind == VEL_ANGULAR:
        return 3, (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
    if kind == DISTANCE:
        d = sub(b, a)
        n = norm(d)
        return 1, (scale(d, 1.0 / n) if n > 1e-15 else (1.0, 0.0, 0.0)), zero, zero
    xa = qrot(q_a, axis_a)
    if kind == PLANE:
        return 1, xa, zero, zero
    if kind == DOUBLE_ROTATION:
        z = cross(xa, qrot(q_b, axis_b))
        n = norm(z)
        if n > 1e-15:
            return 1, scale(z, 1.0 / n), zero, zero
        y, _ = perpendicular_basis(xa)
        return 1, y, zero, zero
    # LINE and DIRECTION: the plane perpendicular to A's axis
    y, z = perpendicular_basis(xa)
    return 2, y, z, zero


@njit(cache=True)
def projection(kind, a, b, q_a, q_b, axis_a, axis_b, P):
    """Fill the rows of P (3×3 array) for a primitive; return the number of rows f."""
    f, p0, p1, p2 = projection_t(kind, v3(a), v3(b), q4(q_a), q4(q_b), v3(axis_a), v3(axis_b))
    _set_row(P, 0, p0)
    _set_row(P, 1, p1)
    _set_row(P, 2, p2)
    return f
