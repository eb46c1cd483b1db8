"""Joint coordinates along a joint's axis: angle and displacement, and their rates."""
import numpy as np

from impulsim.kernel import njit
from impulsim.math.quaternion import quat_rotate


@njit(cache=True)
def joint_angle(q_a, q_b, axis_a, ref_a, ref_b):
    """Rotation of B relative to A about A's axis [rad], in (−π, π]; 0 at the initial pose."""
    x = quat_rotate(q_a, axis_a)
    ra = quat_rotate(q_a, ref_a)
    rb = quat_rotate(q_b, ref_b)
    c = np.cross(ra, rb)
    return np.arctan2(c[0] * x[0] + c[1] * x[1] + c[2] * x[2], ra[0] * rb[0] + ra[1] * rb[1] + ra[2] * rb[2])


@njit(cache=True)
def joint_angular_rate(q_a, omega_a, omega_b, axis_a):
    """(ω_b − ω_a) · axis [rad/s]."""
    x = quat_rotate(q_a, axis_a)
    return (omega_b[0] - omega_a[0]) * x[0] + (omega_b[1] - omega_a[1]) * x[1] + \
        (omega_b[2] - omega_a[2]) * x[2]


@njit(cache=True)
def joint_position(pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a):
    """Displacement of B's anchor from A's anchor along A's axis [m]; 0 at the initial pose."""
    x = quat_rotate(q_a, axis_a)
    d = pos_b + quat_rotate(q_b, anchor_b) - pos_a - quat_rotate(q_a, anchor_a)
    return d[0] * x[0] + d[1] * x[1] + d[2] * x[2]


@njit(cache=True)
def joint_linear_rate(pos_a, q_a, vel_a, omega_a, pos_b, q_b, vel_b, omega_b, anchor_b, axis_a):
    """Velocity of B's anchor relative to the coincident point of A, along A's axis [m/s]."""
    x = quat_rotate(q_a, axis_a)
    pb = pos_b + quat_rotate(q_b, anchor_b)
    ub = vel_b + np.cross(omega_b, pb - pos_b)
    ua = vel_a + np.cross(omega_a, pb - pos_a)
    d = ub - ua
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
