"""The whole integration step in one compiled call: RK4 or semi-implicit Euler over the ABA.

Calling a dozen kernels per evaluation from Python costs more than the O(n) work itself for small trees
(about 1 ms per RK4 step for one link, measured); these kernels run the same stages as
``TreeDynamics.accelerations`` inside Numba. Arguments travel as three tuples: ``tree`` (the structure),
``mdl`` (model parameters read afresh each step) and ``ws`` (the workspace of a TreeDynamics), the groups
of :mod:`.groups`.
"""

from impulsim.dynamics.forces import add_springs
from impulsim.kernel import njit
from impulsim.math.linalg import copy_rows
from impulsim.methods.featherstone import aba, kinematics as kin
from impulsim.methods.featherstone.articulated import (damping_forces, normalize_quaternions, position_rates,
                                                       spatial_loads)


@njit(cache=True, _nrt=True)
def _springs(mdl, body_pos, body_quat, body_vel, body_omega, force, torque):
    """The springs' loads added to force and torque: with Numba's runtime (the springs' kernel allocates its
    3-vectors), while the kernels here are compiled without it (they never allocate; see :mod:`.groups`)."""
    add_springs(mdl[3], mdl[4], mdl[5], mdl[6], mdl[7], mdl[8], mdl[9], body_pos, body_quat, body_vel, body_omega,
                mdl[2], force, torque)


@njit(cache=True, _nrt=False)
def pose_and_velocities(tree, mdl, ws, q, qd, inertias):
    """Body poses, joint frames, motion subspaces, spatial inertias at q; spatial and body velocities at q̇
    (TreeDynamics.pose then .velocities, on the same workspace). ``inertias`` False skips the spatial inertias
    (writing a state back needs only the poses and velocities)."""
    kind, body, parent, parent_body, q_start, v_start, frame_p, origin_p, frame_c, origin_c = tree
    body_mass, body_inertia = mdl[0], mdl[1]
    body_pos, body_quat, body_vel, body_omega, body_R, joint_Rp, joint_Rc, joint_point, S, I = ws[:10]
    v, vj, tmp4, tmp33 = ws[13], ws[14], ws[23], ws[24]
    kin.forward_kinematics(kind, body, parent, parent_body, q_start, frame_p, origin_p, frame_c, origin_c, q,
                           body_pos, body_quat, body_R, joint_Rp, joint_Rc, joint_point, tmp4)
    kin.motion_subspaces(kind, body, q_start, q, body_pos, body_R, joint_Rp, joint_Rc, joint_point, S)
    if inertias:
        aba.body_inertias(body, body_mass, body_inertia, body_pos, body_R, I, tmp33)
    kin.spatial_velocities(parent, v_start, S, qd, v, vj)
    kin.write_body_velocities(body, v, body_pos, body_vel, body_omega)


@njit(cache=True, _nrt=False)
def evaluate(tree, mdl, ws, damping, q, qd, qdot, qdd):
    """dq/dt and q̈ at (q, q̇); returns −1 or the tree joint with a singular articulated inertia."""
    pose_and_velocities(tree, mdl, ws, q, qd, True)
    return dynamics(tree, mdl, ws, damping, q, qd, qdot, qdd)


@njit(cache=True, _nrt=False)
def dynamics(tree, mdl, ws, damping, q, qd, qdot, qdd):
    """evaluate without its first stage: the workspace already holds the poses and velocities of (q, q̇)."""
    kind, body, parent, parent_body, q_start, v_start, frame_p, origin_p, frame_c, origin_c = tree
    (body_mass, body_inertia, body_inv_mass, spring_body_a, spring_body_b, spring_anchor_a, spring_anchor_b,
     spring_stiffness, spring_damping, spring_rest_length, gravity) = mdl
    (body_pos, body_quat, body_vel, body_omega, body_R, joint_Rp, joint_Rc, joint_point, S, I, IA, U, Dinv, v,
     vj, c, pA, a, f_ext, u, work, tmp6, a0, tmp4, tmp33, force, torque, tau, user_force, user_torque,
     tau_const) = ws
    copy_rows(user_force, force)
    copy_rows(user_torque, torque)
    if spring_body_a.shape[0] > 0:
        _springs(mdl, body_pos, body_quat, body_vel, body_omega, force, torque)
    spatial_loads(body, body_pos, force, torque, f_ext)
    damping_forces(kind, v_start, damping, qd, tau_const, tau)
    for r in range(3):
        a0[r] = 0.0
        a0[3 + r] = -gravity[r]          # gravity as the base acceleration â_0 = −[0; g]
    # small groups of arrays already unpacked, not tree and ws again (see groups.py: reference counts)
    bad = aba.forward_dynamics((kind, parent, v_start), (S, I, v, vj, f_ext, tau, a0), qd, qdd,
                               (IA, U, Dinv, pA, c, u, a, work, tmp6))
    position_rates(kind, q_start, v_start, q, qd, qdot, tmp4, tmp33)
    return bad


@njit(cache=True, _nrt=False)
def rk4_step(tree, mdl, ws, damping, h, q, qd, kq, kv, qs, vs, posed):
    """y ← y + h/6 (k1 + 2 k2 + 2 k3 + k4) for y = (q, q̇) (Holck's Multi uses RK4). ``posed``: the workspace
    already holds the poses and velocities of (q, q̇) (the first stage skips them; same values)."""
    kind, q_start = tree[0], tree[4]
    nq, nv = q.shape[0], qd.shape[0]
    for k in range(nq):
        qs[k] = q[k]
    for k in range(nv):
        vs[k] = qd[k]
    for s in range(4):
        if s > 0:
            w = h if s == 3 else 0.5 * h
            for k in range(nq):
                qs[k] = q[k] + w * kq[s - 1, k]
            for k in range(nv):
                vs[k] = qd[k] + w * kv[s - 1, k]
            normalize_quaternions(kind, q_start, qs)
        if s == 0 and posed:
            bad = dynamics(tree, mdl, ws, damping, qs, vs, kq[s], kv[s])
        else:
            bad = evaluate(tree, mdl, ws, damping, qs, vs, kq[s], kv[s])
        if bad >= 0:
            return bad
    for k in range(nq):
        q[k] += h / 6.0 * (kq[0, k] + 2.0 * kq[1, k] + 2.0 * kq[2, k] + kq[3, k])
    for k in range(nv):
        qd[k] += h / 6.0 * (kv[0, k] + 2.0 * kv[1, k] + 2.0 * kv[2, k] + kv[3, k])
    normalize_quaternions(kind, q_start, q)
    return -1


@njit(cache=True, _nrt=False)
def euler_step(tree, mdl, ws, damping, h, q, qd, kq, kv, qs, vs, posed):
    """Semi-implicit Euler: q̇ ← q̇ + h q̈(q, q̇), then q ← q + h dq/dt(q, q̇_new). ``posed`` as for rk4_step."""
    kind, q_start, v_start = tree[0], tree[4], tree[5]
    if posed:
        bad = dynamics(tree, mdl, ws, damping, q, qd, kq[0], kv[0])
    else:
        bad = evaluate(tree, mdl, ws, damping, q, qd, kq[0], kv[0])
    if bad >= 0:
        return bad
    for k in range(qd.shape[0]):
        qd[k] += h * kv[0, k]
    position_rates(kind, q_start, v_start, q, qd, kq[0], ws[23], ws[24])
    for k in range(q.shape[0]):
        q[k] += h * kq[0, k]
    normalize_quaternions(kind, q_start, q)
    return -1
