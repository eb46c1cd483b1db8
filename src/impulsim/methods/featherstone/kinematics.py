"""Kinematics of the tree: joint coordinates ↔ body poses, motion subspaces and spatial velocities.

All spatial vectors here are in world coordinates about the world origin (Featherstone's "absolute"
formulation): motion v̂ = [ω; v_O], v_O = velocity of the body point at the origin. With every quantity in
one frame the articulated-body recursions need no transforms between links. Each joint's motion subspace
S (6 × n_v columns) is attached to the child body, so its rate is Ṡ = v̂ ×m S and the velocity-product
acceleration is ĉ = v̂ ×m (S q̇) (Featherstone 2008, eq. 7.35 with body-fixed S).

Tree joint types (kind codes of :class:`TreeJoint`): 0 fixed, 1 revolute, 2 prismatic, 3 cylindrical,
4 spherical, 5 free, 6 universal. A universal joint's first column turns about the parent's axis, which is
not fixed in the child: its rate adds −q̇1 q̇2 (S1 ×m S0) to ĉ (:func:`universal_rates`).
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.math.quaternion import quat_to_matrix_into

FIXED, REVOLUTE, PRISMATIC, CYLINDRICAL, SPHERICAL, FREE, UNIVERSAL = 0, 1, 2, 3, 4, 5, 6


@njit(cache=True, _nrt=False)
def quat_mul_into(p, q, out):
    """out = p ⊗ q (scalar first)."""
    w = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3]
    x = p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2]
    y = p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1]
    z = p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0]
    out[0], out[1], out[2], out[3] = w, x, y, z


quat_matrix_into = quat_to_matrix_into
"""Rotation matrix of the unit quaternion q into ``out`` (columns = rotated axes)."""


@njit(cache=True, _nrt=False)
def _normalize4(q):
    n = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    for k in range(4):
        q[k] /= n


@njit(cache=True, _nrt=False)
def _joint_motion(kind, q, q0, jq):
    """Joint motion J(q): rotation quaternion into ``jq``; returns the translation (x, y, z) [m] in the parent
    joint frame."""
    jq[0], jq[1], jq[2], jq[3] = 1.0, 0.0, 0.0, 0.0
    if kind == REVOLUTE or kind == CYLINDRICAL:
        jq[0] = np.cos(0.5 * q[q0])
        jq[1] = np.sin(0.5 * q[q0])
        if kind == CYLINDRICAL:
            return q[q0 + 1], 0.0, 0.0
    elif kind == PRISMATIC:
        return q[q0], 0.0, 0.0
    elif kind == SPHERICAL:
        for k in range(4):
            jq[k] = q[q0 + k]
    elif kind == UNIVERSAL:          # Rx(q1) ⊗ Ry(q2)
        c1, s1 = np.cos(0.5 * q[q0]), np.sin(0.5 * q[q0])
        c2, s2 = np.cos(0.5 * q[q0 + 1]), np.sin(0.5 * q[q0 + 1])
        jq[0], jq[1], jq[2], jq[3] = c1 * c2, s1 * c2, c1 * s2, s1 * s2
    elif kind == FREE:
        for k in range(4):
            jq[k] = q[q0 + 3 + k]
        return q[q0], q[q0 + 1], q[q0 + 2]
    return 0.0, 0.0, 0.0


@njit(cache=True, _nrt=False)
def forward_kinematics(tree_kind, tree_body, tree_parent, tree_parent_body, tree_q_start, tree_frame_p,
                       tree_origin_p, tree_frame_c, tree_origin_c, q, body_pos, body_quat,
                       # outputs
                       body_R, joint_Rp, joint_Rc, joint_point, tmp4):
    """Poses of all tree bodies from the joint positions q (parents first); static bodies keep theirs.

    Writes body_pos/body_quat/body_R of the child bodies (and body_R of the static bodies the trees hang
    from), the parent-side joint point ``joint_point`` [m] and the world rotations of the joint frames that
    the motion subspaces read: ``joint_Rp`` (parent side) of joints with an axis or a translation (all but
    ball and fixed joints), ``joint_Rc`` (child side) of ball and universal joints; the other entries are
    left as they were. ``tmp4``: [4, 4].
    """
    for i in range(tree_kind.shape[0]):
        kind = tree_kind[i]
        b = tree_body[i]
        p = tree_parent_body[i]
        quat_mul_into(body_quat[p], tree_frame_p[i], tmp4[0])       # parent joint frame
        t0, t1, t2 = _joint_motion(kind, q, tree_q_start[i], tmp4[1])
        quat_mul_into(tmp4[0], tmp4[1], tmp4[2])                       # child joint frame
        tmp4[3, 0] = tree_frame_c[i, 0]
        for k in range(1, 4):
            tmp4[3, k] = -tree_frame_c[i, k]
        quat_mul_into(tmp4[2], tmp4[3], body_quat[b])                  # R_c = R_jc Q_cᵀ
        _normalize4(body_quat[b])
        slides = kind == PRISMATIC or kind == CYLINDRICAL or kind == FREE
        if slides or kind == REVOLUTE or kind == UNIVERSAL:
            quat_matrix_into(tmp4[0], joint_Rp[i])
        if kind == SPHERICAL or kind == UNIVERSAL:
            quat_matrix_into(tmp4[2], joint_Rc[i])
        quat_matrix_into(body_quat[b], body_R[b])
        if tree_parent[i] < 0:        # a static parent; a moving one got its body_R as a child, above
            quat_matrix_into(body_quat[p], body_R[p])
        for r in range(3):
            joint_point[i, r] = body_pos[p, r] + body_R[p, r, 0] * tree_origin_p[i, 0] + \
                body_R[p, r, 1] * tree_origin_p[i, 1] + body_R[p, r, 2] * tree_origin_p[i, 2]
        for r in range(3):
            x = joint_point[i, r]
            if slides:
                x = x + joint_Rp[i, r, 0] * t0 + joint_Rp[i, r, 1] * t1 + joint_Rp[i, r, 2] * t2
            body_pos[b, r] = x - (body_R[b, r, 0] * tree_origin_c[i, 0] + body_R[b, r, 1] * tree_origin_c[i, 1] +
                                  body_R[b, r, 2] * tree_origin_c[i, 2])


@njit(cache=True, _nrt=False)
def _set_column(S, col, w0, w1, w2, point):
    """Column [w; point × w] of S (a unit rotation about an axis through ``point``)."""
    _set_column_at(S, col, w0, w1, w2, point[0], point[1], point[2])


@njit(cache=True, _nrt=False)
def _set_column_at(S, col, w0, w1, w2, p0, p1, p2):
    """Column [w; p × w] of S (a unit rotation about an axis through the point p)."""
    S[0, col], S[1, col], S[2, col] = w0, w1, w2
    S[3, col] = p1 * w2 - p2 * w1
    S[4, col] = p2 * w0 - p0 * w2
    S[5, col] = p0 * w1 - p1 * w0


@njit(cache=True, _nrt=False)
def _translation_column(S, col, d0, d1, d2):
    for r in range(3):
        S[r, col] = 0.0
    S[3, col], S[4, col], S[5, col] = d0, d1, d2


@njit(cache=True, _nrt=False)
def motion_subspaces(tree_kind, tree_body, tree_q_start, q, body_pos, body_R, joint_Rp, joint_Rc,
                     joint_point,
                     # outputs
                     joint_S):
    """World motion subspace S of every tree joint, columns 0..n_v−1 of ``joint_S`` [n, 6, 6]."""
    for i in range(tree_kind.shape[0]):
        kind = tree_kind[i]
        S = joint_S[i]
        if kind == REVOLUTE or kind == CYLINDRICAL or kind == PRISMATIC:
            u0, u1, u2 = joint_Rp[i, 0, 0], joint_Rp[i, 1, 0], joint_Rp[i, 2, 0]
            if kind == PRISMATIC:
                _translation_column(S, 0, u0, u1, u2)
            else:
                # the axis line passes through the child's joint point (parent point + displacement)
                d = q[tree_q_start[i] + 1] if kind == CYLINDRICAL else 0.0
                _set_column_at(S, 0, u0, u1, u2, joint_point[i, 0] + d * u0, joint_point[i, 1] + d * u1,
                               joint_point[i, 2] + d * u2)
                if kind == CYLINDRICAL:
                    _translation_column(S, 1, u0, u1, u2)
        elif kind == SPHERICAL:
            for k in range(3):
                _set_column(S, k, joint_Rc[i, 0, k], joint_Rc[i, 1, k], joint_Rc[i, 2, k], joint_point[i])
        elif kind == UNIVERSAL:     # the parent's axis x_p, then the child's axis y_c, through the joint point
            _set_column(S, 0, joint_Rp[i, 0, 0], joint_Rp[i, 1, 0], joint_Rp[i, 2, 0], joint_point[i])
            _set_column(S, 1, joint_Rc[i, 0, 1], joint_Rc[i, 1, 1], joint_Rc[i, 2, 1], joint_point[i])
        elif kind == FREE:
            b = tree_body[i]
            for k in range(3):
                _set_column(S, k, body_R[b, 0, k], body_R[b, 1, k], body_R[b, 2, k], body_pos[b])
                _translation_column(S, 3 + k, body_R[b, 0, k], body_R[b, 1, k], body_R[b, 2, k])


@njit(cache=True, _nrt=False)
def spatial_velocities(tree_parent, tree_v_start, joint_S, qd,
                       # outputs
                       v, vj):
    """v̂_i = v̂_parent + S_i q̇_i (world, about the origin) and the joint part vj_i = S_i q̇_i."""
    for i in range(tree_parent.shape[0]):
        d0 = tree_v_start[i]
        nv = tree_v_start[i + 1] - d0
        p = tree_parent[i]
        for r in range(6):
            s = 0.0
            for k in range(nv):
                s += joint_S[i, r, k] * qd[d0 + k]
            vj[i, r] = s
            v[i, r] = s + (v[p, r] if p >= 0 else 0.0)


@njit(cache=True, _nrt=False)
def write_body_velocities(tree_body, v, body_pos, body_vel, body_omega):
    """Maximal velocities: ω = v̂[:3], v_c = v_O + ω × c (world) for every tree body."""
    for i in range(tree_body.shape[0]):
        b = tree_body[i]
        w0, w1, w2 = v[i, 0], v[i, 1], v[i, 2]
        c = body_pos[b]
        body_omega[b, 0], body_omega[b, 1], body_omega[b, 2] = w0, w1, w2
        body_vel[b, 0] = v[i, 3] + w1 * c[2] - w2 * c[1]
        body_vel[b, 1] = v[i, 4] + w2 * c[0] - w0 * c[2]
        body_vel[b, 2] = v[i, 5] + w0 * c[1] - w1 * c[0]


@njit(cache=True, _nrt=False)
def read_coordinates(tree_kind, tree_body, tree_parent_body, tree_q_start, tree_v_start, tree_frame_p,
                     tree_origin_p, tree_frame_c, tree_origin_c, body_pos, body_quat, body_vel, body_omega,
                     # outputs
                     q, qd, tmp4, R3):
    """Joint positions and rates measured from maximal poses and velocities (the inverse of the above).

    Rates are the projections of the relative motion onto the joint's freedoms; for a state that meets
    the joints this is exact. ``tmp4`` [4, 4] and ``R3`` [3, 3, 3] are scratch.
    """
    for i in range(tree_kind.shape[0]):
        kind = tree_kind[i]
        b = tree_body[i]
        p = tree_parent_body[i]
        q0 = tree_q_start[i]
        d0 = tree_v_start[i]
        if kind == FREE:
            quat_matrix_into(body_quat[b], R3[0])
            for k in range(3):
                q[q0 + k] = body_pos[b, k]
                qd[d0 + k] = R3[0, 0, k] * body_omega[b, 0] + R3[0, 1, k] * body_omega[b, 1] + \
                    R3[0, 2, k] * body_omega[b, 2]
                qd[d0 + 3 + k] = R3[0, 0, k] * body_vel[b, 0] + R3[0, 1, k] * body_vel[b, 1] + \
                    R3[0, 2, k] * body_vel[b, 2]
            for k in range(4):
                q[q0 + 3 + k] = body_quat[b, k]
            continue
        if kind == FIXED:
            continue
        # J = (q_p ⊗ Q_p)⁻¹ ⊗ (q_c ⊗ Q_c)
        quat_mul_into(body_quat[p], tree_frame_p[i], tmp4[0])
        quat_mul_into(body_quat[b], tree_frame_c[i], tmp4[1])
        tmp4[2, 0] = tmp4[0, 0]
        for k in range(1, 4):
            tmp4[2, k] = -tmp4[0, k]
        quat_mul_into(tmp4[2], tmp4[1], tmp4[3])
        _normalize4(tmp4[3])
        if tmp4[3, 0] < 0.0:
            for k in range(4):
                tmp4[3, k] = -tmp4[3, k]
        quat_matrix_into(tmp4[0], R3[0])    # parent joint frame
        quat_matrix_into(tmp4[1], R3[1])    # child joint frame
        w0, w1, w2 = body_omega[b, 0] - body_omega[p, 0], body_omega[b, 1] - body_omega[p, 1], \
            body_omega[b, 2] - body_omega[p, 2]
        if kind == SPHERICAL:
            for k in range(4):
                q[q0 + k] = tmp4[3, k]
            for k in range(3):
                qd[d0 + k] = R3[1, 0, k] * w0 + R3[1, 1, k] * w1 + R3[1, 2, k] * w2
            continue
        if kind == UNIVERSAL:
            _universal_coordinates(tmp4[3], R3, w0, w1, w2, q, q0, qd, d0)
            continue
        slot = 0
        if kind == REVOLUTE or kind == CYLINDRICAL:
            q[q0] = 2.0 * np.arctan2(tmp4[3, 1], tmp4[3, 0])
            qd[d0] = R3[0, 0, 0] * w0 + R3[0, 1, 0] * w1 + R3[0, 2, 0] * w2
            slot = 1
        if kind == PRISMATIC or kind == CYLINDRICAL:
            q[q0 + slot], qd[d0 + slot] = _slide(i, p, b, tree_origin_p, tree_origin_c, body_pos, body_quat,
                                                 body_vel, body_omega, R3)


@njit(cache=True, _nrt=False)
def _universal_coordinates(J, R3, w0, w1, w2, q, q0, qd, d0):
    """Angles of J = Rx(q1) Ry(q2) (a unit quaternion with w ≥ 0; |q2| < π, so cos(q2/2) > 0) and their
    rates from ω_rel = (w0, w1, w2) = q̇1 x_p + q̇2 y_c with x_p ⟂ y_c (R3[0] column 0, R3[1] column 1)."""
    w, x, y, z = J[0], J[1], J[2], J[3]
    q[q0] = 2.0 * np.arctan2(x, w) if w * w + x * x > 1e-24 else 2.0 * np.arctan2(z, y)
    q[q0 + 1] = 2.0 * np.arctan2(y * w + z * x, w * w + x * x)
    qd[d0] = R3[0, 0, 0] * w0 + R3[0, 1, 0] * w1 + R3[0, 2, 0] * w2
    qd[d0 + 1] = R3[1, 0, 1] * w0 + R3[1, 1, 1] * w1 + R3[1, 2, 1] * w2


@njit(cache=True, _nrt=False)
def universal_rates(tree_kind, tree_v_start, joint_S, qd, c):
    """Add to ĉ = v̂ ×m S q̇ the part of Ṡ q̇ that a body-fixed S misses at universal joints: the first
    column turns with the parent, not the child, so Ṡ q̇ = v̂ ×m S q̇ − q̇1 q̇2 (S1 ×m S0)."""
    for i in range(tree_kind.shape[0]):
        if tree_kind[i] != UNIVERSAL:
            continue
        d0 = tree_v_start[i]
        f = qd[d0] * qd[d0 + 1]
        a0, a1, a2, b0, b1, b2 = joint_S[i, 0, 1], joint_S[i, 1, 1], joint_S[i, 2, 1], joint_S[i, 3, 1], \
            joint_S[i, 4, 1], joint_S[i, 5, 1]
        m0, m1, m2, n0, n1, n2 = joint_S[i, 0, 0], joint_S[i, 1, 0], joint_S[i, 2, 0], joint_S[i, 3, 0], \
            joint_S[i, 4, 0], joint_S[i, 5, 0]
        # [a; b] ×m [m; n] = [a × m; a × n + b × m]
        c[i, 0] -= f * (a1 * m2 - a2 * m1)
        c[i, 1] -= f * (a2 * m0 - a0 * m2)
        c[i, 2] -= f * (a0 * m1 - a1 * m0)
        c[i, 3] -= f * (a1 * n2 - a2 * n1 + b1 * m2 - b2 * m1)
        c[i, 4] -= f * (a2 * n0 - a0 * n2 + b2 * m0 - b0 * m2)
        c[i, 5] -= f * (a0 * n1 - a1 * n0 + b0 * m1 - b1 * m0)


@njit(cache=True, _nrt=False)
def _slide(i, p, b, tree_origin_p, tree_origin_c, body_pos, body_quat, body_vel, body_omega, R3):
    """Displacement [m] of the child's joint point from the parent's along the axis (R3[0] column 0),
    and its rate [m/s] relative to the coincident point of the parent."""
    quat_matrix_into(body_quat[p], R3[2])
    quat_matrix_into(body_quat[b], R3[1])
    pos = 0.0
    rate = 0.0
    for r in range(3):
        pj = body_pos[p, r]
        pc = body_pos[b, r]
        for k in range(3):
            pj += R3[2, r, k] * tree_origin_p[i, k]
            pc += R3[1, r, k] * tree_origin_c[i, k]
        pos += (pc - pj) * R3[0, r, 0]
    for r in range(3):
        r1 = (r + 1) % 3
        r2 = (r + 2) % 3
        # child point c and its offsets from both centres of mass
        c1 = body_pos[b, r1] + R3[1, r1, 0] * tree_origin_c[i, 0] + R3[1, r1, 1] * tree_origin_c[i, 1] + \
            R3[1, r1, 2] * tree_origin_c[i, 2]
        c2 = body_pos[b, r2] + R3[1, r2, 0] * tree_origin_c[i, 0] + R3[1, r2, 1] * tree_origin_c[i, 1] + \
            R3[1, r2, 2] * tree_origin_c[i, 2]
        # (ω × d)_r = ω_r1 d_r2 − ω_r2 d_r1
        ub = body_vel[b, r] + body_omega[b, r1] * (c2 - body_pos[b, r2]) - body_omega[b, r2] * (c1 - body_pos[b, r1])
        ua = body_vel[p, r] + body_omega[p, r1] * (c2 - body_pos[p, r2]) - body_omega[p, r2] * (c1 - body_pos[p, r1])
        rate += (ub - ua) * R3[0, r, 0]
    return pos, rate


@njit(cache=True, _nrt=False)
def velocity_mismatch(tree_body, body_vel, body_omega, other_vel, other_omega):
    """Largest |difference| of the tree bodies' velocities [m/s] and angular velocities [rad/s]."""
    worst = 0.0
    for i in range(tree_body.shape[0]):
        b = tree_body[i]
        for r in range(3):
            worst = max(worst, abs(body_vel[b, r] - other_vel[b, r]), abs(body_omega[b, r] - other_omega[b, r]))
    return worst


@njit(cache=True, _nrt=False)
def copy_bodies(tree_body, body_pos, body_quat, body_vel, body_omega,
                # outputs
                out_pos, out_quat, out_vel, out_omega):
    """Poses and velocities of the tree bodies into the output arrays (a State's)."""
    for i in range(tree_body.shape[0]):
        b = tree_body[i]
        for r in range(3):
            out_pos[b, r] = body_pos[b, r]
            out_vel[b, r] = body_vel[b, r]
            out_omega[b, r] = body_omega[b, r]
        for r in range(4):
            out_quat[b, r] = body_quat[b, r]
