"""Collision impulses on articulated bodies (Mirtich; Holck §3.5, ch. 4), as Numba kernels.

The collision matrix of a contact comes from test impulses (Holck Table 3.4): a unit impulse e_k at the
contact point on body A (and −e_k on B) is propagated through the tree in O(n) (``impulse_response``) and the
change of the relative contact-point velocity is column k of K, Δu = K p (Holck eq. 3.40/3.41). Free bodies
are one-link trees with a 6-DoF joint, so rigid–rigid, rigid–link and link–link contacts (even two links of
one tree) all use the same code; a static body contributes nothing.

Joint limits (Holck ch. 4) are contacts between fictitious points whose equal and opposite impulses act as
a pure torque about a hinge axis (Theorem 9) or a pure force along a slider axis (Theorem 8). Such a pair is
exactly a generalized impulse λ on the joint coordinate, so the limit's K is the scalar (H⁻¹)_dd, obtained
by propagating a unit generalized impulse; the law is Newton's, frictionless (Holck eq. 4.3).

All rows (contacts and limits) are solved together by sequential impulses with accumulated, clamped
impulses: each visit computes the increment that meets the row's target velocity (normal: −e u_n⁻, Newton;
tangential: 0, sticking), clamps the accumulated normal impulse to ≥ 0 and the friction impulse to the
Coulomb cone (|p_t| ≤ μ_s p_n sticks, as Holck's Theorem 4 test for one contact; otherwise sliding with
|p_t| = μ_d p_n), applies it through the tree and moves on, until no visit changes a velocity by more
than eps_v.
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.methods.featherstone.aba import impulse_response


@njit(cache=True)
def _load_point(t, point, P, sign, y_body):
    """y_body[t] += sign · [point × P; P] (an impulse P [N s] at a world point, about the origin)."""
    if t < 0:
        return
    y_body[t, 0] += sign * (point[1] * P[2] - point[2] * P[1])
    y_body[t, 1] += sign * (point[2] * P[0] - point[0] * P[2])
    y_body[t, 2] += sign * (point[0] * P[1] - point[1] * P[0])
    y_body[t, 3] += sign * P[0]
    y_body[t, 4] += sign * P[1]
    y_body[t, 5] += sign * P[2]


@njit(cache=True)
def _clear(t, y_body):
    if t >= 0:
        for r in range(6):
            y_body[t, r] = 0.0


@njit(cache=True)
def point_velocity(t, point, v, out_sign, out):
    """out += out_sign · (v_O + ω × point) of tree body t (nothing for a static body, t < 0)."""
    if t < 0:
        return
    out[0] += out_sign * (v[t, 3] + v[t, 1] * point[2] - v[t, 2] * point[1])
    out[1] += out_sign * (v[t, 4] + v[t, 2] * point[0] - v[t, 0] * point[2])
    out[2] += out_sign * (v[t, 5] + v[t, 0] * point[1] - v[t, 1] * point[0])


@njit(cache=True)
def point_acceleration(t, p, v, a, gravity, sign, out):
    """out += sign · a_p, the acceleration [m/s²] of the material point p of tree body t: a_O + α × p +
    ω × (v_O + ω × p) from the spatial velocity v and the spatial acceleration a the ABA leaves (gravity,
    which it takes as a base acceleration, added back). Nothing for a static body (t < 0)."""
    if t < 0:
        return
    w0, w1, w2 = v[t, 0], v[t, 1], v[t, 2]
    vp0 = v[t, 3] + w1 * p[2] - w2 * p[1]
    vp1 = v[t, 4] + w2 * p[0] - w0 * p[2]
    vp2 = v[t, 5] + w0 * p[1] - w1 * p[0]
    out[0] += sign * (a[t, 3] + gravity[0] + a[t, 1] * p[2] - a[t, 2] * p[1] + w1 * vp2 - w2 * vp1)
    out[1] += sign * (a[t, 4] + gravity[1] + a[t, 2] * p[0] - a[t, 0] * p[2] + w2 * vp0 - w0 * vp2)
    out[2] += sign * (a[t, 5] + gravity[2] + a[t, 0] * p[1] - a[t, 1] * p[0] + w0 * vp1 - w1 * vp0)


@njit(cache=True)
def tangential_load_bias(c_ta, c_tb, c_pa, c_pb, c_n, c_colliding, v, a, gravity, lead,
                         # output
                         c_bias):
    """c_bias[k] = lead · (a_a − a_b), tangential part, for the resting contacts (0 for colliding ones)."""
    for k in range(c_ta.shape[0]):
        c_bias[k, 0] = c_bias[k, 1] = c_bias[k, 2] = 0.0
        if c_colliding[k]:
            continue
        point_acceleration(c_ta[k], c_pa[k], v, a, gravity, lead, c_bias[k])
        point_acceleration(c_tb[k], c_pb[k], v, a, gravity, -lead, c_bias[k])
        bn = _dot(c_bias[k], c_n[k])
        for r in range(3):
            c_bias[k, r] -= bn * c_n[k, r]


@njit(cache=True)
def relative_velocity(ta, tb, pa, pb, v, out):
    """u = u_a − u_b of a contact's two points [m/s], world."""
    out[0] = out[1] = out[2] = 0.0
    point_velocity(ta, pa, v, 1.0, out)
    point_velocity(tb, pb, v, -1.0, out)


@njit(cache=True)
def _tree_range(t, tree_root, tree_end):
    """Tree joints (lo, hi) of the whole tree that tree body t belongs to; (0, 0) for a static body."""
    if t < 0:
        return 0, 0
    r = tree_root[t]
    return r, tree_end[r]


@njit(cache=True)
def _respond(ta, tb, art, scratch):
    """impulse_response over the trees of bodies ta and tb only (each once); returns both ranges. ``art`` and
    ``scratch`` are the groups of :mod:`.groups`."""
    tree_root, tree_end, tree_parent, tree_v_start, joint_S, IA, U, Dinv, zero6 = art
    y_body, y_joint, dqd, dv, pA, c, u, tmp6 = scratch
    lo_a, hi_a = _tree_range(ta, tree_root, tree_end)
    lo_b, hi_b = _tree_range(tb, tree_root, tree_end)
    if hi_a > lo_a:
        impulse_response(lo_a, hi_a, tree_parent, tree_v_start, joint_S, IA, U, Dinv, y_body, y_joint, zero6,
                         dqd, dv, pA, c, u, tmp6)
    if hi_b > lo_b and (hi_a == lo_a or lo_b != lo_a):     # B's tree, unless empty or A's
        impulse_response(lo_b, hi_b, tree_parent, tree_v_start, joint_S, IA, U, Dinv, y_body, y_joint, zero6,
                         dqd, dv, pA, c, u, tmp6)
    return lo_a, hi_a, lo_b, hi_b


@njit(cache=True)
def collision_matrix(ta, tb, pa, pb, art, scratch,
                     # outputs
                     K, unit):
    """K (3×3) of one contact from three test impulses (Holck Table 3.4); no velocity is changed. ``art`` and
    ``scratch`` are the groups of :mod:`.groups`."""
    y_body, dv = scratch[0], scratch[3]
    for k in range(3):
        unit[0] = unit[1] = unit[2] = 0.0
        unit[k] = 1.0
        _load_point(ta, pa, unit, 1.0, y_body)
        _load_point(tb, pb, unit, -1.0, y_body)
        _respond(ta, tb, art, scratch)
        _clear(ta, y_body)
        _clear(tb, y_body)
        relative_velocity(ta, tb, pa, pb, dv, unit)
        K[0, k], K[1, k], K[2, k] = unit[0], unit[1], unit[2]


@njit(cache=True)
def limit_matrix(dof, t, art, scratch):
    """(H⁻¹)_dd: the rate change of coordinate ``dof`` (of tree joint t) per unit generalized impulse on it."""
    y_joint, dqd = scratch[1], scratch[2]
    y_joint[dof] = 1.0
    _respond(t, -1, art, scratch)
    y_joint[dof] = 0.0
    return dqd[dof]


@njit(cache=True)
def _apply_range(lo, hi, tree_v_start, dqd, dv, qd, v):
    for k in range(tree_v_start[lo], tree_v_start[hi]):
        qd[k] += dqd[k]
    for i in range(lo, hi):
        for r in range(6):
            v[i, r] += dv[i, r]


@njit(cache=True)
def _apply(ranges, tree_v_start, dqd, dv, qd, v):
    """q̇ += Δq̇ and v̂ += Δv̂ on the trees an impulse reached (``ranges`` from _respond)."""
    lo_a, hi_a, lo_b, hi_b = ranges
    if hi_a > lo_a:
        _apply_range(lo_a, hi_a, tree_v_start, dqd, dv, qd, v)
    if hi_b > lo_b and (hi_a == lo_a or lo_b != lo_a):     # B's tree, unless empty or A's
        _apply_range(lo_b, hi_b, tree_v_start, dqd, dv, qd, v)


@njit(cache=True)
def quad(a, K, b):
    """aᵀ K b for 3-vectors and a 3×3 matrix, without temporaries."""
    s = 0.0
    for r in range(3):
        s += a[r] * (K[r, 0] * b[0] + K[r, 1] * b[1] + K[r, 2] * b[2])
    return s


@njit(cache=True)
def _row(K, r, x):
    return K[r, 0] * x[0] + K[r, 1] * x[1] + K[r, 2] * x[2]


@njit(cache=True)
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def _friction_increment(K, t1, t2, u, Pn, Pt, mu_s, mu_d, slide, out):
    """New accumulated tangential impulse (world) for a contact whose velocity is u (with the old impulse
    Pt applied): the one that stops the slip if it lies in the static cone, else μ_d Pn against the slip.

    ``slide``: the unit slip direction (world) of a contact that arrived sliding, else zero. Such a contact
    slides along it for the whole step (as in the impulse method: the direction is fixed when the contact
    is classified), with at most μ_d Pn and never more than stops the slip along it. Following the
    instantaneous slip instead lets the four corners of a sliding box push each other sideways from sweep
    to sweep: the sweeps did not converge and the box picked up spins of 10 rad/s at one landing."""
    # 2×2 tangential block of K and the tangential velocity
    k11 = quad(t1, K, t1)
    k12 = quad(t1, K, t2)
    k21 = quad(t2, K, t1)
    k22 = quad(t2, K, t2)
    u1 = _dot(u, t1)
    u2 = _dot(u, t2)
    det = k11 * k22 - k12 * k21
    x1 = x2 = 0.0
    if det > 1e-14 * (k11 * k22 + 1e-300):
        x1 = -(k22 * u1 - k12 * u2) / det
        x2 = -(-k21 * u1 + k11 * u2) / det
    for r in range(3):
        out[r] = Pt[r] + x1 * t1[r] + x2 * t2[r]
    mag = np.sqrt(out[0] ** 2 + out[1] ** 2 + out[2] ** 2)
    if mag <= mu_s * Pn:
        return                    # sticking: the impulse that stops the slip lies in the cone
    if slide[0] != 0.0 or slide[1] != 0.0 or slide[2] != 0.0:
        _slide_along(K, slide, u, Pt, mu_d * Pn, out)
        return
    # sliding: |p_t| = μ_d p_n against the slip velocity (Coulomb, Holck Law 4: f_t = −μ f_n u_t/|u_t|),
    # not along the sticking impulse, which would also carry the part that stops the turning
    slip = np.sqrt(u1 * u1 + u2 * u2)
    if slip > 1e-12:
        for r in range(3):
            out[r] = -mu_d * Pn * (u1 * t1[r] + u2 * t2[r]) / slip
    else:
        scale = mu_d * Pn / mag
        for r in range(3):
            out[r] *= scale


@njit(cache=True)
def _slide_along(K, s, u, Pt, bound, out):
    """Friction of a contact sliding along the fixed unit direction s: the accumulated impulse −p s with
    p = min(bound, max(0, p_held + p_stop)), p_stop = (u·s) / (sᵀ K s) the impulse that stops the slip
    along s (Bender's eqs. 5.8, 5.9)."""
    kss = quad(s, K, s)
    held = -_dot(Pt, s)
    p_stop = _dot(u, s) / kss if kss > 0.0 else 0.0
    p = min(bound, max(0.0, held + p_stop))
    for r in range(3):
        out[r] = -p * s[r]


IMMOVABLE = 1e-12
"""A contact whose normal inverse mass nᵀKn is below this fraction of K's trace cannot be moved along its
normal by any impulse (a ball pinned at its centre by a hinge, resting on the floor): it gets none, where
dividing by nᵀKn would fail or give an impulse of ~1e16 N s."""


@njit(cache=True)
def sequential_impulses(contacts, c_target, c_bias, friction, patches, limits, art, eps_v, max_iter,
                        # in/out
                        motion, c_P, l_lam,
                        # scratch
                        scratch, work3):
    """Solve all rows; returns (sweeps, largest velocity change of the last sweep [m/s or rad/s]).

    ``c_patch``: patch (contacts of one body pair) of each contact; ``patch_size`` its number of contacts;
    ``patch_Pn`` (zeroed by the caller) accumulates each patch's total normal impulse [N s]. ``c_bias``: the
    change of each contact's relative velocity that the step's loads bring by its middle [m/s]; targets and
    friction apply to the velocity with it (a resting contact holds against what gravity adds). ``friction``
    = (μ_s, μ_d, slip direction of the contacts that arrived sliding, see :func:`_friction_increment`). The groups
    (``contacts``, ``patches``, ``limits``, ``art``, ``motion`` = (q̇, v̂), ``scratch``) are those of
    :mod:`.groups`.
    """
    c_ta, c_tb, c_pa, c_pb, c_n, c_t1, c_t2, c_K = contacts
    c_mus, c_mud, c_slide = friction
    c_patch, patch_size, patch_Pn = patches
    l_dof, l_joint, l_dir, l_K, l_target = limits
    tree_v_start = art[3]
    qd, v = motion
    y_body, y_joint, dqd, dv = scratch[:4]
    n_c = c_ta.shape[0]
    n_l = l_dof.shape[0]
    change = 0.0
    sweeps = 0
    uvec = work3[0]
    dP = work3[1]
    Pt = work3[2]
    newPt = work3[3]
    for it in range(max_iter):
        sweeps = it + 1
        change = 0.0
        for k in range(n_c):
            ta, tb = c_ta[k], c_tb[k]
            n = c_n[k]
            relative_velocity(ta, tb, c_pa[k], c_pb[k], v, uvec)
            for r in range(3):
                uvec[r] += c_bias[k, r]
            un = _dot(uvec, n)
            Knn = quad(n, c_K[k], n)
            if not Knn > IMMOVABLE * (c_K[k, 0, 0] + c_K[k, 1, 1] + c_K[k, 2, 2]):
                continue            # no impulse moves the point along its normal: the joints carry the load
            Pn_old = _dot(c_P[k], n)
            Pn = max(Pn_old + (c_target[k] - un) / Knn, 0.0)
            patch = c_patch[k]
            patch_Pn[patch] += Pn - Pn_old
            for r in range(3):
                Pt[r] = c_P[k, r] - Pn_old * n[r]
                dP[r] = (Pn - Pn_old) * n[r]
            # velocity after the normal increment (K is constant during the collision: Holck Theorem 1)
            for r in range(3):
                uvec[r] += _row(c_K[k], r, dP)
            if c_mus[k] > 0.0 or c_mud[k] > 0.0:
                # the cone uses the patch's mean normal impulse: how a patch's load splits between its
                # points is not determined for a rigid pair (a box on four corners), and a lopsided split
                # from the sweep order would otherwise turn a sliding box (its friction ∝ each point's load)
                share = patch_Pn[patch] / patch_size[patch]
                _friction_increment(c_K[k], c_t1[k], c_t2[k], uvec, share, Pt, c_mus[k], c_mud[k], c_slide[k], newPt)
            else:
                newPt[0] = newPt[1] = newPt[2] = 0.0
            for r in range(3):
                dP[r] += newPt[r] - Pt[r]
                c_P[k, r] = Pn * n[r] + newPt[r]
            du = np.sqrt(_row(c_K[k], 0, dP) ** 2 + _row(c_K[k], 1, dP) ** 2 + _row(c_K[k], 2, dP) ** 2)
            if du == 0.0:
                continue
            change = max(change, du)
            _load_point(ta, c_pa[k], dP, 1.0, y_body)
            _load_point(tb, c_pb[k], dP, -1.0, y_body)
            ranges = _respond(ta, tb, art, scratch)
            _clear(ta, y_body)
            _clear(tb, y_body)
            _apply(ranges, tree_v_start, dqd, dv, qd, v)
        for k in range(n_l):
            d = l_dof[k]
            rate = l_dir[k] * qd[d]
            lam = max(l_lam[k] + (l_target[k] - rate) / l_K[k], 0.0)
            dlam = lam - l_lam[k]
            l_lam[k] = lam
            if dlam == 0.0:
                continue
            change = max(change, abs(dlam) * l_K[k])
            y_joint[d] = l_dir[k] * dlam
            ranges = _respond(l_joint[k], -1, art, scratch)
            y_joint[d] = 0.0
            _apply(ranges, tree_v_start, dqd, dv, qd, v)
        if change <= eps_v:
            break
    return sweeps, change
