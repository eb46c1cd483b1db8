"""Contacts in the Lagrange method: collisions and resting contacts as one velocity-level complementarity
problem per step, held as constant contact forces over the integrator step.

Per step, before the Runge–Kutta step (Wagner adds the compensation forces of resting contacts as external
forces, so the integrator needs no restart; here collisions go the same way):

1. the contacts of the state (the shared collision Detector, within eps_c) become rows: per contact a normal
   row n and two tangent rows t₁, t₂ in world (v, ω) form, n from body B towards body A;
2. the velocities the step would end with without contacts, v* = v + h v̇(v) (one evaluation of the
   constrained equations of motion: the joints' forces are in v̇), are corrected by impulses P over the
   contact rows and the joints' rows: a projected Gauss–Seidel sweep over [J; N; T] with the joint rows
   bilateral (their velocities stay as in v*, so the contact impulses act through the joints' constrained
   mobility, the Delassus operator of the contacts projected onto the joints), each normal row
   complementary (λ_n ≥ 0, u_n ≥ target, λ_n (u_n − target) = 0) and each tangent pair in the Coulomb cone
   |λ_t| ≤ μ λ_n, aiming at u_t = 0 (stick) and sliding on the cone's edge otherwise;
3. the contact part of the impulses is held as the constant force P / h over the step; the Lagrange
   multipliers of the joints answer it in every stage, so the joints stay satisfied as without contacts.

Targets of the normal rows at the step's end: a contact approaching faster than ``rest_speed`` (default
2 |g| h, what gravity adds in two steps) that closes within the step leaves at −e times its approach speed
(Newton's law, e from the two materials); any other contact may close at most its remaining gap,
u_n ≥ −max(d, 0) / h (resting contact: u_n ≥ 0 in touch). With a constant force over the step the positions
move with the mean of the start and end velocities, so a box resting or sticking (u = 0 at both ends) does
not move at all, and a sliding box decelerates by exactly μ g cos θ − g sin θ.

After the step, contacts deeper than ``slop`` are pushed apart by displacements of the same form
(Gauss–Seidel over the normal rows and the holonomic joint rows, the joints kept to first order): the
position correction, which adds no velocity and so no energy.
"""
from __future__ import annotations

import numpy as np

from impulsim.contact.materials import DEFAULT_FRICTION_RULE, DEFAULT_RESTITUTION_RULE, combine, parse_rule
from impulsim.contact.warmstart import make_keys, match
from impulsim.kernel import njit
from impulsim.methods.lagrange.limits import _displace as displace

BILATERAL, NORMAL, TANGENT = 0, 1, 2


@njit(cache=True)
def _onto_disc(l1, l2, bound):
    """(l1, l2) projected onto the friction disc of radius ``bound`` [N s] (Coulomb's cone at one normal
    impulse)."""
    norm = np.sqrt(l1 * l1 + l2 * l2)
    if norm > bound:
        s = bound / norm if norm > 0.0 else 0.0
        return l1 * s, l2 * s
    return l1, l2


@njit(cache=True)
def gauss_seidel(row_a, row_b, Ja, Jb, kind, mu, target, inv_mass, inv_inertia, v, lam, max_iter, tol):
    """Projected Gauss–Seidel on the rows' velocities u_r = Ja·v[a] + Jb·v[b] (world (v, ω) per body, v is
    changed in place by the impulses M⁻¹ Jᵀ λ; λ accumulates in ``lam``). Rows: BILATERAL u = target;
    NORMAL u ≥ target, λ ≥ 0, complementary; a TANGENT row r is followed by its second tangent r + 1 and
    preceded by its normal row: the pair aims at u = target, within |λ_t| ≤ mu[r] λ_n (Coulomb's cone).
    Stops when a sweep changes no row velocity by more than tol [m/s]. ``lam`` on entry is a warm start
    (applied to v first). Returns the sweeps done."""
    n_rows = row_a.shape[0]
    Wa = np.zeros((n_rows, 6))
    Wb = np.zeros((n_rows, 6))
    D = np.zeros(n_rows)
    for r in range(n_rows):
        a, b = row_a[r], row_b[r]
        for i in range(3):
            Wa[r, i] = inv_mass[a] * Ja[r, i]
            Wb[r, i] = inv_mass[b] * Jb[r, i]
            for j in range(3):
                Wa[r, 3 + i] += inv_inertia[a, i, j] * Ja[r, 3 + j]
                Wb[r, 3 + i] += inv_inertia[b, i, j] * Jb[r, 3 + j]
        d = 0.0
        for i in range(6):
            d += Ja[r, i] * Wa[r, i] + Jb[r, i] * Wb[r, i]
        D[r] = d
    for r in range(n_rows):             # a warm start: the impulses lam holds on entry act first
        if lam[r] != 0.0:
            _apply(r, row_a, row_b, Wa, Wb, lam[r], v)
    sweeps = 0
    for it in range(max_iter):
        sweeps = it + 1
        change = 0.0
        r = 0
        while r < n_rows:
            k = kind[r]
            if k == TANGENT:
                dl = np.zeros(2)
                for q in range(2):
                    if D[r + q] > 0.0:
                        dl[q] = (target[r + q] - _rate(r + q, row_a, row_b, Ja, Jb, v)) / D[r + q]
                l1, l2 = lam[r] + dl[0], lam[r + 1] + dl[1]
                l1, l2 = _onto_disc(l1, l2, mu[r] * lam[r - 1])
                dl[0], dl[1] = l1 - lam[r], l2 - lam[r + 1]
                for q in range(2):
                    _apply(r + q, row_a, row_b, Wa, Wb, dl[q], v)
                    lam[r + q] += dl[q]
                    change = max(change, abs(dl[q]) * D[r + q])
                r += 2
                continue
            if D[r] > 0.0:
                dl = (target[r] - _rate(r, row_a, row_b, Ja, Jb, v)) / D[r]
                if k == NORMAL and lam[r] + dl < 0.0:
                    dl = -lam[r]
                _apply(r, row_a, row_b, Wa, Wb, dl, v)
                lam[r] += dl
                change = max(change, abs(dl) * D[r])
            r += 1
        if change <= tol:
            break
    return sweeps


@njit(cache=True)
def gauss_seidel_dense(K, kind, mu, target, u, lam, max_iter, tol):
    """The projected Gauss–Seidel of :func:`gauss_seidel` on the contact rows alone, over their Delassus
    matrix K (u = u* + K λ, ``u`` changed in place): for contacts on jointed bodies, whose K is the
    contacts' mobility projected onto the joints. Returns the sweeps done."""
    n_rows = K.shape[0]
    for r in range(n_rows):             # a warm start: the impulses lam holds on entry act first
        if lam[r] != 0.0:
            for i in range(n_rows):
                u[i] += K[i, r] * lam[r]
    sweeps = 0
    dl = np.zeros(2)
    for it in range(max_iter):
        sweeps = it + 1
        change = 0.0
        r = 0
        while r < n_rows:
            if kind[r] == TANGENT:
                for q in range(2):
                    dl[q] = (target[r + q] - u[r + q]) / K[r + q, r + q] if K[r + q, r + q] > 0.0 else 0.0
                l1, l2 = lam[r] + dl[0], lam[r + 1] + dl[1]
                l1, l2 = _onto_disc(l1, l2, mu[r] * lam[r - 1])
                dl[0], dl[1] = l1 - lam[r], l2 - lam[r + 1]
                for q in range(2):
                    lam[r + q] += dl[q]
                    for i in range(n_rows):
                        u[i] += K[i, r + q] * dl[q]
                    change = max(change, abs(dl[q]) * K[r + q, r + q])
                r += 2
                continue
            if K[r, r] > 0.0:
                d = (target[r] - u[r]) / K[r, r]
                if kind[r] == NORMAL and lam[r] + d < 0.0:
                    d = -lam[r]
                lam[r] += d
                for i in range(n_rows):
                    u[i] += K[i, r] * d
                change = max(change, abs(d) * K[r, r])
            r += 1
        if change <= tol:
            break
    return sweeps


@njit(cache=True)
def _rate(r, row_a, row_b, Ja, Jb, v):
    a, b = row_a[r], row_b[r]
    u = 0.0
    for i in range(6):
        u += Ja[r, i] * v[a, i] + Jb[r, i] * v[b, i]
    return u


@njit(cache=True)
def _apply(r, row_a, row_b, Wa, Wb, dl, v):
    a, b = row_a[r], row_b[r]
    for i in range(6):
        v[a, i] += Wa[r, i] * dl
        v[b, i] += Wb[r, i] * dl


@njit(cache=True)
def contact_jacobians(body_a, body_b, point_a, point_b, pos, dirs, row_a, row_b, Ja, Jb):
    """Per contact c and direction q (dirs [C, k, 3], world) the row c·k + q: Ja = (d, r_a × d),
    Jb = −(d, r_b × d), r the contact point relative to the body's centre of mass [m]."""
    k = dirs.shape[1]
    for c in range(dirs.shape[0]):
        a, b = body_a[c], body_b[c]
        for q in range(k):
            r = c * k + q
            row_a[r], row_b[r] = a, b
            d = dirs[c, q]
            ax, ay, az = point_a[c, 0] - pos[a, 0], point_a[c, 1] - pos[a, 1], point_a[c, 2] - pos[a, 2]
            bx, by, bz = point_b[c, 0] - pos[b, 0], point_b[c, 1] - pos[b, 1], point_b[c, 2] - pos[b, 2]
            for i in range(3):
                Ja[r, i] = d[i]
                Jb[r, i] = -d[i]
            Ja[r, 3], Ja[r, 4], Ja[r, 5] = ay * d[2] - az * d[1], az * d[0] - ax * d[2], ax * d[1] - ay * d[0]
            Jb[r, 3], Jb[r, 4], Jb[r, 5] = -(by * d[2] - bz * d[1]), -(bz * d[0] - bx * d[2]), -(bx * d[1] - by * d[0])


@njit(cache=True)
def combine_all(rule, x, y, out):
    """out[i] = the coefficient of materials x[i], y[i] under ``rule`` (contact.materials.combine)."""
    for i in range(out.shape[0]):
        out[i] = combine(rule, x[i], y[i])


def _perpendicular(n):
    """Two unit tangents (t₁, t₂) with (n, t₁, t₂) right-handed, per row of n [C, 3]."""
    helper = np.where((np.abs(n[:, 0]) < 0.57)[:, None], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    t1 = np.cross(n, helper)
    t1 /= np.linalg.norm(t1, axis=1)[:, None]
    return t1, np.cross(n, t1)


class ContactStage:
    """Contact rows of one step, their impulses as forces held over the step, and the position correction.

    ``eps_v`` [m/s] stop criterion of the Gauss–Seidel sweeps, ``max_iter`` their number at most,
    ``rest_speed`` [m/s] approach speed below which a contact gets no restitution (None: 2 |g| h),
    ``slop`` [m] penetration left uncorrected, ``restitution_rule``/``friction_rule`` how two materials
    combine (contact.materials), ``warm_start``: a contact found in the last step (same bodies and
    features) starts the sweeps with the impulse it took then, so a resting stack is solved in a few sweeps
    instead of creeping by the residual of sweeps cut off at ``max_iter``.
    """

    def __init__(self, model, table, detector, *, eps_v=1e-6, max_iter=100, rest_speed=None, slop=1e-4,
                 restitution_rule=DEFAULT_RESTITUTION_RULE, friction_rule=DEFAULT_FRICTION_RULE,
                 warm_start=True):
        self.model, self.table, self.detector = model, table, detector
        self.eps_v, self.max_iter = float(eps_v), int(max_iter)
        if not (self.eps_v > 0 and self.max_iter >= 1):
            raise ValueError(f"contact_eps_v must be positive and contact_max_iter at least 1, got {eps_v!r}, "
                             f"{max_iter!r}")
        if rest_speed is not None and not (np.isfinite(rest_speed) and rest_speed >= 0):
            raise ValueError(f"rest_speed must be a non-negative speed [m/s] or None, got {rest_speed!r}")
        self.rest_speed = rest_speed
        self.slop = float(slop)
        self.e_rule = int(parse_rule(restitution_rule, "restitution"))
        self.mu_rule = int(parse_rule(friction_rule, "friction"))
        m = model
        self.movable = ((m.body_static + m.body_kinematic) == 0).astype(float)
        self.inv_mass = m.body_inv_mass * self.movable
        self.n_contacts = 0
        self.sweeps = 0
        self.acted = False
        """Whether the contacts of the last step carried any impulse."""
        self.warm_start = bool(warm_start)
        self._allocate_memory(64)
        self.n_warm = 0

    def _allocate_memory(self, capacity):
        """The warm start's memory, fixed-size buffers (a checkpoint stores and restores them as they are)."""
        self.prev_count = 0
        """Contacts of the last step."""
        self.prev_keys = np.zeros(capacity, np.int64)
        """Their keys (body pair and features, contact.warmstart), sorted."""
        self.prev_order = np.zeros(capacity, np.int64)
        self.prev_impulse = np.zeros((capacity, 3))
        """Their impulses [N s] as world vectors, in detection order."""

    # rows -------------------------------------------------------------------------------------------
    def _inverse_inertia(self, iw_inv):
        return iw_inv * self.movable[:, None, None]

    def _joint_rows(self, ev, holonomic_only):
        t = self.table
        rows = np.nonzero(t.row_velocity == 0)[0] if holonomic_only else np.arange(t.n_rows)
        return (t.row_a[rows].astype(np.int64), t.row_b[rows].astype(np.int64), ev.row_Ja[rows], ev.row_Jb[rows])

    @staticmethod
    def _contact_jacobians(con, count, pos, directions):
        """Ja, Jb [count·len(directions), 6]: rows ordered per contact, direction by direction."""
        k = len(directions)
        dirs = np.empty((count, k, 3))
        for q, d in enumerate(directions):
            dirs[:, q] = d
        a, b = np.empty(count * k, np.int64), np.empty(count * k, np.int64)
        Ja, Jb = np.empty((count * k, 6)), np.empty((count * k, 6))
        contact_jacobians(con.body_a, con.body_b, con.point_a, con.point_b, pos, dirs, a, b, Ja, Jb)
        return a, b, Ja, Jb

    def _coefficients(self, con, count):
        m = self.model
        ma, mb = m.shape_material[con.shape_a[:count]], m.shape_material[con.shape_b[:count]]
        e, mus, mud = np.empty(count), np.empty(count), np.empty(count)
        combine_all(self.e_rule, m.material_restitution[ma], m.material_restitution[mb], e)
        combine_all(self.mu_rule, m.material_static_friction[ma], m.material_static_friction[mb], mus)
        combine_all(self.mu_rule, m.material_dynamic_friction[ma], m.material_dynamic_friction[mb], mud)
        return e, mus, mud

    # the step ---------------------------------------------------------------------------------------
    def hold_contact_forces(self, ev, s, h, end_velocities, info) -> None:
        """Impulses of the contacts of ``s`` (see the module) for the end-of-step velocities [n, 6] the step
        would reach without them (``end_velocities()``, which also leaves the joints' rows and the world
        inertias of ``ev`` at ``s``); adds P / h to the loads ``ev`` holds over the step."""
        con = self.detector.detect(s)
        count = int(con.count)
        self.n_contacts = count
        self.acted = False
        self.sweeps = 0
        info.n_contacts += count
        if count == 0:
            self.prev_count = 0
            return
        v_end = end_velocities()
        n = con.normal[:count]
        t1, t2 = _perpendicular(n)
        ca, cb, cJa, cJb = self._contact_jacobians(con, count, s.body_pos, (n, t1, t2))
        v0 = np.hstack([s.body_vel, s.body_omega])
        u0 = np.einsum("ij,ij->i", cJa, v0[ca]) + np.einsum("ij,ij->i", cJb, v0[cb])
        un0, ut0 = u0[0::3], np.hypot(u0[1::3], u0[2::3])
        e, mus, mud = self._coefficients(con, count)
        rest = self.rest_speed if self.rest_speed is not None else 2.0 * float(np.linalg.norm(self.model.gravity)) * h
        gap = np.maximum(con.distance[:count], 0.0)
        colliding = (un0 < -rest) & (un0 * h + gap <= 0.0)
        target = np.zeros(3 * count)
        target[0::3] = np.where(colliding, -e * un0, -gap / h)
        info.n_collisions += int(np.count_nonzero(colliding))
        mu = np.zeros(3 * count)
        mu[1::3] = np.where(ut0 > rest, mud, mus)
        kind = np.tile(np.array([NORMAL, TANGENT, TANGENT], np.int64), count)
        keys = np.zeros(count, np.int64)
        make_keys(con.body_a, con.body_b, con.feature_a, con.feature_b, count, keys)
        lam = self._warm(keys, ~colliding, n, t1, t2, mu)
        if self.table.n_rows:
            lam = self._solve_projected(ev, ca, cb, cJa, cJb, kind, mu, target, v_end, lam, holonomic_only=False)
        else:
            lam = self._solve(ca, cb, cJa, cJb, kind, mu, target, ev.Iw_inv, v_end.copy(), lam)
        self._remember(keys, lam, n, t1, t2)
        P = np.zeros((self.model.n_bodies, 6))
        np.add.at(P, ca, cJa * lam[:, None])
        np.add.at(P, cb, cJb * lam[:, None])
        P *= self.movable[:, None] / h
        self.acted = bool(np.any(lam != 0.0))
        ev.acc_held += P[:, :3] * self.model.body_inv_mass[:, None]
        ev.tau_held += P[:, 3:]

    def _warm(self, keys, resting, n, t1, t2, mu):
        """Starting λ [3 per contact]: the last step's impulse of each resting contact found again (its world
        vector on today's n, t₁, t₂, within the cone), 0 for the others."""
        lam = np.zeros(3 * len(keys))
        self.n_warm = 0
        if not (self.warm_start and self.prev_count):
            return lam
        found = np.zeros(len(keys), np.int64)
        match(keys, len(keys), self.prev_keys, self.prev_order, self.prev_count, found)
        use = (found >= 0) & resting
        P = self.prev_impulse[np.maximum(found, 0)]
        ln = np.maximum(np.einsum("ij,ij->i", P, n), 0.0)
        l1, l2 = np.einsum("ij,ij->i", P, t1), np.einsum("ij,ij->i", P, t2)
        scale = np.minimum(1.0, mu[1::3] * ln / np.maximum(np.hypot(l1, l2), 1e-300))
        lam[0::3] = np.where(use, ln, 0.0)
        lam[1::3] = np.where(use, l1 * scale, 0.0)
        lam[2::3] = np.where(use, l2 * scale, 0.0)
        self.n_warm = int(np.count_nonzero(use))
        return lam

    def _remember(self, keys, lam, n, t1, t2):
        count = len(keys)
        if count > len(self.prev_keys):
            self._allocate_memory(max(count, 2 * len(self.prev_keys)))
        order = np.argsort(keys, kind="stable")
        self.prev_count = count
        self.prev_keys[:count] = keys[order]
        self.prev_order[:count] = order
        self.prev_impulse[:count] = lam[0::3, None] * n + lam[1::3, None] * t1 + lam[2::3, None] * t2

    def _solve_projected(self, ev, ca, cb, cJa, cJb, kind, mu, target, v, lam, holonomic_only):
        """λ of the contact rows over their Delassus matrix K = C M̃ Cᵀ, with
        M̃ = M⁻¹ − M⁻¹ Jᵀ (J M⁻¹ Jᵀ)⁺ J M⁻¹ the mobility left by the joints' rows J (dense over the model's bodies: for the small systems that
        carry joints and contacts together)."""
        n = self.model.n_bodies
        minv = np.zeros((6 * n, 6 * n))
        iw = self._inverse_inertia(ev.Iw_inv)
        for k in range(n):
            minv[6 * k:6 * k + 3, 6 * k:6 * k + 3] = self.inv_mass[k] * np.eye(3)
            minv[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = iw[k]
        ja, jb, jJa, jJb = self._joint_rows(ev, holonomic_only)
        J = _dense(ja, jb, jJa, jJb, n)
        C = _dense(ca, cb, cJa, cJb, n)
        MJ = minv @ J.T
        A = J @ MJ
        mobility = minv - MJ @ np.linalg.pinv(A, rcond=1e-12, hermitian=True) @ MJ.T
        K = np.ascontiguousarray(C @ mobility @ C.T)
        u = C @ v.reshape(-1)
        lam = np.zeros(len(ca)) if lam is None else lam
        self.sweeps = gauss_seidel_dense(K, kind, mu, target, u, lam, self.max_iter, self.eps_v)
        self.mobility = mobility
        return lam

    def _solve(self, row_a, row_b, Ja, Jb, kind, mu, target, iw_inv, v, lam=None):
        lam = np.zeros(len(row_a)) if lam is None else lam
        self.sweeps = gauss_seidel(row_a, row_b, np.ascontiguousarray(Ja), np.ascontiguousarray(Jb), kind, mu,
                                   target, self.inv_mass, np.ascontiguousarray(self._inverse_inertia(iw_inv)), v,
                                   lam, self.max_iter, self.eps_v)
        return lam

    def separate(self, ev, s) -> float:
        """Move contacts deeper than ``slop`` apart (joints' rows ``ev`` current at ``s``, kept to first
        order: the displacements lie in the joints' mobility). Returns the largest depth found [m]."""
        con = self.detector.detect(s)
        count = int(con.count)
        if count == 0:
            return 0.0
        depth = -con.distance[:count]
        deepest = float(depth.max())
        if deepest <= self.slop:
            return deepest
        ca, cb, cJa, cJb = self._contact_jacobians(con, count, s.body_pos, (con.normal[:count],))
        kind = np.full(count, NORMAL, np.int64)
        target = np.maximum(depth - self.slop, 0.0)
        n = self.model.n_bodies
        if self.table.n_rows:
            lam = self._solve_projected(ev, ca, cb, cJa, cJb, kind, np.zeros(count), target, np.zeros((n, 6)),
                                        None, holonomic_only=True)
            C = _dense(ca, cb, cJa, cJb, n)
            dq = (self.mobility @ (C.T @ lam)).reshape(n, 6)
        else:
            dq = np.zeros((n, 6))
            self._solve(ca, cb, cJa, cJb, kind, np.zeros(count), target, ev.Iw_inv, dq)
        displace(s, dq)
        return deepest


def _dense(row_a, row_b, Ja, Jb, n):
    """The rows as a dense matrix [rows, 6 n] over the stacked (v, ω) of the bodies."""
    out = np.zeros((len(row_a), 6 * n))
    for r in range(len(row_a)):
        out[r, 6 * row_a[r]:6 * row_a[r] + 6] += Ja[r]
        out[r, 6 * row_b[r]:6 * row_b[r] + 6] += Jb[r]
    return out
