"""Stage "collisions": contacts (Detector) and joint limits → rows → sequential impulses on q̇.

Rows are built at the start of a step from the current poses: per contact the two tree bodies, the points,
the contact frame (n from B towards A, two tangents), K from test impulses, the restitution target and the
friction coefficients; per active joint limit the coordinate, its direction and (H⁻¹)_dd.

The restitution law (laws.py) decides how colliding contacts are resolved: Newton's by the targets of the
sequential impulses, Poisson's by a pass after the compression, Stronge's by integrating each collision
(stronge.py) before the sequential impulses take the resting contacts and limits.
"""
from __future__ import annotations

import numpy as np

from impulsim.contact.materials import (DEFAULT_FRICTION_RULE, DEFAULT_RESTITUTION_RULE, combine,
                                        parse_rule)
from impulsim.math import basis_perpendicular
from impulsim.methods.featherstone.impulses import (collision_matrix, limit_matrix, relative_velocity,
                                                    sequential_impulses, tangential_load_bias)
from impulsim.methods.featherstone.groups import (art_of, contacts_of, friction_of, limits_of, patches_of,
                                                  scratch_of)
from impulsim.methods.featherstone.laws import Restitution, parse_law, poisson_pass, stronge_rounds
from impulsim.methods.featherstone.stronge import DEFAULT_SLIP_TOL, DEFAULT_STEPS, JAMMED


LIMIT_ROUNDS = 10
"""Extra rounds at most for the joint limits that the step's impulses set closing (see _limit_rounds)."""


class Rows:
    """Growable row buffers for contacts (prefix c_) and limits (prefix l_)."""

    def __init__(self, capacity: int, n_limits: int):
        self.grow(capacity)
        # a coordinate with both bounds can need two rows in one step (a range shorter than a step)
        self.l_dof = np.zeros(2 * n_limits, np.int64)
        self.l_joint = np.zeros(2 * n_limits, np.int64)
        self.l_dir = np.zeros(2 * n_limits)
        self.l_K = np.zeros(2 * n_limits)
        self.l_target = np.zeros(2 * n_limits)
        self.l_lam = np.zeros(2 * n_limits)

    def grow(self, cap: int):
        self.cap = cap
        self.c_ta, self.c_tb = np.zeros(cap, np.int64), np.zeros(cap, np.int64)
        self.c_pa, self.c_pb, self.c_n, self.c_t1, self.c_t2, self.c_P = (np.zeros((cap, 3)) for _ in range(6))
        self.c_K = np.zeros((cap, 3, 3))
        self.c_target, self.c_mus, self.c_mud = np.zeros(cap), np.zeros(cap), np.zeros(cap)
        self.c_e, self.c_un = np.zeros(cap), np.zeros(cap)
        self.c_colliding = np.zeros(cap, np.bool_)
        self.c_regime = np.zeros(cap, np.int64)
        self.c_Pcoll = np.zeros((cap, 3))
        self.c_bias = np.zeros((cap, 3))
        self.c_slide = np.zeros((cap, 3))
        self.c_patch = np.zeros(cap, np.int64)
        self.patch_size, self.patch_Pn = np.zeros(cap), np.zeros(cap)


class CollisionStage:
    """Builds the rows of one step and resolves them with impulses through the tree.

    ``limits``: list of (tree dof, q index, sign, lower, upper, restitution) with the model's coordinate
    q_model = sign · q[q index] (see :class:`~.tree.Tree`). ``rest_speed`` [m/s]: approach speeds below it get
    no restitution (resting contact); None uses 2 |g| h. ``slop`` [m] penetration left uncorrected; deeper
    contacts get a target separation speed ``beta`` · (depth − slop) / h. ``law``: restitution law of the
    contacts (Newton, Poisson or Stronge, see laws.py); ``stronge_steps`` RK4 steps per sliding phase and
    ``slip_tol`` Holck's ε (relative) of the Stronge integrator; ``max_rounds`` caps its sequential
    collisions per step (default 20 per contact, at least 100).
    """

    def __init__(self, model, tree, dyn, detector, limits, *, eps_v, max_iter, rest_speed, slop, beta,
                 limit_envelope, restitution_rule=DEFAULT_RESTITUTION_RULE, friction_rule=DEFAULT_FRICTION_RULE,
                 law="newton", stronge_steps=DEFAULT_STEPS, slip_tol=DEFAULT_SLIP_TOL, max_rounds=None,
                 load_lead=0.5):
        self.model, self.tree, self.dyn, self.detector = model, tree, dyn, detector
        self.load_lead = float(load_lead)
        """Share of the step over which static friction anticipates the loads (see _contact_bias)."""
        self.limits = limits
        self.eps_v, self.max_iter = float(eps_v), int(max_iter)
        self.rest_speed, self.slop, self.beta = rest_speed, float(slop), float(beta)
        self.limit_envelope = float(limit_envelope)
        self.law = parse_law(law)
        if int(stronge_steps) < 1:
            raise ValueError(f"stronge_steps must be a positive integer, got {stronge_steps!r}")
        self.stronge_steps, self.slip_tol = int(stronge_steps), float(slip_tol)
        self.max_rounds = max_rounds
        self.frame = np.zeros((10, 3))
        self.n_stronge = 0
        self.e_rule = int(parse_rule(restitution_rule, "restitution"))
        self.mu_rule = int(parse_rule(friction_rule, "friction"))
        self.body_tree = np.full(model.n_bodies, -1, np.int64)
        self.body_tree[tree.body] = np.arange(tree.n)
        self.rows = Rows(64, len(limits))
        n = tree.n
        self.y_body, self.dv, self.pA, self.c = (np.zeros((n, 6)) for _ in range(4))
        self.u = np.zeros((n, 12))
        self.y_joint, self.dqd, self.qdd = np.zeros(tree.nv), np.zeros(tree.nv), np.zeros(tree.nv)
        self.tmp6, self.zero6, self.unit = np.zeros(6), np.zeros(6), np.zeros(3)
        self.work3 = np.zeros((4, 3))
        self.n_contacts = 0
        self.n_limits = 0

    # rows -------------------------------------------------------------------------------------------
    def _rest_speed(self, h):
        """Approach speed below which no restitution applies: the option, or 2 |g| h (what gravity adds in
        two steps), so that resting contacts do not bounce."""
        if self.rest_speed is not None:
            return float(self.rest_speed)
        return 2.0 * float(np.linalg.norm(self.model.gravity)) * h

    def _contact_rows(self, state, h, rest):
        if self.detector is None:
            return 0
        con = self.detector.detect(state)
        m, rows = self.model, self.rows
        count = con.count
        if count > rows.cap:
            rows.grow(max(count, 2 * rows.cap))
        k = 0
        slip_speed = max(self.eps_v, float(np.linalg.norm(m.gravity)) * h)   # see _classify_slip
        for i in range(count):
            ta, tb = self.body_tree[con.body_a[i]], self.body_tree[con.body_b[i]]
            if ta < 0 and tb < 0:
                continue
            rows.c_ta[k], rows.c_tb[k] = ta, tb
            rows.c_pa[k], rows.c_pb[k], rows.c_n[k] = con.point_a[i], con.point_b[i], con.normal[i]
            rows.c_t1[k], rows.c_t2[k] = basis_perpendicular(con.normal[i])
            ma, mb = m.shape_material[con.shape_a[i]], m.shape_material[con.shape_b[i]]
            e = combine(self.e_rule, m.material_restitution[ma], m.material_restitution[mb])
            rows.c_mus[k] = combine(self.mu_rule, m.material_static_friction[ma], m.material_static_friction[mb])
            rows.c_mud[k] = combine(self.mu_rule, m.material_dynamic_friction[ma],
                                    m.material_dynamic_friction[mb])
            rows.c_e[k] = e
            rows.c_target[k] = self._target(k, e, rest, -float(con.distance[i]), h)
            self._classify_slip(k, slip_speed)
            rows.c_P[k] = 0.0
            k += 1
        return k

    def _target(self, k, e, rest, depth, h):
        """Normal velocity to reach: −e u_n⁻ (Newton) above the resting speed, 0 for the compression of the
        other laws, a push-out when too deep."""
        rows, dyn = self.rows, self.dyn
        relative_velocity(rows.c_ta[k], rows.c_tb[k], rows.c_pa[k], rows.c_pb[k], dyn.v, self.unit)
        un = float(self.unit @ rows.c_n[k])
        rows.c_un[k] = un
        rows.c_colliding[k] = un < -rest
        target = -e * un if (un < -rest and self.law == Restitution.NEWTON) else 0.0
        if depth > self.slop:
            target = max(target, self.beta * (depth - self.slop) / h)
        return target

    def _classify_slip(self, k, slip_speed):
        """Contact k slips at the step's start when its tangential speed exceeds ``slip_speed``: eps_v or the
        speed gravity gives in one step, whichever is larger (the impulse method's rule). Coulomb's law then holds it with dynamic friction
        until the slip stops: within this step it may stick only if μ_d p_n can stop it (its static
        coefficient is lowered to the dynamic one), and it slides along its starting slip direction
        (``c_slide``; zero for a contact that does not slip). Uses the relative velocity _target left in
        ``unit``."""
        r = self.rows
        slip = self.unit - float(self.unit @ r.c_n[k]) * r.c_n[k]
        speed = float(np.linalg.norm(slip))
        if r.c_colliding[k] and speed > slip_speed:
            r.c_mus[k] = min(r.c_mus[k], r.c_mud[k])
            r.c_slide[k] = slip / speed
        else:
            r.c_slide[k] = 0.0

    def _limit_rows(self, q, qd, h, rest, elastic=True):
        """Rows of the limits reached within this step (Holck's "collision" of a joint with its stop).

        A limit is hit when it is approached (rate r ≤ 0) and its gap d (model coordinate to the bound, ≥ 0
        inside) closes within the step at that rate and the acceleration a (``self.qdd``, the ABA's under
        the step's loads), d + r h + ½ min(a, 0) h² ≤ ``limit_envelope``, or when it is already crossed.
        A stop that is opening gets no row, even at zero gap: if the impulses of the others close it, it is
        found in the next round (:meth:`_limit_rounds`). So every row of a round starts approaching, and its
        impulse's work ½ λ (r⁻ + r⁺) is ≤ 0 up to the small terms below (holding a row that was opening
        would make it positive: in a falling chain that pumped energy in). Like Holck's bisection to the
        time of impact, this keeps the coordinate inside its bounds, here by turning up to one step early, so
        Newton's law q̇⁺ = −e q̇⁻ holds exactly and no position is moved by hand. A stop that holds a link
        against a load (resting on the stop) gets at least the rate that lands the gap on zero at the end of
        the step, −(d + ½ a h²)/h; a bound crossed anyway is pushed back at beta · depth / h.
        """
        rows = self.rows
        k = 0
        for dof, qi, sign, lower, upper, e in self.limits:
            value = sign * q[qi]
            for direction, gap in ((sign, value - lower), (-sign, upper - value)):
                rate = direction * qd[dof]     # rate of the gap (the impulse direction opens it)
                accel = direction * self.qdd[dof]
                closes = rate <= 0.0 and gap + rate * h + 0.5 * min(accel, 0.0) * h * h <= self.limit_envelope
                if not (closes or gap < 0.0):
                    continue
                rows.l_dof[k], rows.l_dir[k] = dof, direction
                rows.l_joint[k] = np.searchsorted(self.tree.v_start, dof, side="right") - 1
                target = -e * rate if (rate < -rest and elastic) else 0.0
                # hold against the load: land the gap on zero at the end of the step
                target = max(target, -max(gap, 0.0) / h - 0.5 * min(accel, 0.0) * h)
                if gap < 0.0:
                    target = max(target, -self.beta * gap / h)
                    if rate >= target:
                        continue      # already leaving fast enough
                rows.l_target[k] = target
                rows.l_lam[k] = 0.0
                k += 1
        return k

    def _patches(self, n_c):
        """Group the contacts by body pair (a patch); returns the number of patches."""
        r = self.rows
        index = {}
        for k in range(n_c):
            p = index.setdefault((int(r.c_ta[k]), int(r.c_tb[k])), len(index))
            r.c_patch[k] = p
        n_p = len(index)
        r.patch_size[:n_p] = np.bincount(r.c_patch[:n_c], minlength=n_p)
        r.patch_Pn[:n_p] = 0.0
        return n_p

    # solve ------------------------------------------------------------------------------------------
    def resolve(self, state, q, qd, h, info):
        """Apply contact and limit impulses to q̇ (poses and velocities of ``dyn`` must be current)."""
        dyn = self.dyn
        t = self.tree
        rest = self._rest_speed(h)
        self.n_stronge = 0
        n_c = self._contact_rows(state, h, rest)
        if self.limits or n_c:
            dyn.accelerations(q, qd, self.qdd)        # the loads the stops and contacts hold over the step
        self._contact_bias(n_c, h)
        n_l = self._limit_rows(q, qd, h, rest)
        self.n_contacts, self.n_limits = n_c, n_l
        info.n_contacts = n_c + n_l
        if n_c + n_l == 0:
            return
        dyn.articulated_inertias()
        r = self.rows
        art, scratch = art_of(t, dyn, self.zero6), scratch_of(self)
        for k in range(n_c):
            collision_matrix(r.c_ta[k], r.c_tb[k], r.c_pa[k], r.c_pb[k], art, scratch, r.c_K[k], self.unit)
        for k in range(n_l):
            r.l_K[k] = limit_matrix(r.l_dof[k], r.l_joint[k], art, scratch)
        n_p = self._patches(n_c)
        if self.law == Restitution.STRONGE and n_c:
            self._stronge(n_c, rest, qd)
        info.n_collisions = int(np.count_nonzero(r.c_target[:n_c] > 0.0)) + int(np.count_nonzero(
            r.l_target[:n_l] > 0.0)) + self.n_stronge
        sweeps, change = sequential_impulses(
            contacts_of(r, n_c), r.c_target[:n_c], r.c_bias[:n_c], friction_of(r, n_c),
            patches_of(r, n_c, n_p), limits_of(r, n_l), art, self.eps_v, self.max_iter, (qd, dyn.v), r.c_P[:n_c],
            r.l_lam[:n_l], scratch, self.work3)
        if self.law == Restitution.POISSON and n_c:
            poisson_pass(contacts_of(r, n_c), r.c_e[:n_c], friction_of(r, n_c), r.c_colliding[:n_c], art,
                         (qd, dyn.v), r.c_P[:n_c], scratch, self.work3)
            info.n_collisions += int(np.count_nonzero(r.c_colliding[:n_c]))
        sweeps += self._limit_rounds(q, qd, h, rest)
        info.iters_collision = int(sweeps)
        info.residual_vel = float(change)
        info.converged_vel = change <= self.eps_v

    def _contact_bias(self, n_c, h):
        """c_bias: the change of each resting contact's relative velocity over a share ``load_lead`` of the
        step (½ for RK4, whose positions move with the mean velocity of the step; 1 for semi-implicit Euler,
        whose positions move with the end velocity), shown here for ½: ½ h (a_a − a_b),
        with a_p = a_O + α × p + ω × (v_O + ω × p) the acceleration of the material point p of each body
        under the step's loads (from the ABA's spatial accelerations, left in ``dyn.a``, with the gravity
        the ABA takes as a base acceleration added back), tangential part only. The impulses act at the
        step's start and the loads after them: static friction aiming at the tangential velocity of the
        step's middle makes the contact's mean slip over the step zero, so a box held on an incline does
        not creep (solved without it, it slid the g sin α h² / 2 gravity gives it every step). The normal
        direction keeps its start-of-step target with the push-out of penetrations: a normal bias holds a
        resting body up but leaves it the velocity ½ a h at each step's end, an energy a stiff mobile at
        h = 1/30 s shows as rises of 5e-3 J per step. Collisions get none: restitution acts on the
        approach speed."""
        r, dyn = self.rows, self.dyn
        tangential_load_bias(r.c_ta[:n_c], r.c_tb[:n_c], r.c_pa[:n_c], r.c_pb[:n_c], r.c_n[:n_c],
                             r.c_colliding[:n_c], dyn.v, dyn.a, self.model.gravity, self.load_lead * h,
                             r.c_bias[:n_c])

    def _limit_rounds(self, q, qd, h, rest):
        """Limits the impulses just applied set closing within the step get their own rounds (the rows of a
        step are found from the rates at its start; in a chain resting on its stops, one stop's impulse
        swings the next link into its stop). These secondary hits within one step are inelastic: with
        restitution, the stops of a chain throw the links at each other round after round (and a cascade
        cut off by the round limit leaves stops crossed). Returns the sweeps spent."""
        r, t, dyn = self.rows, self.tree, self.dyn
        sweeps = 0
        for _ in range(LIMIT_ROUNDS):
            n_l = self._limit_rows(q, qd, h, rest, elastic=False)
            if n_l == 0:
                break
            art, scratch = art_of(t, dyn, self.zero6), scratch_of(self)
            for k in range(n_l):
                r.l_K[k] = limit_matrix(r.l_dof[k], r.l_joint[k], art, scratch)
            s, change = sequential_impulses(
                contacts_of(r, 0), r.c_target[:0], r.c_bias[:0], friction_of(r, 0), patches_of(r, 0, 0),
                limits_of(r, n_l), art, self.eps_v, self.max_iter, (qd, dyn.v), r.c_P[:0], r.l_lam[:n_l], scratch,
                self.work3)
            sweeps += s
            if s == 1 and change == 0.0:
                break                 # no stop needed an impulse: the rows of the step are complete
        return sweeps

    def _stronge(self, n_c, rest, qd):
        """Integrate the colliding contacts with Stronge's law (laws.stronge_rounds); a contact the integrator
        cannot take (JAMMED) gets Newton's target in the sequential impulses that follow."""
        r, t, dyn = self.rows, self.tree, self.dyn
        r.c_regime[:n_c] = -1
        r.c_Pcoll[:n_c] = 0.0
        rounds = self.max_rounds if self.max_rounds is not None else max(100, 20 * n_c)
        self.n_stronge = int(stronge_rounds(
            contacts_of(r, n_c), r.c_e[:n_c], r.c_mud[:n_c], rest, self.stronge_steps, self.slip_tol, rounds,
            art_of(t, dyn, self.zero6), (qd, dyn.v), r.c_Pcoll[:n_c], r.c_regime[:n_c], scratch_of(self),
            self.frame))
        jammed = r.c_regime[:n_c] == JAMMED
        if jammed.any():
            r.c_target[:n_c][jammed] = np.maximum(r.c_target[:n_c][jammed], -r.c_e[:n_c][jammed] * r.c_un[:n_c][jammed])
