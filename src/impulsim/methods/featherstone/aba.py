"""Featherstone's articulated-body algorithm and Mirtich's impulse propagation, O(n) over the tree.

Notation (Featherstone 2008, Table 7.1; Holck eqs. 3.31–3.34 in the older force-first notation):
Î_i rigid-body inertia, I^A_i articulated inertia, p^A_i articulated bias force, S_i motion subspace,
U_i = I^A_i S_i, D_i = S_iᵀ U_i, u_i = τ_i − S_iᵀ p^A_i, ĉ_i = v̂_i ×m S_i q̇_i. All spatial quantities in
world coordinates about the origin (see kinematics.py), so the parent/child transforms are identities.

    pass 1 (root → tips):  v̂_i, ĉ_i, p^A_i = v̂_i ×f Î_i v̂_i − f̂_ext,i, I^A_i = Î_i
    pass 2 (tips → root):  I^a = I^A_i − U_i D_i⁻¹ U_iᵀ,  p^a = p^A_i + I^a ĉ_i + U_i D_i⁻¹ u_i,
                           I^A_parent += I^a,  p^A_parent += p^a
    pass 3 (root → tips):  â′ = â_parent + ĉ_i,  q̈_i = D_i⁻¹ (u_i − U_iᵀ â′),  â_i = â′ + S_i q̈_i

Gravity enters as the fictitious base acceleration â_0 = −[0; g].

An impulse is the same computation with all velocity terms dropped (Mirtich; Holck eqs. 3.43–3.48):
an impulsive load ŷ on some bodies (and generalized impulses on some joints) gives
Δq̇ = H⁻¹ (Jᵀ ŷ + Q) from passes 2 and 3 with ĉ = 0, â_0 = 0, reusing U_i and D_i⁻¹ of the current pose.

Cost: each joint's work is written once (inlined helpers) and taken with a literal n_v for balls (3) and
hinges and sliders (1), so its loops have known lengths; I^a is symmetric, so I^A_parent's update computes
the upper triangle and mirrors it; a ball's D_i⁻¹ is adj(D_i) / det(D_i) (one division, no square roots).
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.math.spatial import cross_force_into, cross_motion_into, spatial_inertia_into
from impulsim.methods.featherstone.kinematics import universal_rates


@njit(cache=True, _nrt=False)
def body_inertias(tree_body, body_mass, body_inertia, body_pos, body_R, joint_I, tmp33):
    """Spatial inertia Î of every tree body about the world origin (world frame), into joint_I [n, 6, 6]."""
    for i in range(tree_body.shape[0]):
        b = tree_body[i]
        R = body_R[b]
        for r in range(3):
            for c in range(3):
                tmp33[r, c] = R[r, 0] * body_inertia[b, 0] * R[c, 0] + R[r, 1] * body_inertia[b, 1] * R[c, 1] + \
                    R[r, 2] * body_inertia[b, 2] * R[c, 2]
        spatial_inertia_into(body_mass[b], body_pos[b], tmp33, joint_I[i])


@njit(cache=True, forceinline=True)
def _add_to_parent(i, p, nv, IA, U, work):
    """I^A_p += I^A_i − U_i T_iᵀ with T_i = U_i D_i⁻¹ in work[2]: the upper triangle, mirrored (I^a is symmetric)."""
    for r in range(6):
        for c in range(r, 6):
            s = IA[i, r, c]
            for a in range(nv):
                s -= U[i, r, a] * work[2, c, a]
            IA[p, r, c] += s
            if c > r:
                IA[p, c, r] = IA[p, r, c]


@njit(cache=True, forceinline=True)
def _ball_inertia(i, tree_parent, joint_S, IA, U, Dinv, work):
    """_joint_inertia for a joint of three freedoms (a ball): D_i⁻¹ = adj(D_i) / det(D_i), with D_i positive
    definite when its leading minors are (Sylvester); the rest as there."""
    for r in range(6):
        for k in range(3):
            s = 0.0
            for m in range(6):
                s += IA[i, r, m] * joint_S[i, m, k]
            U[i, r, k] = s
    d00 = d10 = d11 = d20 = d21 = d22 = 0.0
    for m in range(6):
        s0, s1, s2 = joint_S[i, m, 0], joint_S[i, m, 1], joint_S[i, m, 2]
        u0, u1 = U[i, m, 0], U[i, m, 1]
        d00 += s0 * u0
        d10 += s1 * u0
        d11 += s1 * u1
        d20 += s2 * u0
        d21 += s2 * u1
        d22 += s2 * U[i, m, 2]
    c00 = d11 * d22 - d21 * d21
    c10 = d21 * d20 - d10 * d22
    c20 = d10 * d21 - d11 * d20
    c22 = d00 * d11 - d10 * d10
    det = d00 * c00 + d10 * c10 + d20 * c20
    if d00 <= 0.0 or c22 <= 0.0 or det <= 0.0:
        return False
    inv = 1.0 / det
    c11 = d00 * d22 - d20 * d20
    c21 = d10 * d20 - d00 * d21
    Dinv[i, 0, 0], Dinv[i, 1, 1], Dinv[i, 2, 2] = c00 * inv, c11 * inv, c22 * inv
    Dinv[i, 0, 1] = Dinv[i, 1, 0] = c10 * inv
    Dinv[i, 0, 2] = Dinv[i, 2, 0] = c20 * inv
    Dinv[i, 1, 2] = Dinv[i, 2, 1] = c21 * inv
    p = tree_parent[i]
    if p < 0:
        return True
    for c in range(6):
        for a in range(3):
            work[2, c, a] = Dinv[i, a, 0] * U[i, c, 0] + Dinv[i, a, 1] * U[i, c, 1] + Dinv[i, a, 2] * U[i, c, 2]
    _add_to_parent(i, p, 3, IA, U, work)
    return True


@njit(cache=True, forceinline=True)
def _joint_inertia(i, nv, tree_parent, joint_S, IA, U, Dinv, work):
    """U_i, D_i⁻¹ of joint i and I^A_parent += I^A_i − U_i D_i⁻¹ U_iᵀ; False if D_i is not positive definite.

    Inlined where it is called, so a literal ``nv`` (3: ball, 1: hinge or slider) gives loops of known length
    that the compiler unrolls; arrays are indexed in place (no views: a view costs reference counting)."""
    for r in range(6):
        for k in range(nv):
            s = 0.0
            for m in range(6):
                s += IA[i, r, m] * joint_S[i, m, k]
            U[i, r, k] = s
    # D = Sᵀ U (its lower triangle is what the factorization reads), then D⁻¹ = L⁻ᵀ L⁻¹ with L Lᵀ = D
    for a in range(nv):
        for b in range(a + 1):
            s = 0.0
            for m in range(6):
                s += joint_S[i, m, a] * U[i, m, b]
            work[0, a, b] = s
    for j in range(nv):
        s = work[0, j, j]
        for k in range(j):
            s -= work[1, j, k] * work[1, j, k]
        if s <= 0.0:
            return False
        work[1, j, j] = np.sqrt(s)
        for r in range(j + 1, nv):
            t = work[0, r, j]
            for k in range(j):
                t -= work[1, r, k] * work[1, j, k]
            work[1, r, j] = t / work[1, j, j]
    for c in range(nv):
        for r in range(nv):
            s = 1.0 if r == c else 0.0
            for k in range(r):
                s -= work[1, r, k] * Dinv[i, k, c]
            Dinv[i, r, c] = s / work[1, r, r]
        for r in range(nv - 1, -1, -1):
            s = Dinv[i, r, c]
            for k in range(r + 1, nv):
                s -= work[1, k, r] * Dinv[i, k, c]
            Dinv[i, r, c] = s / work[1, r, r]
    p = tree_parent[i]
    if p < 0:
        return True
    # I^A_p += I^A_i − U D⁻¹ Uᵀ, with T = U D⁻¹ (D⁻¹ symmetric) formed once: T[c, a] = Σ_b D⁻¹[a, b] U[c, b]
    for c in range(6):
        for a in range(nv):
            t = 0.0
            for b in range(nv):
                t += Dinv[i, a, b] * U[i, c, b]
            work[2, c, a] = t
    _add_to_parent(i, p, nv, IA, U, work)
    return True


@njit(cache=True, _nrt=False)
def articulated_inertias(tree_parent, tree_v_start, joint_S, joint_I,
                         # outputs
                         IA, U, Dinv, work):
    """Pass 2 for the inertias only: I^A_i, U_i = I^A_i S_i and D_i⁻¹ of every joint. ``work``: [3, 6, 6].

    Returns −1 on success, else the tree joint whose D_i is not positive definite.
    """
    n = tree_parent.shape[0]
    for i in range(n):
        for r in range(6):
            for c in range(6):
                IA[i, r, c] = joint_I[i, r, c]
    for i in range(n - 1, -1, -1):
        nv = tree_v_start[i + 1] - tree_v_start[i]
        if nv == 3:
            ok = _ball_inertia(i, tree_parent, joint_S, IA, U, Dinv, work)
        elif nv == 1:
            ok = _joint_inertia(i, 1, tree_parent, joint_S, IA, U, Dinv, work)
        else:
            ok = _joint_inertia(i, nv, tree_parent, joint_S, IA, U, Dinv, work)
        if not ok:
            return i
    return -1


@njit(cache=True, _nrt=False)
def _bias_forces(tree_parent, tree_v_start, joint_I, v, vj, f_ext, pA, c, tmp6):
    """Pass 1 (velocities given): ĉ_i = v̂_i ×m S_i q̇_i and p^A_i = v̂_i ×f Î_i v̂_i − f̂_ext,i."""
    for i in range(tree_parent.shape[0]):
        cross_motion_into(v[i], vj[i], c[i])
        for r in range(6):
            s = 0.0
            for m in range(6):
                s += joint_I[i, r, m] * v[i, m]
            tmp6[r] = s
        cross_force_into(v[i], tmp6, pA[i])
        for r in range(6):
            pA[i, r] -= f_ext[i, r]


@njit(cache=True, forceinline=True)
def _backward_joint(i, nv, tree_parent, tree_v_start, joint_S, IA, U, Dinv, tau, pA, c, u, with_c, tmp6):
    """_backward's work at joint i with ``nv`` freedoms (inlined: a literal nv unrolls the loops)."""
    d0 = tree_v_start[i]
    for k in range(nv):
        s = tau[d0 + k]
        for m in range(6):
            s -= joint_S[i, m, k] * pA[i, m]
        u[i, k] = s
    p = tree_parent[i]
    if p < 0:
        return
    # w = D⁻¹ (u − Uᵀ ĉ): the combination of U columns both corrections need; u − Uᵀ ĉ first, into tmp6
    for b in range(nv):
        t = u[i, b]
        if with_c:
            for m in range(6):
                t -= U[i, m, b] * c[i, m]
        tmp6[b] = t
    for a in range(nv):
        s = 0.0
        for b in range(nv):
            s += Dinv[i, a, b] * tmp6[b]
        u[i, 6 + a] = s   # stored after the n_v entries of u_i (u has 12 columns)
    for r in range(6):
        s = pA[i, r]
        if with_c:
            for m in range(6):
                s += IA[i, r, m] * c[i, m]
        for a in range(nv):
            s += U[i, r, a] * u[i, 6 + a]
        pA[p, r] += s


@njit(cache=True, _nrt=False)
def _backward(lo, hi, tree_parent, tree_v_start, joint_S, IA, U, Dinv, tau, pA, c, u, with_c, tmp6):
    """Pass 2 for the bias: u_i = τ_i − S_iᵀ p^A_i and p^A_parent += p^A_i + I^a ĉ_i + U_i D_i⁻¹ u_i.

    ``with_c`` = 0 drops the ĉ term (impulses). I^a ĉ = I^A ĉ − U D⁻¹ (Uᵀ ĉ). Runs over the tree joints
    lo .. hi−1 (a union of whole trees). ``tmp6``: [6] scratch.
    """
    for i in range(hi - 1, lo - 1, -1):
        nv = tree_v_start[i + 1] - tree_v_start[i]
        if nv == 3:
            _backward_joint(i, 3, tree_parent, tree_v_start, joint_S, IA, U, Dinv, tau, pA, c, u, with_c,
                            tmp6)
        elif nv == 1:
            _backward_joint(i, 1, tree_parent, tree_v_start, joint_S, IA, U, Dinv, tau, pA, c, u, with_c,
                            tmp6)
        else:
            _backward_joint(i, nv, tree_parent, tree_v_start, joint_S, IA, U, Dinv, tau, pA, c, u, with_c,
                            tmp6)


@njit(cache=True, forceinline=True)
def _forward_joint(i, nv, tree_parent, tree_v_start, joint_S, U, Dinv, c, u, a0, with_c, qdd, a, tmp6):
    """_forward's work at joint i with ``nv`` freedoms (inlined: a literal nv unrolls the loops)."""
    d0 = tree_v_start[i]
    p = tree_parent[i]
    for r in range(6):
        tmp6[r] = (a[p, r] if p >= 0 else a0[r]) + (c[i, r] if with_c else 0.0)
    for b in range(nv):      # u_i − U_iᵀ â′ once, in the free columns of u (_backward's w is used up)
        t = u[i, b]
        for m in range(6):
            t -= U[i, m, b] * tmp6[m]
        u[i, 6 + b] = t
    for k in range(nv):
        s = 0.0
        for b in range(nv):
            s += Dinv[i, k, b] * u[i, 6 + b]
        qdd[d0 + k] = s
    for r in range(6):
        s = tmp6[r]
        for k in range(nv):
            s += joint_S[i, r, k] * qdd[d0 + k]
        a[i, r] = s


@njit(cache=True, _nrt=False)
def _forward(lo, hi, tree_parent, tree_v_start, joint_S, U, Dinv, c, u, a0, with_c, qdd, a, tmp6):
    """Pass 3: â′ = â_parent + ĉ_i, q̈_i = D_i⁻¹ (u_i − U_iᵀ â′), â_i = â′ + S_i q̈_i (tree joints lo .. hi−1)."""
    for i in range(lo, hi):
        nv = tree_v_start[i + 1] - tree_v_start[i]
        if nv == 3:
            _forward_joint(i, 3, tree_parent, tree_v_start, joint_S, U, Dinv, c, u, a0, with_c, qdd, a, tmp6)
        elif nv == 1:
            _forward_joint(i, 1, tree_parent, tree_v_start, joint_S, U, Dinv, c, u, a0, with_c, qdd, a, tmp6)
        else:
            _forward_joint(i, nv, tree_parent, tree_v_start, joint_S, U, Dinv, c, u, a0, with_c, qdd, a, tmp6)


@njit(cache=True, _nrt=False)
def forward_dynamics(structure, aba_in, qd,
                     # outputs
                     qdd, aba_ws):
    """q̈ of the whole tree (ABA) at the rates q̇. ``structure`` = the tree joints' kinds, parents and first
    velocity indices; ``aba_in`` = (S, Î, v̂, S q̇, f̂_ext, τ, â_0); ``aba_ws`` = (I^A, U, D⁻¹, p^A, ĉ, u, â,
    work, tmp6), left holding the passes' results (groups of :mod:`.groups`). Returns −1, or the tree joint
    with a singular D_i."""
    tree_kind, tree_parent, tree_v_start = structure
    joint_S, joint_I, v, vj, f_ext, tau, a0 = aba_in
    IA, U, Dinv, pA, c, u, a, work, tmp6 = aba_ws
    bad = articulated_inertias(tree_parent, tree_v_start, joint_S, joint_I, IA, U, Dinv, work)
    if bad >= 0:
        return bad
    _bias_forces(tree_parent, tree_v_start, joint_I, v, vj, f_ext, pA, c, tmp6)
    universal_rates(tree_kind, tree_v_start, joint_S, qd, c)
    one = tree_parent.shape[0] >= 0   # a run-time True: keeps one compiled copy of the passes
    n = tree_parent.shape[0]
    _backward(0, n, tree_parent, tree_v_start, joint_S, IA, U, Dinv, tau, pA, c, u, one, tmp6)
    _forward(0, n, tree_parent, tree_v_start, joint_S, U, Dinv, c, u, a0, one, qdd, a, tmp6)
    return -1


@njit(cache=True, _nrt=False)
def impulse_response(lo, hi, tree_parent, tree_v_start, joint_S, IA, U, Dinv, y_body, y_joint, zero6,
                     # outputs
                     dqd, dv, pA, c, u, tmp6):
    """Δq̇ = H⁻¹ (Jᵀ ŷ + Q) and the bodies' spatial velocity changes Δv̂ for impulsive loads.

    ``y_body`` [n, 6]: spatial impulse [N s about the origin; N s] on each tree body (world);
    ``y_joint`` [n_v]: generalized impulses [N m s or N s]; ``zero6``: a zero [6] (no base motion).
    Only the tree joints lo .. hi−1 are visited (whole trees, in pre-order): loads elsewhere are ignored
    and the outputs elsewhere are not written (Holck's Lemma 4: other trees are not affected).
    Uses U, D⁻¹ (and I^A) of the current pose.
    """
    for i in range(lo, hi):
        for r in range(6):
            pA[i, r] = -y_body[i, r]   # an applied load enters the bias with a minus sign
            c[i, r] = 0.0
    off = tree_parent.shape[0] < 0     # a run-time False
    _backward(lo, hi, tree_parent, tree_v_start, joint_S, IA, U, Dinv, y_joint, pA, c, u, off, tmp6)
    _forward(lo, hi, tree_parent, tree_v_start, joint_S, U, Dinv, c, u, zero6, off, dqd, dv, tmp6)
