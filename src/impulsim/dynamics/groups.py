"""The grouped arguments of the dynamics kernels: plain tuples of arrays in a fixed order.

A kernel that needs many of the model's or the state's arrays takes them in a few groups: the state's body
motion, the model's joints, springs, motors and servos, and the servos' memory in the state; ``elements``
nests the groups of all force elements. A kernel unpacks a group
in its first lines (``pos, quat, vel, omega = motion``); unpacking checks the number of fields when it
compiles. ``motion`` holds the first four fields of the impulse method's ``bodies`` group in the same order
(:mod:`impulsim.methods.impulse.groups`), and ``joints`` is the tail of the joint limits' group
(:mod:`impulsim.contact.groups`).

Plain tuples, not named tuples: Numba types a plain tuple of arrays on its fast path (as it does separate
arrays), while a named tuple crosses from Python into compiled code through Python's typing at about 0.3 µs
per array, every call. The functions below are a tuple of attribute reads: callers build the groups per call
and never hold arrays that may be reallocated.
"""
from __future__ import annotations

MOTION = ("pos", "quat", "vel", "omega")
"""Fields of ``motion``: the state's body positions [m], orientations (w, x, y, z), velocities [m/s] and
angular velocities [rad/s], world frame."""

JOINTS = ("body_a", "body_b", "anchor_a", "anchor_b", "axis_a", "ref_a", "ref_b")
"""Fields of ``joints``: each joint's two bodies, anchors [m] and A's axis in the bodies' frames, and the
reference directions its angle is measured from."""

SPRINGS = ("body_a", "body_b", "anchor_a", "anchor_b", "stiffness", "damping", "rest_length")
"""Fields of ``springs``: each spring-damper's two bodies, anchors [m] in the bodies' frames, stiffness [N/m],
damping [N s/m] and rest length [m]."""

MOTORS = ("joint", "coord", "effort")
"""Fields of ``motors``: each motor's joint and coordinate (0 angle, 1 position) from the model, and its
effort [N m or N] from the state."""

SERVOS = ("joint", "mode", "gains", "limit", "sp_start", "sp_time", "sp_value", "sp_linear")
"""Fields of ``servos``: each servo's joint, mode, PID gains (kp, ki, kd), effort limit, and its set-points
(CSR start, times [s], values [rad, m or their rates], interpolation flags)."""

SERVO_MEMORY = ("integral", "prev_error", "effort")
"""Fields of ``servo_memory`` (in the state, updated in place): each servo's error integral, last error
(NaN before the first step) and last effort."""

ELEMENTS = ("springs", "motors", "servos", "servo_memory", "joints")
"""Fields of ``elements``: the groups above that the loads of the force elements need (empty arrays for a
model without some of them, so that one compiled version serves every model)."""


def motion_of(s) -> tuple:
    """``motion`` of state ``s``."""
    return (s.body_pos, s.body_quat, s.body_vel, s.body_omega)


def joints_of(m) -> tuple:
    """``joints`` of model ``m``."""
    return (m.joint_body_a, m.joint_body_b, m.joint_anchor_a, m.joint_anchor_b, m.joint_axis_a, m.joint_ref_a,
            m.joint_ref_b)


def springs_of(m) -> tuple:
    """``springs`` of model ``m``."""
    return (m.spring_body_a, m.spring_body_b, m.spring_anchor_a, m.spring_anchor_b, m.spring_stiffness,
            m.spring_damping, m.spring_rest_length)


def motors_of(m, s) -> tuple:
    """``motors`` of model ``m`` and state ``s``."""
    return (m.motor_joint, m.motor_coord, s.motor_effort)


def servos_of(m) -> tuple:
    """``servos`` of model ``m``."""
    return (m.servo_joint, m.servo_mode, m.servo_gains, m.servo_limit, m.servo_sp_start, m.servo_sp_time,
            m.servo_sp_value, m.servo_sp_linear)


def servo_memory_of(s) -> tuple:
    """``servo_memory`` of state ``s``."""
    return (s.servo_integral, s.servo_prev_error, s.servo_effort)


def elements_of(m, s) -> tuple:
    """``elements`` of model ``m`` and state ``s``."""
    return (springs_of(m), motors_of(m, s), servos_of(m), servo_memory_of(s), joints_of(m))
