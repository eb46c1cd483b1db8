"""External loads for one step: gravity, user forces, springs, motors and PID servos.

All loads are evaluated at the start of the step and held constant over it (Bender 3.1, 3.2.5, 3.2.7).
Outputs are per-body linear accelerations [m/s²] and world torques [N m].
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.math.vec import add, cross, q4, qrot, scale, sub, v3
from impulsim.dynamics import groups as G
from impulsim.dynamics.coordinates import coordinate_value


@njit(cache=True)
def _apply_force_at(k, force, point, body_pos, body_inv_mass, force_out, torque_out):
    """Add a world force [N] (a 3-tuple) acting at a world point [m] (a 3-tuple) to body k."""
    if body_inv_mass[k] == 0.0:
        return
    r = sub(point, v3(body_pos[k]))
    t = cross(r, force)
    for i in range(3):
        force_out[k, i] += force[i]
        torque_out[k, i] += t[i]


@njit(cache=True)
def add_springs(spring_body_a, spring_body_b, spring_anchor_a, spring_anchor_b, spring_stiffness,
                spring_damping, spring_rest_length, body_pos, body_quat, body_vel, body_omega, body_inv_mass,
                force_out, torque_out):
    """Spring-dampers: force on A = (D (|d| − l) + c ḋ) d̂, d = b − a; opposite on B.

    Written on tuples (impulsim.math.vec), not small arrays: the same arithmetic, without the allocations
    and the array-shape checks whose error messages made this kernel take seconds to compile."""
    for s in range(spring_body_a.shape[0]):
        a = spring_body_a[s]
        b = spring_body_b[s]
        pa = add(v3(body_pos[a]), qrot(q4(body_quat[a]), v3(spring_anchor_a[s])))
        pb = add(v3(body_pos[b]), qrot(q4(body_quat[b]), v3(spring_anchor_b[s])))
        d = sub(pb, pa)
        length = np.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2)
        if length < 1e-12:
            continue
        n = (d[0] / length, d[1] / length, d[2] / length)
        ua = add(v3(body_vel[a]), cross(v3(body_omega[a]), sub(pa, v3(body_pos[a]))))
        ub = add(v3(body_vel[b]), cross(v3(body_omega[b]), sub(pb, v3(body_pos[b]))))
        rate = (ub[0] - ua[0]) * n[0] + (ub[1] - ua[1]) * n[1] + (ub[2] - ua[2]) * n[2]
        f = scale(n, spring_stiffness[s] * (length - spring_rest_length[s]) + spring_damping[s] * rate)
        _apply_force_at(a, f, pa, body_pos, body_inv_mass, force_out, torque_out)
        _apply_force_at(b, (-f[0], -f[1], -f[2]), pb, body_pos, body_inv_mass, force_out, torque_out)


@njit(cache=True)
def apply_joint_effort(j, coord, effort, joint_body_a, joint_body_b, joint_anchor_b, joint_axis_a,
                       body_pos, body_quat, body_inv_mass, force_out, torque_out):
    """Torque (coord 0) or force (coord 1) ``effort`` along joint j's axis: + on B, − on A."""
    a = joint_body_a[j]
    b = joint_body_b[j]
    x = qrot(q4(body_quat[a]), v3(joint_axis_a[j]))
    if coord == 0:
        if body_inv_mass[b] != 0.0:
            for i in range(3):
                torque_out[b, i] += effort * x[i]
        if body_inv_mass[a] != 0.0:
            for i in range(3):
                torque_out[a, i] -= effort * x[i]
        return
    pb = add(v3(body_pos[b]), qrot(q4(body_quat[b]), v3(joint_anchor_b[j])))
    _apply_force_at(b, scale(x, effort), pb, body_pos, body_inv_mass, force_out, torque_out)
    _apply_force_at(a, scale(x, -effort), pb, body_pos, body_inv_mass, force_out, torque_out)


@njit(cache=True)
def servo_setpoint(s, t, servo_sp_start, servo_sp_time, servo_sp_value, servo_sp_linear):
    """Set-point of servo s at time t: held from each listed time (or interpolated linearly)."""
    i0 = servo_sp_start[s]
    i1 = servo_sp_start[s + 1]
    if t <= servo_sp_time[i0] or i1 - i0 == 1:
        return servo_sp_value[i0]
    for i in range(i0 + 1, i1):
        if t < servo_sp_time[i]:
            if servo_sp_linear[s] and servo_sp_time[i] > servo_sp_time[i - 1]:
                w = (t - servo_sp_time[i - 1]) / (servo_sp_time[i] - servo_sp_time[i - 1])
                return (1.0 - w) * servo_sp_value[i - 1] + w * servo_sp_value[i]
            return servo_sp_value[i - 1]
    return servo_sp_value[i1 - 1]


@njit(cache=True)
def servo_error(s, t, servo_mode, servo_joint, servo_sp_start, servo_sp_time, servo_sp_value,
                servo_sp_linear, joint_body_a, joint_body_b, joint_anchor_a, joint_anchor_b, joint_axis_a,
                joint_ref_a, joint_ref_b, body_pos, body_quat, body_vel, body_omega):
    """Set-point minus measured value; angle errors wrapped to (−π, π]."""
    mode = servo_mode[s]
    coord = 0 if (mode == 0 or mode == 2) else 1
    rate = mode >= 2
    value = coordinate_value(coord, rate, servo_joint[s], joint_body_a, joint_body_b, joint_anchor_a,
                             joint_anchor_b, joint_axis_a, joint_ref_a, joint_ref_b, body_pos, body_quat,
                             body_vel, body_omega)
    e = servo_setpoint(s, t, servo_sp_start, servo_sp_time, servo_sp_value, servo_sp_linear) - value
    if mode == 0:
        e = (e + np.pi) % (2.0 * np.pi) - np.pi
    return e, coord


@njit(cache=True)
def pid_effort(e, e_prev, integral, gains, limit, h):
    """Discrete PID (Bender eq. 3.23 with kp = K_r, ki = K_r/T_N, kd = K_r T_V), clamped to ±limit.

    Returns (effort, new integral). The integral is not advanced while the output saturates
    (anti-windup), so a servo held against its limit does not overshoot when released.
    """
    de = 0.0 if np.isnan(e_prev) else (e - e_prev) / h
    u = gains[0] * e + gains[1] * integral + gains[2] * de
    if abs(u) < limit:
        integral_new = integral + e * h
    else:
        integral_new = integral
    return min(max(u, -limit), limit), integral_new


@njit(cache=True)
def add_motors_and_servos(t, h, motors, servos, servo_memory, joints, motion, body_inv_mass,
                          # outputs
                          force_out, torque_out):
    """Motor efforts and PID servo efforts as joint-axis loads; updates the servo memory in place.
    ``motors``, ``servos``, ``servo_memory``, ``joints`` and ``motion`` as dynamics.groups; t [s] the time
    at the step's start, h [s] the step."""
    motor_joint, motor_coord, motor_effort = motors
    servo_joint, servo_mode, servo_gains, servo_limit, servo_sp_start, servo_sp_time, servo_sp_value, \
        servo_sp_linear = servos
    servo_integral, servo_prev_error, servo_effort = servo_memory
    joint_body_a, joint_body_b, joint_anchor_a, joint_anchor_b, joint_axis_a, joint_ref_a, joint_ref_b = joints
    body_pos, body_quat, body_vel, body_omega = motion
    for m in range(motor_joint.shape[0]):
        apply_joint_effort(motor_joint[m], motor_coord[m], motor_effort[m], joint_body_a, joint_body_b,
                           joint_anchor_b, joint_axis_a, body_pos, body_quat, body_inv_mass, force_out,
                           torque_out)
    for s in range(servo_joint.shape[0]):
        e, coord = servo_error(s, t, servo_mode, servo_joint, servo_sp_start, servo_sp_time, servo_sp_value,
                               servo_sp_linear, joint_body_a, joint_body_b, joint_anchor_a, joint_anchor_b,
                               joint_axis_a, joint_ref_a, joint_ref_b, body_pos, body_quat, body_vel,
                               body_omega)
        u, integral = pid_effort(e, servo_prev_error[s], servo_integral[s], servo_gains[s], servo_limit[s], h)
        servo_integral[s] = integral
        servo_prev_error[s] = e
        servo_effort[s] = u
        apply_joint_effort(servo_joint[s], coord, u, joint_body_a, joint_body_b, joint_anchor_b,
                           joint_axis_a, body_pos, body_quat, body_inv_mass, force_out, torque_out)


@njit(cache=True)
def to_accelerations(gravity, body_inv_mass, force, acc_out):
    """a = g + F/m for dynamic bodies, 0 for static and kinematic ones."""
    for k in range(force.shape[0]):
        w = body_inv_mass[k]
        for i in range(3):
            acc_out[k, i] = 0.0 if w == 0.0 else gravity[i] + force[k, i] * w


@njit(cache=True)
def plain_loads(gravity, body_inv_mass, body_force, body_torque,
                # outputs
                acc_out, tau_out):
    """a = g + F/m [m/s²] for dynamic bodies (0 for the others) and τ = the user torque [N m], world frame."""
    for k in range(body_force.shape[0]):
        w = body_inv_mass[k]
        for i in range(3):
            acc_out[k, i] = 0.0 if w == 0.0 else gravity[i] + body_force[k, i] * w
            tau_out[k, i] = body_torque[k, i]


def has_force_elements(model) -> bool:
    """Whether ``model`` has springs, motors or servos: loads beyond gravity and the user's forces."""
    return bool(model.n_springs or model.n_motors or model.n_servos)


def compute_loads(model, state, h, acc_out, torque_out):
    """Stage "forces": fill acc_out [m/s²] and torque_out [N m] (world) for the coming step. Without
    springs, motors and servos the loads are gravity and the user's forces and torques: one kernel."""
    if not has_force_elements(model):
        plain_loads(model.gravity, model.body_inv_mass, state.body_force, state.body_torque, acc_out, torque_out)
        return
    force = state.body_force.copy()
    torque_out[...] = state.body_torque
    if model.n_springs:
        add_springs(model.spring_body_a, model.spring_body_b, model.spring_anchor_a, model.spring_anchor_b,
                    model.spring_stiffness, model.spring_damping, model.spring_rest_length, state.body_pos,
                    state.body_quat, state.body_vel, state.body_omega, model.body_inv_mass, force, torque_out)
    if model.n_motors or model.n_servos:
        add_motors_and_servos(state.t, h, G.motors_of(model, state), G.servos_of(model), G.servo_memory_of(state),
                              G.joints_of(model), G.motion_of(state), model.body_inv_mass, force, torque_out)
    to_accelerations(model.gravity, model.body_inv_mass, force, acc_out)
