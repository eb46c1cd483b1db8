"""Physical diagnostics of a state: energies, momenta, constraint errors, joint coordinates.

A recording evaluates these after every recorded step, so they compile nothing of their own: the rotations and
joint coordinates are plain Python on floats (the same operations, in the same order, as the compiled
kernels, hence the same values), and the constraint errors call the primitives' compiled geometry with the
argument types the impulse step compiles it for (tuples, an int32 kind), so that after a step of the impulse
method they load or compile nothing more. On a double pendulum this saves about 6 s of compiling on an
empty cache against ~20 µs a recorded row.
"""
from __future__ import annotations

import math

import numpy as np

from impulsim.math.vec import qrot as _qrot_kernel, cross as _cross_kernel
from impulsim.model.kinds import JOINT_COORDINATES, JointKind, Prim

_qrot = _qrot_kernel.py_func        # R(q) v on tuples, in Python
_cross = _cross_kernel.py_func


def _t3(a) -> tuple:
    """A length-3 array (or sequence) as a tuple of Python floats."""
    return (float(a[0]), float(a[1]), float(a[2]))


def _t4(q) -> tuple:
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))


def quat_rotate(q, v) -> np.ndarray:
    """R(q) v as an array; the values of :func:`impulsim.math.quaternion.quat_rotate`, without compiling."""
    return np.array(_qrot(_t4(q), _t3(v)))


def quat_rotate_inv(q, v) -> np.ndarray:
    """R(q)ᵀ v as an array (:func:`impulsim.math.quaternion.quat_rotate_inv`, without compiling)."""
    return np.array(_qrot((float(q[0]), -float(q[1]), -float(q[2]), -float(q[3])), _t3(v)))


def _dynamic(model):
    return model.body_inv_mass > 0


def kinetic_energy(model, state) -> float:
    """Σ ½ m v² + ½ ωᵀ J ω over dynamic bodies [J]."""
    dyn = _dynamic(model)
    lin = 0.5 * np.sum(model.body_mass[dyn] * np.sum(state.body_vel[dyn] ** 2, axis=1))
    rot = 0.0
    for k in np.nonzero(dyn)[0]:
        w = quat_rotate_inv(state.body_quat[k], state.body_omega[k])
        rot += 0.5 * np.dot(w * model.body_inertia[k], w)
    return float(lin + rot)


def potential_energy(model, state) -> float:
    """Gravity (−m g·s) plus spring energy ½ D (|d| − l)² [J]."""
    dyn = _dynamic(model)
    grav = -float(np.sum(model.body_mass[dyn] * (state.body_pos[dyn] @ model.gravity)))
    spring = 0.0
    for s in range(model.n_springs):
        a, b = model.spring_body_a[s], model.spring_body_b[s]
        pa = state.body_pos[a] + quat_rotate(state.body_quat[a], model.spring_anchor_a[s])
        pb = state.body_pos[b] + quat_rotate(state.body_quat[b], model.spring_anchor_b[s])
        spring += 0.5 * model.spring_stiffness[s] * (np.linalg.norm(pb - pa) - model.spring_rest_length[s]) ** 2
    return grav + spring


def total_energy(model, state) -> float:
    """Kinetic plus potential energy [J]."""
    return kinetic_energy(model, state) + potential_energy(model, state)


def linear_momentum(model, state) -> np.ndarray:
    """Σ m v over dynamic bodies [kg m/s], world frame."""
    dyn = _dynamic(model)
    return (model.body_mass[dyn, None] * state.body_vel[dyn]).sum(axis=0)


def angular_momentum(model, state, about=np.zeros(3)) -> np.ndarray:
    """Σ (s − o) × m v + J ω over dynamic bodies [kg m²/s], world frame, about point ``about``."""
    total = np.zeros(3)
    for k in np.nonzero(_dynamic(model))[0]:
        q = state.body_quat[k]
        w_local = quat_rotate_inv(q, state.body_omega[k])
        total += quat_rotate(q, model.body_inertia[k] * w_local)
        total += _cross((state.body_pos[k] - about).tolist(), (model.body_mass[k] * state.body_vel[k]).tolist())
    return total


_THREAD = int(Prim.THREAD)
_VELOCITY_ONLY = 7
"""Primitive kinds from this one on constrain velocities only (no position error)."""


def _lists(*arrays):
    """Arrays as nested lists of Python floats (and ints): cheap to index row by row in Python."""
    return [a.tolist() for a in arrays]


def constraint_errors(model, state) -> np.ndarray:
    """Position error |d| of every primitive at the current poses [m or rad], shape [n_prims]."""
    from impulsim.dynamics.prim_errors import position_error_t
    out = np.zeros(model.n_prims)
    kinds, body_a, body_b, pos, quat, anchor_a, anchor_b, axis_a, axis_b, target, qrel = _lists(
        model.prim_kind, model.prim_body_a, model.prim_body_b, state.body_pos, state.body_quat,
        model.prim_anchor_a, model.prim_anchor_b, model.prim_axis_a, model.prim_axis_b, model.prim_target,
        model.prim_qrel)
    for i, kind in enumerate(kinds):
        if kind == _THREAD:   # |b − a| ≤ target: only a stretched thread is in error
            out[i] = max(_thread_length(model, state, i) - model.prim_target[i], 0.0)
            continue
        if kind >= _VELOCITY_ONLY:
            continue
        a, b = body_a[i], body_b[i]
        # int32 kind and tuples: the types the impulse step compiles position_error_t for
        d = position_error_t(np.int32(kind), tuple(pos[a]), tuple(quat[a]), tuple(pos[b]), tuple(quat[b]),
                             tuple(anchor_a[i]), tuple(anchor_b[i]), tuple(axis_a[i]), tuple(axis_b[i]),
                             target[i], tuple(qrel[i]))
        out[i] = np.linalg.norm(np.array(d))
    return out


def _thread_length(model, state, i: int) -> float:
    """Distance [m] between the two anchor points of primitive i."""
    a, b = model.prim_body_a[i], model.prim_body_b[i]
    pa = state.body_pos[a] + quat_rotate(state.body_quat[a], model.prim_anchor_a[i])
    pb = state.body_pos[b] + quat_rotate(state.body_quat[b], model.prim_anchor_b[i])
    return float(np.linalg.norm(pb - pa))


def velocity_errors(model, state) -> np.ndarray:
    """Velocity-constraint error of every primitive at the current state [m/s or rad/s]."""
    from impulsim.dynamics.prim_errors import velocity_error_t, impulse_points_t, projection_t
    out = np.zeros(model.n_prims)
    P = np.zeros((3, 3))
    kinds, body_a, body_b, pos, quat, vel, omega, anchor_a, anchor_b, axis_a, axis_b, vel_target = _lists(
        model.prim_kind, model.prim_body_a, model.prim_body_b, state.body_pos, state.body_quat, state.body_vel,
        state.body_omega, model.prim_anchor_a, model.prim_anchor_b, model.prim_axis_a, model.prim_axis_b,
        model.prim_vel_target)
    for i, kind in enumerate(kinds):
        if kind == _THREAD:     # a thread may slacken: no velocity condition of its own
            continue
        a, b = body_a[i], body_b[i]
        kind = np.int32(kind)   # the types the impulse step compiles these kernels for
        pos_a, q_a, pos_b, q_b = tuple(pos[a]), tuple(quat[a]), tuple(pos[b]), tuple(quat[b])
        pa, pb = impulse_points_t(kind, pos_a, q_a, pos_b, q_b, tuple(anchor_a[i]), tuple(anchor_b[i]),
                                  tuple(axis_a[i]))
        f, P[0], P[1], P[2] = projection_t(kind, pa, pb, q_a, q_b, tuple(axis_a[i]), tuple(axis_b[i]))
        ra = (pa[0] - pos_a[0], pa[1] - pos_a[1], pa[2] - pos_a[2])
        rb = (pb[0] - pos_b[0], pb[1] - pos_b[1], pb[2] - pos_b[2])
        dv = velocity_error_t(kind, tuple(vel[a]), tuple(omega[a]), tuple(vel[b]), tuple(omega[b]), ra, rb,
                              tuple(vel_target[i]))
        out[i] = np.linalg.norm(P[:f] @ np.array(dv))
    return out


def joint_coordinate(model, state, joint, coordinate: str = "auto", rate: bool = False) -> float:
    """Angle [rad] or displacement [m] (or their rates) of a hinge, slider, cylindrical … joint."""
    j = model.joint(joint) if isinstance(joint, str) else int(joint)
    allowed = JOINT_COORDINATES.get(JointKind(model.joint_kind[j]), ())
    if not allowed:
        raise ValueError(f'joint "{model.joint_names[j]}" has no axis coordinate')
    coord = allowed[0] if coordinate == "auto" else {"angle": 0, "position": 1}[coordinate]
    if coord not in [int(c) for c in allowed]:
        raise ValueError(f'joint "{model.joint_names[j]}" has no {coordinate} coordinate')
    return coordinate_of(coord, rate, model.joint_body_a[j], model.joint_body_b[j], model.joint_anchor_a[j],
                      model.joint_anchor_b[j], model.joint_axis_a[j], model.joint_ref_a[j], model.joint_ref_b[j],
                      state.body_pos, state.body_quat, state.body_vel, state.body_omega)


def coordinate_of(coord, rate, a, b, anchor_a, anchor_b, axis_a, ref_a, ref_b, body_pos, body_quat, body_vel,
               body_omega) -> float:
    """Value (rate=False) or rate (rate=True) of coordinate ``coord`` (0 angle, 1 position) of a joint of
    bodies a, b: :func:`impulsim.dynamics.coordinates.coordinate_value` in plain Python (the same operations
    in the same order, so the same value), for the recording, which would otherwise compile it."""
    q_a = _t4(body_quat[a])
    x = _qrot(q_a, _t3(axis_a))
    if coord == 0:
        if rate:
            wa, wb = _t3(body_omega[a]), _t3(body_omega[b])
            return float((wb[0] - wa[0]) * x[0] + (wb[1] - wa[1]) * x[1] + (wb[2] - wa[2]) * x[2])
        ra = _qrot(q_a, _t3(ref_a))
        rb = _qrot(_t4(body_quat[b]), _t3(ref_b))
        c = _cross(ra, rb)
        return math.atan2(c[0] * x[0] + c[1] * x[1] + c[2] * x[2], ra[0] * rb[0] + ra[1] * rb[1] + ra[2] * rb[2])
    pos_a, pos_b, q_b = _t3(body_pos[a]), _t3(body_pos[b]), _t4(body_quat[b])
    rb = _qrot(q_b, _t3(anchor_b))
    if rate:
        pb = (pos_b[0] + rb[0], pos_b[1] + rb[1], pos_b[2] + rb[2])
        va, wa, vb, wb = _t3(body_vel[a]), _t3(body_omega[a]), _t3(body_vel[b]), _t3(body_omega[b])
        cb = _cross(wb, (pb[0] - pos_b[0], pb[1] - pos_b[1], pb[2] - pos_b[2]))
        ca = _cross(wa, (pb[0] - pos_a[0], pb[1] - pos_a[1], pb[2] - pos_a[2]))
        d = tuple((vb[i] + cb[i]) - (va[i] + ca[i]) for i in range(3))
        return float(d[0] * x[0] + d[1] * x[1] + d[2] * x[2])
    ra = _qrot(q_a, _t3(anchor_a))
    d = tuple(pos_b[i] + rb[i] - pos_a[i] - ra[i] for i in range(3))
    return float(d[0] * x[0] + d[1] * x[1] + d[2] * x[2])


def body_user_pose(model, state, body) -> tuple[np.ndarray, np.ndarray]:
    """Position [m] and orientation (w,x,y,z) of the frame the user defined ``body`` in."""
    from impulsim.math.quaternion import quat_mul, quat_conj
    k = model.body(body) if isinstance(body, str) else int(body)
    q_user = quat_mul(state.body_quat[k], quat_conj(model.body_frame_quat[k]))
    return state.body_pos[k] - quat_rotate(q_user, model.body_frame_offset[k]), q_user
