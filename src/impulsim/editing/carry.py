"""Carrying a running state over to a recompiled model, body by body and controller by controller, by name.

A body that is in both models keeps its motion: its user frame's pose and its velocities (converted
exactly when the edit moved its centre of mass or principal axes, copied bit for bit when it did not). A
body whose start in the document the edit changed (its pose or velocity there) starts from the new values.
New bodies start from the document.
"""
from __future__ import annotations

import numpy as np

from impulsim.math.quaternion import quat_conj, quat_mul, quat_rotate

MOTION = ("body_pos", "body_quat", "body_vel", "body_omega")


def _same_frame(m1, k1, m2, k2) -> bool:
    return (np.array_equal(m1.body_frame_offset[k1], m2.body_frame_offset[k2])
            and np.array_equal(m1.body_frame_quat[k1], m2.body_frame_quat[k2]))


def _start_changed(m1, s1_start, k1, m2, s2_start, k2) -> bool:
    """Whether the document's start of the body (its user frame's pose, its velocities) differs between the
    two compiled scenes."""
    from impulsim.dynamics.diagnostics import body_user_pose
    p1, q1 = body_user_pose(m1, s1_start, k1)
    p2, q2 = body_user_pose(m2, s2_start, k2)
    if not (np.allclose(p1, p2, rtol=0, atol=1e-12) and np.allclose(q1, q2, rtol=0, atol=1e-12)):
        return True
    return not (np.array_equal(s1_start.body_vel[k1], s2_start.body_vel[k2])
                and np.array_equal(s1_start.body_omega[k1], s2_start.body_omega[k2]))


def _moved_frame(m1, s1, k1, m2, s2, k2) -> None:
    """Body k1 of (m1, s1) into body k2 of s2 whose centre of mass or principal axes moved in its user frame."""
    q_user = quat_mul(s1.body_quat[k1], quat_conj(m1.body_frame_quat[k1]))
    p_user = s1.body_pos[k1] - quat_rotate(q_user, m1.body_frame_offset[k1])
    s2.body_quat[k2] = quat_mul(q_user, m2.body_frame_quat[k2])
    s2.body_pos[k2] = p_user + quat_rotate(q_user, m2.body_frame_offset[k2])
    omega = s1.body_omega[k1]
    s2.body_omega[k2] = omega
    s2.body_vel[k2] = s1.body_vel[k1] + np.cross(omega, s2.body_pos[k2] - s1.body_pos[k1])


def carry_state(old_model, old_state, old_start, new_model, new_start):
    """The running state for ``new_model``: ``new_start`` (its document start) with everything that stayed
    taken from ``old_state``."""
    state = new_start.copy()
    state.t, state.step_count = old_state.t, old_state.step_count
    old_index = {name: k for k, name in enumerate(old_model.body_names)}
    for k2, name in enumerate(new_model.body_names):
        k1 = old_index.get(name)
        if k1 is None or k2 == 0:
            continue
        state.body_force[k2] = old_state.body_force[k1]
        state.body_torque[k2] = old_state.body_torque[k1]
        if _start_changed(old_model, old_start, k1, new_model, new_start, k2):
            continue
        if _same_frame(old_model, k1, new_model, k2):
            for field in MOTION:
                getattr(state, field)[k2] = getattr(old_state, field)[k1]
        else:
            _moved_frame(old_model, old_state, k1, new_model, state, k2)
    _carry_named(old_model.servo_names, new_model.servo_names, old_state, state,
                 ("servo_integral", "servo_prev_error", "servo_effort"))
    _carry_named(old_model.motor_names, new_model.motor_names, old_state, state, ("motor_effort",))
    return state


def _carry_named(old_names, new_names, old_state, state, fields) -> None:
    index = {name: i for i, name in enumerate(old_names)}
    for j, name in enumerate(new_names):
        i = index.get(name)
        if i is not None:
            for field in fields:
                getattr(state, field)[j] = getattr(old_state, field)[i]
