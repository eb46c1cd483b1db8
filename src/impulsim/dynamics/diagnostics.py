"""Physical diagnostics of a state: energies, momenta, constraint errors, joint coordinates."""
from __future__ import annotations

import numpy as np

from impulsim.math.quaternion import quat_rotate, quat_rotate_inv
from impulsim.dynamics.coordinates import coordinate_value
from impulsim.model.kinds import JOINT_COORDINATES, JointKind, Prim


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
        total += np.cross(state.body_pos[k] - about, model.body_mass[k] * state.body_vel[k])
    return total


def constraint_errors(model, state) -> np.ndarray:
    """Position error |d| of every primitive at the current poses [m or rad], shape [n_prims]."""
    from impulsim.dynamics.prim_errors import position_error
    out = np.zeros(model.n_prims)
    for i in range(model.n_prims):
        if model.prim_kind[i] == Prim.THREAD:   # |b − a| ≤ target: only a stretched thread is in error
            out[i] = max(_thread_length(model, state, i) - model.prim_target[i], 0.0)
            continue
        if model.prim_kind[i] >= 7:     # velocity-only rows have no position error
            continue
        a, b = model.prim_body_a[i], model.prim_body_b[i]
        d = position_error(model.prim_kind[i], state.body_pos[a], state.body_quat[a], state.body_pos[b],
                           state.body_quat[b], model.prim_anchor_a[i], model.prim_anchor_b[i],
                           model.prim_axis_a[i], model.prim_axis_b[i], model.prim_target[i], model.prim_qrel[i])
        out[i] = np.linalg.norm(d)
    return out


def _thread_length(model, state, i: int) -> float:
    """Distance [m] between the two anchor points of primitive i."""
    a, b = model.prim_body_a[i], model.prim_body_b[i]
    pa = state.body_pos[a] + quat_rotate(state.body_quat[a], model.prim_anchor_a[i])
    pb = state.body_pos[b] + quat_rotate(state.body_quat[b], model.prim_anchor_b[i])
    return float(np.linalg.norm(pb - pa))


def velocity_errors(model, state) -> np.ndarray:
    """Velocity-constraint error of every primitive at the current state [m/s or rad/s]."""
    from impulsim.dynamics.prim_errors import velocity_error
    from impulsim.dynamics.prim_errors import impulse_points, projection
    out = np.zeros(model.n_prims)
    P = np.zeros((3, 3))
    for i in range(model.n_prims):
        kind = model.prim_kind[i]
        if kind == Prim.THREAD:     # a thread may slacken: no velocity condition of its own
            continue
        a, b = model.prim_body_a[i], model.prim_body_b[i]
        pa, pb = impulse_points(kind, state.body_pos[a], state.body_quat[a], state.body_pos[b],
                                state.body_quat[b], model.prim_anchor_a[i], model.prim_anchor_b[i],
                                model.prim_axis_a[i])
        f = projection(kind, pa, pb, state.body_quat[a], state.body_quat[b], model.prim_axis_a[i],
                       model.prim_axis_b[i], P)
        dv = velocity_error(kind, state.body_vel[a], state.body_omega[a], state.body_vel[b],
                            state.body_omega[b], pa - state.body_pos[a], pb - state.body_pos[b],
                            model.prim_vel_target[i])
        out[i] = np.linalg.norm(P[:f] @ dv)
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
    return float(coordinate_value(coord, rate, j, model.joint_body_a, model.joint_body_b, model.joint_anchor_a,
                                  model.joint_anchor_b, model.joint_axis_a, model.joint_ref_a,
                                  model.joint_ref_b, state.body_pos, state.body_quat, state.body_vel,
                                  state.body_omega))


def body_user_pose(model, state, body) -> tuple[np.ndarray, np.ndarray]:
    """Position [m] and orientation (w,x,y,z) of the frame the user defined ``body`` in."""
    from impulsim.math.quaternion import quat_mul, quat_conj
    k = model.body(body) if isinstance(body, str) else int(body)
    q_user = quat_mul(state.body_quat[k], quat_conj(model.body_frame_quat[k]))
    return state.body_pos[k] - quat_rotate(q_user, model.body_frame_offset[k]), q_user
