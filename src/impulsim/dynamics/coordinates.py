"""Joint coordinates along a joint's axis: angle and displacement, and their rates.

Written on tuples (:mod:`impulsim.math.vec`), not small arrays: the same arithmetic without allocations, and
without the array-shape checks whose error messages made a servo's first compile seconds longer."""
import numpy as np

from impulsim.kernel import njit
from impulsim.math.vec import add, cross, q4, qrot, sub, v3


@njit(cache=True)
def joint_angle(q_a, q_b, axis_a, ref_a, ref_b):
    """Rotation of B relative to A about A's axis [rad], in (−π, π]; 0 at the initial pose."""
    x = qrot(q4(q_a), v3(axis_a))
    ra = qrot(q4(q_a), v3(ref_a))
    rb = qrot(q4(q_b), v3(ref_b))
    c = cross(ra, rb)
    return np.arctan2(c[0] * x[0] + c[1] * x[1] + c[2] * x[2], ra[0] * rb[0] + ra[1] * rb[1] + ra[2] * rb[2])


@njit(cache=True)
def joint_angular_rate(q_a, omega_a, omega_b, axis_a):
    """(ω_b − ω_a) · axis [rad/s]."""
    x = qrot(q4(q_a), v3(axis_a))
    return (omega_b[0] - omega_a[0]) * x[0] + (omega_b[1] - omega_a[1]) * x[1] + \
        (omega_b[2] - omega_a[2]) * x[2]


@njit(cache=True)
def joint_position(pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a):
    """Displacement of B's anchor from A's anchor along A's axis [m]; 0 at the initial pose."""
    x = qrot(q4(q_a), v3(axis_a))
    d = sub(sub(add(v3(pos_b), qrot(q4(q_b), v3(anchor_b))), v3(pos_a)), qrot(q4(q_a), v3(anchor_a)))
    return d[0] * x[0] + d[1] * x[1] + d[2] * x[2]


@njit(cache=True)
def joint_linear_rate(pos_a, q_a, vel_a, omega_a, pos_b, q_b, vel_b, omega_b, anchor_b, axis_a):
    """Velocity of B's anchor relative to the coincident point of A, along A's axis [m/s]."""
    x = qrot(q4(q_a), v3(axis_a))
    pb = add(v3(pos_b), qrot(q4(q_b), v3(anchor_b)))
    ub = add(v3(vel_b), cross(v3(omega_b), sub(pb, v3(pos_b))))
    ua = add(v3(vel_a), cross(v3(omega_a), sub(pb, v3(pos_a))))
    d = sub(ub, ua)
    return d[0] * x[0] + d[1] * x[1] + d[2] * x[2]


@njit(cache=True)
def coordinate_value(coord, rate, j, joint_body_a, joint_body_b, joint_anchor_a, joint_anchor_b,
                     joint_axis_a, joint_ref_a, joint_ref_b, body_pos, body_quat, body_vel, body_omega):
    """Value (rate=False) or rate (rate=True) of coordinate ``coord`` (0 angle, 1 position) of joint j."""
    a = joint_body_a[j]
    b = joint_body_b[j]
    if coord == 0:
        if rate:
            return joint_angular_rate(body_quat[a], body_omega[a], body_omega[b], joint_axis_a[j])
        return joint_angle(body_quat[a], body_quat[b], joint_axis_a[j], joint_ref_a[j], joint_ref_b[j])
    if rate:
        return joint_linear_rate(body_pos[a], body_quat[a], body_vel[a], body_omega[a], body_pos[b],
                                 body_quat[b], body_vel[b], body_omega[b], joint_anchor_b[j], joint_axis_a[j])
    return joint_position(body_pos[a], body_quat[a], body_pos[b], body_quat[b], joint_anchor_a[j],
                          joint_anchor_b[j], joint_axis_a[j])
