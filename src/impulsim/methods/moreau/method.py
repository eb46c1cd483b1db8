"""Moreau's midpoint time-stepping with prox iterations (Rempfler 2015, ch. 2.4, after Studer 2008).

One step from (q_B, u_B) over h:

    q_M = q_B + h/2 B(q_B) u_B                                  (eq. 2.35)
    at q_M: forces f, contacts (gap ≤ gap_close), rows W of contacts and joints
    M (u_E − u_B) = h f + W Λ                                   (eq. 2.40)
    Λ_l = prox_{C_l}(Λ_l − r_l ξ_l),  ξ_l = γ_l^E + e_l γ_l^B     (eq. 2.36, 2.42; Gauss–Seidel or Jacobi)
    q_E = q_M + h/2 B(q_M) u_E, quaternions normalized          (eq. 2.44)
    optional projection of q_E, u_E onto the joints (post-stabilization, to eps_d / eps_v)
"""
from __future__ import annotations

import numpy as np

from impulsim.collision import Detector
from impulsim.collision.contacts import Contacts, make_buffers
from impulsim.collision.detector import DEFAULT_EPS_C
from impulsim.contact.default import model_has_contacts
from impulsim.contact.materials import DEFAULT_FRICTION_RULE, DEFAULT_RESTITUTION_RULE, parse_rule
from impulsim.dynamics.forces import compute_loads
from impulsim.errors import ModelError, UnsupportedFeatureError
from impulsim.math import quat_rotate_inv
from impulsim.methods.base import Method, StageTimer, StepInfo
from impulsim.methods.capabilities import Capabilities
from impulsim.methods.moreau import bodies, prox
from impulsim.methods.moreau.groups import blocks_of, contacts_of, laws_of, materials_of, rows_of
from impulsim.methods.moreau.joints import JointRows
from impulsim.methods.moreau.laws import FrictionLaw, N_PAR, RunnerFriction
from impulsim.methods.moreau.loads import contact_loads
from impulsim.methods.moreau.rows import CONTACT, RowBuffers, contact_rows
from impulsim.dynamics.coordinates import coordinate_value
from impulsim.math.quaternion import quat_rotate
from impulsim.model.kinds import Coordinate
from impulsim.methods.moreau.warmstart import ContactMemory
from impulsim.methods.moreau.wagner import MoreauExtras
from impulsim.model.model import Model

SOLVERS = ("gauss_seidel", "jacobi")
FRICTIONLESS = 2
"""Friction law code of a block without friction (methods/moreau/rows._contact_law)."""
GYRO_OUTER = 20
"""Solves per step at most for the gyroscopic term at the end rate (see _consistent_gyroscopic)."""
GYRO_TOL = 1e-12
"""Free rates settled when they change by less than this times (1 + largest start rate) [rad/s]."""
GYROSCOPIC = ("implicit", "explicit")


class MoreauMethod(Method):
    """Nonsmooth time-stepping on the midpoint with set-valued force laws as prox functions.

    Coordinates: every movable body has a quaternion free joint (u = (v, _K ω), ω in the body frame);
    the model's joints are bilateral constraints solved in the same prox loop as the contacts (prox onto
    R), followed by a projection of positions and velocities onto the joints (``project``). Contacts come
    from the collision :class:`Detector` at the midpoint and close when their gap is ≤ ``gap_close``.
    Force laws: unilateral normal contact with Newton's impact law (restitution from the materials),
    isotropic Coulomb friction (dynamic coefficient of the materials) and the anisotropic runner law for
    the bodies named in ``runners``. Springs, motors, servos, user forces and velocity joints are
    supported; kinematic bodies move with their velocity.

    Options
    -------
    solver : "gauss_seidel" (default) or "jacobi". alpha : r-factor scale α ∈ (0, 2) (see :mod:`.prox`).
    joint_alpha : α of the joint rows under Gauss–Seidel and in the projections (default 1.8).
    e_r, e_a : relative and absolute stop tolerance on the percussions [N s] (thesis 1e-6, 1e-4).
    max_iter : sweeps allowed per solve. eps_c : detector tolerance [m]. gap_close : closing gap [m].
    restitution_rule, friction_rule : how two materials combine (see impulsim.contact.materials).
    tangential_restitution : ε_f of the extended Newton law (default 0).
    runners : {body name: RunnerFriction} — contacts of these bodies use the runner law.
    gyroscopic : "implicit" (midpoint ω of the step's start and end rates, joint and contact percussions
        included: keeps a free body's energy, second order on a fast heavy top) or "explicit" (ω_B, the
        thesis; first order in the rotation when joints or contacts turn a fast-spinning body).
    project : project onto the joints after each step; eps_d [m, rad], eps_v [m/s, rad/s] its bounds.
    warm_start : start the joint percussions from the previous step's, and each contact's from its own if
        the same features touched in the previous step (see :mod:`.warmstart`).
    contacts : collision detection on or off. Default: on when shapes of bodies that no chain of joints
        connects may collide (see contact.default), so a tree whose neighbouring shapes overlap at their
        joints runs without it; True also detects such self-collisions.
    constraints : Wagner's constraints (PointToFunction, PointToPath, VelocityToFunction, EqualVelocity of
        :mod:`impulsim.methods.extra_constraints`), rows of the same prox iteration as the joints and
        projected with them (see :mod:`.wagner`).
    """

    name = "moreau"
    unsupported = ((lambda m: not isinstance(m, Model), "models other than the rigid-body Model"),)
    capabilities = Capabilities(velocity_joints=True, loops=True, kinematic_bodies=True, contacts=("newton",),
                                limits=True, constraints=True)

    _scratch_attrs = frozenset(("_contacts", "_contact_end"))
    """This step's contacts and where their rows end: set by ``_assemble`` before ``_step`` reads them, so
    neither rolled back after a failed step nor checkpointed (see impulsim.methods.memory). Left out of the
    failed-step snapshot, whose plan of the method's memory is then reused from step to step instead of
    being made again each step (the detector hands out a new ``Contacts`` every step)."""

    def __init__(self, model, *, solver: str = "gauss_seidel", alpha: float = 1.0, joint_alpha: float = 1.8,
                 e_r: float = 1e-6,
                 e_a: float = 1e-4, max_iter: int = 2000, eps_c: float = DEFAULT_EPS_C, gap_close: float = 0.0,
                 restitution_rule=DEFAULT_RESTITUTION_RULE, friction_rule=DEFAULT_FRICTION_RULE,
                 tangential_restitution: float = 0.0, runners=None, gyroscopic: str = "implicit",
                 project: bool = True, eps_d: float = 1e-6, eps_v: float = 1e-6, max_projections: int = 10,
                 warm_start: bool = True, contacts: bool | None = None, constraints=(), forces=(), ignore=()):
        super().__init__(model, ignore=ignore, contacts=contacts, constraints=constraints, forces=forces)
        _check_bodies(model)
        _check_options(solver, alpha, e_r, e_a, max_iter, gyroscopic, eps_d, eps_v, tangential_restitution)
        if not 0 < joint_alpha < 2:
            raise ValueError(f"joint_alpha must lie in (0, 2) for the sweeps to converge, got {joint_alpha!r}")
        self.jacobi = int(solver == "jacobi")
        self.joint_alpha = float(joint_alpha)
        self.alpha, self.e_r, self.e_a, self.max_iter = float(alpha), float(e_r), float(e_a), int(max_iter)
        self.gap_close, self.e_t = float(gap_close), float(tangential_restitution)
        self.rules = (int(parse_rule(restitution_rule, "restitution")), int(parse_rule(friction_rule, "friction")))
        self.implicit_gyro = int(gyroscopic == "implicit")
        self.project, self.eps_d, self.eps_v = bool(project), float(eps_d), float(eps_v)
        self.max_projections, self.warm_start = int(max_projections), bool(warm_start)
        use_contacts = model_has_contacts(model) if contacts is None else bool(contacts)
        self.detector = Detector(model, eps_c) if use_contacts else None
        self._no_contacts = Contacts(make_buffers(1), 0, 0)
        self.joints = JointRows(model, self.joint_alpha)
        self.extras = MoreauExtras(model, constraints or (), 1.0 if self.project else 0.5)
        self.memory = ContactMemory()
        self.runners = dict(runners or {})
        self.body_law, self.body_law_axis, self._runner_specs = _runner_tables(model, self.runners)
        self.body_law_par = np.zeros((model.n_bodies, N_PAR))
        n = model.n_bodies
        self.minv = np.zeros((n, 6))
        bodies.generalized_inverse_mass(model.body_inv_mass, model.body_inv_inertia, self.minv)
        self.u_b, self.u, self._u_free = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
        self.acc, self.torque = np.zeros((n, 3)), np.zeros((n, 3))
        self.body_sum = np.zeros(n)
        n_bilateral = self.joints.n_rows + self.extras.n_rows
        self.buf = RowBuffers(n_bilateral + 3 * 16, n_bilateral + 16)
        self.proj = RowBuffers(n_bilateral, n_bilateral)
        self.stats = np.zeros(5)
        self._mid = None
        self.contact_force = np.zeros((n, 3))
        """Mean contact force [N] on each body over the last step (Λ/h, thesis eq. 2.45), world frame."""
        self.contact_torque = np.zeros((n, 3))
        """Mean contact torque [N m] about each body's centre of mass over the last step, world frame."""
        self.last = {}
        """The last step's solver record: iterations, residual, converged, r adaptations, gyro iterations."""

    # the step -----------------------------------------------------------------------------------------
    def contact_detector(self):
        return self.detector

    def _step(self, s, h, info: StepInfo):
        timer = StageTimer(info.timings)
        if self.extras.n_rows:
            self.extras.begin_step(self.model, s, h)
        mid = self._midpoint(s, h)
        timer.lap("midpoint")
        self._free_velocities(s, mid, h)
        timer.lap("forces")
        n_joint, n_rows, n_blocks = self._assemble(mid, h, info)
        timer.lap("rows")
        self._solve(n_joint, n_rows, n_blocks, info)
        if self.implicit_gyro and n_rows:
            self._consistent_gyroscopic(s, mid, h, n_joint, n_rows, n_blocks, info)
        c_rows, c_blocks = self._contact_end       # contact blocks end here; limit blocks follow
        if self.warm_start:
            self.memory.store(self._contacts, self.buf.blk_contact[n_joint:c_blocks],
                              self.buf.lam[n_joint:c_rows].reshape(-1, 3))
        timer.lap("prox")
        self._advance(s, mid, h)
        contact_loads(n_joint, c_rows, self.buf.lam, self.buf.row_a, self.buf.row_b, self.buf.row_wa,
                      self.buf.row_wb, mid.body_quat, 1.0 / h, self.contact_force, self.contact_torque)
        timer.lap("advance")
        if self.project and (self.joints.n_rows or self.extras.n_rows):
            self._project(s, info)
            timer.lap("projection")
        s.t += h
        s.step_count += 1

    def _midpoint(self, s, h):
        """q_M = q_B + h/2 B u_B; the midpoint State keeps the start velocities (world frame)."""
        if self._mid is None:
            self._mid = s.copy()
        mid = self._mid
        mid.assign(s)
        bodies.generalized_velocities(s.body_quat, s.body_vel, s.body_omega, self.u_b)
        bodies.half_drift(self.model.body_static, s.body_pos, s.body_quat, self.u_b, 0.5 * h, mid.body_pos,
                          mid.body_quat)
        mid.t = s.t + 0.5 * h
        return mid

    def _free_velocities(self, s, mid, h):
        """Forces at (q_M, u_B) (servo memory is kept in the real state), then u_F = u_B + h M⁻¹ f."""
        compute_loads(self.model, mid, h, self.acc, self.torque)
        for name in ("servo_integral", "servo_prev_error", "servo_effort"):
            np.copyto(getattr(s, name), getattr(mid, name))
        m = self.model
        self.last["gyro_iterations"] = bodies.free_velocities(
            m.body_inv_mass, m.body_inertia, m.body_inv_inertia, mid.body_quat, self.u_b, self.acc, self.torque,
            h, self.implicit_gyro, 1e-14, 50, self.u)
        self._u_free[:] = self.u

    def _assemble(self, mid, h, info):
        """Joint rows, rows of the extra constraints, then contact rows, at the midpoint; r-factors; warm
        start. Returns (bilateral rows = blocks, rows, blocks)."""
        contacts = self.detector.detect(mid) if self.detector is not None else self._no_contacts
        nj = self.joints.n_rows + self.extras.n_rows
        buf = self.buf
        lam_joint = buf.lam[:nj].copy()       # before ensure(), which may reallocate the rows
        n_stops = 2 * self.model.n_limits
        buf.ensure(nj + 3 * (contacts.count + n_stops), nj + contacts.count + n_stops)
        self.joints.evaluate(mid)
        self.joints.fill(self.joints.all_rows, 0, 1.0, mid, self.u_b, 0, 0, buf)
        if self.extras.n_rows:
            n = self.joints.n_rows
            self.extras.fill(mid, h, self.u_b, n, n, buf)
        self._runner_params(h)
        m = self.model
        n_c_rows, n_c, n_impacts = contact_rows(
            contacts_of(contacts), contacts.count, self.gap_close, mid.body_pos, mid.body_quat, self.u_b,
            materials_of(m), self.rules[0], self.rules[1], laws_of(self), self.e_t, nj, nj, rows_of(buf),
            blocks_of(buf), buf.blk_contact)
        info.n_contacts, info.n_collisions = int(n_c), int(n_impacts)
        n_rows, n_blocks = nj + n_c_rows, nj + n_c
        self._contact_end = (n_rows, n_blocks)
        if n_stops:
            l_rows, l_blocks = self._limit_rows(mid, n_rows, n_blocks)
            n_rows, n_blocks = n_rows + l_rows, n_blocks + l_blocks
        buf.lam[:n_rows] = 0.0
        self._contacts = contacts
        c_rows, c_blocks = self._contact_end
        if self.warm_start:
            buf.lam[:nj] = lam_joint
            self.last["warm_contacts"] = self.memory.recall(contacts, buf.blk_contact[nj:c_blocks],
                                                            buf.lam[nj:c_rows].reshape(-1, 3))
        self._r_factors(buf, n_rows, n_blocks)
        prox.apply_all(n_rows, buf.lam, buf.row_a, buf.row_b, buf.row_wa, buf.row_wb, self.minv, self.u)
        return nj, n_rows, n_blocks

    def _consistent_gyroscopic(self, s, mid, h, n_joint, n_rows, n_blocks, info):
        """Re-evaluate the gyroscopic term at ω_M = (ω_B + ω_E)/2 with the end velocities the percussions
        gave, and solve again from the last percussions, until the free velocities settle.

        The free velocities take −ω × Θω at the midpoint of ω_B and the *free* end rate; when joints or
        contacts change ω_E by O(h) (a heavy top: the tip's reaction turns the spin axis), that term is off
        by O(h) and the step by O(h²), which makes the scheme first order in the rotation (measured on a
        top spinning at 60 rad/s: order 1.2, 2.6° off after 2 s at h = 1 ms). With the end rate of the
        solve the implicit midpoint rule holds for the whole step again (order 2)."""
        m, buf = self.model, self.buf
        free = self._u_free
        tol = GYRO_TOL * (1.0 + float(np.abs(self.u_b[:, 3:]).max()))
        sweeps = info.iters_vel
        for it in range(GYRO_OUTER):
            change = bodies.free_velocities_at(m.body_inv_mass, m.body_inv_inertia, m.body_inertia,
                                               mid.body_quat, self.u_b, self.acc, self.torque, h, self.u, free)
            if change <= tol:
                break
            self.u[:] = free
            prox.apply_all(n_rows, buf.lam, buf.row_a, buf.row_b, buf.row_wa, buf.row_wb, self.minv, self.u)
            self._solve(n_joint, n_rows, n_blocks, info)
            sweeps += info.iters_vel
        info.iters_vel = sweeps
        self.last["gyro_outer"] = it + 1

    def _limit_rows(self, mid, row0, blk0):
        """One unilateral block per joint stop reached at the midpoint (coordinate beyond the bound by
        ``gap_close`` or less): the normal row is the coordinate's rate away from the stop, with Newton's
        law at the limit's restitution; the two friction rows are empty (no friction law). Like the
        contacts, a stop has no position correction: a coordinate keeps the overshoot of its impact step
        (≤ rate · h). Returns (rows, blocks) written."""
        m, buf = self.model, self.buf
        i, blk = row0, blk0
        for lim in range(m.n_limits):
            j, coord = int(m.limit_joint[lim]), int(m.limit_coord[lim])
            q = coordinate_value(coord, False, j, m.joint_body_a, m.joint_body_b, m.joint_anchor_a,
                                 m.joint_anchor_b, m.joint_axis_a, m.joint_ref_a, m.joint_ref_b, mid.body_pos,
                                 mid.body_quat, mid.body_vel, mid.body_omega)
            a, b = int(m.joint_body_a[j]), int(m.joint_body_b[j])
            for side, bound in ((1.0, m.limit_lower[lim]), (-1.0, m.limit_upper[lim])):
                if not np.isfinite(bound) or side * (q - bound) > self.gap_close:
                    continue
                x = side * quat_rotate(mid.body_quat[a], m.joint_axis_a[j])
                wa, wb = np.zeros(6), np.zeros(6)
                if coord == Coordinate.ANGLE:
                    wa[3:] = quat_rotate_inv(mid.body_quat[a], -x)
                    wb[3:] = quat_rotate_inv(mid.body_quat[b], x)
                else:
                    pb = mid.body_pos[b] + quat_rotate(mid.body_quat[b], m.joint_anchor_b[j])
                    wa[:3], wb[:3] = -x, x
                    wa[3:] = quat_rotate_inv(mid.body_quat[a], -np.cross(pb - mid.body_pos[a], x))
                    wb[3:] = quat_rotate_inv(mid.body_quat[b], np.cross(pb - mid.body_pos[b], x))
                buf.row_a[i:i + 3], buf.row_b[i:i + 3] = a, b
                buf.row_wa[i:i + 3], buf.row_wb[i:i + 3] = 0.0, 0.0
                buf.row_wa[i], buf.row_wb[i] = wa, wb
                buf.row_chi[i:i + 3] = 0.0
                buf.row_gamma_b[i:i + 3] = 0.0
                buf.row_gamma_b[i] = wa @ self.u_b[a] + wb @ self.u_b[b]
                buf.blk_start[blk] = i
                buf.blk_kind[blk], buf.blk_law[blk] = CONTACT, FRICTIONLESS
                buf.blk_e[blk], buf.blk_e_t[blk] = m.limit_restitution[lim], 0.0
                buf.blk_par[blk] = 0.0
                buf.blk_contact[blk] = -1
                i += 3
                blk += 1
                buf.blk_start[blk] = i
        return i - row0, blk - blk0

    def _r_factors(self, buf, n_rows, n_blocks):
        if self.jacobi:
            prox.jacobi_r(n_rows, n_blocks, self.alpha, buf.blk_start, buf.blk_kind, buf.blk_law, buf.blk_par,
                          buf.row_a, buf.row_b, buf.row_wa, buf.row_wb, self.minv, self.body_sum, buf.row_r)
        else:
            prox.gauss_seidel_r(n_blocks, self.alpha, self.joint_alpha, buf.blk_start, buf.blk_kind, buf.blk_law,
                                buf.blk_par, buf.row_a, buf.row_b, buf.row_wa, buf.row_wb, self.minv, buf.row_r)

    def _solve(self, n_joint, n_rows, n_blocks, info):
        buf = self.buf
        prox.solve(self.jacobi, n_rows, n_blocks, blocks_of(buf), rows_of(buf), buf.row_r, self.minv, self.e_r,
                   self.e_a, self.eps_v, self.max_iter, buf.lam, buf.lam_new, self.u, self.stats)
        it, worst, ok, adapt, _ = self.stats
        info.iters_vel = int(it)
        info.converged_vel = bool(ok)
        self.last.update(iterations=int(it), residual=float(worst), converged=bool(ok), adaptations=int(adapt))

    def _advance(self, s, mid, h):
        """q_E = q_M + h/2 B(q_M) u_E; the State's velocities from u_E."""
        bodies.half_drift(self.model.body_static, mid.body_pos, mid.body_quat, self.u, 0.5 * h, s.body_pos,
                          s.body_quat)
        bodies.world_velocities(s.body_quat, self.u, s.body_vel, s.body_omega)

    def _project(self, s, info):
        """Positions, then velocities, onto the joints (post-stabilization; see :mod:`.joints`)."""
        it, err = self.joints.project_positions(s, self.minv, self.proj, self.eps_d, self.max_projections,
                                                self.max_iter)
        info.iters_pos, info.residual_pos = it, err
        info.converged_pos = err <= self.eps_d
        extras = self.extras if self.extras.n_rows else None
        verr = self.joints.project_velocities(s, self.minv, self.proj, self.u, self.eps_v, self.max_iter, extras)
        info.residual_vel = verr
        info.converged_vel = info.converged_vel and verr <= self.eps_v

    def _runner_params(self, h):
        for k, spec in self._runner_specs.items():
            self.body_law_par[k] = spec.params(h)

    # results ------------------------------------------------------------------------------------------
    def contact_load(self, body) -> tuple[np.ndarray, np.ndarray]:
        """Mean contact force [N] and torque about the centre of mass [N m] (world) on ``body`` (name or
        index) over the last step."""
        k = self.model.body(body) if isinstance(body, str) else int(body)
        return self.contact_force[k].copy(), self.contact_torque[k].copy()


def _check_bodies(model):
    dyn = np.nonzero(model.body_inv_mass > 0)[0]
    for k in dyn:
        if np.any(model.body_inertia[k] <= 0):
            raise UnsupportedFeatureError(
                f'method "moreau": body "{model.body_names[k]}" has a zero principal moment of inertia '
                f"{tuple(model.body_inertia[k])}; the body-frame Euler equations need Θ > 0")


def _check_options(solver, alpha, e_r, e_a, max_iter, gyroscopic, eps_d, eps_v, e_t):
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r} (use {', '.join(SOLVERS)})")
    if gyroscopic not in GYROSCOPIC:
        raise ValueError(f"unknown gyroscopic treatment {gyroscopic!r} (use {', '.join(GYROSCOPIC)})")
    if not 0 < alpha < 2:
        raise ValueError(f"alpha must lie in (0, 2) for the prox iteration to converge, got {alpha!r}")
    for name, v in (("e_r", e_r), ("e_a", e_a), ("eps_d", eps_d), ("eps_v", eps_v)):
        if not (np.isfinite(v) and v >= 0):
            raise ValueError(f"{name} must be a non-negative tolerance, got {v!r}")
    if not (isinstance(max_iter, (int, np.integer)) and max_iter > 0):
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    if not 0 <= e_t <= 1:
        raise ValueError(f"tangential_restitution must lie in [0, 1], got {e_t!r}")


def _runner_tables(model, runners):
    """Per body: friction law (RUNNER or COULOMB) and runner axis in the principal frame."""
    law = np.full(model.n_bodies, int(FrictionLaw.COULOMB), np.int64)
    axis = np.zeros((model.n_bodies, 3))
    specs = {}
    for name, spec in runners.items():
        try:
            k = model.body(name)
        except KeyError:
            raise ModelError(f'method "moreau": runners: body "{name}" does not exist') from None
        if not isinstance(spec, RunnerFriction):
            raise ModelError(f'method "moreau": runners["{name}"] must be a RunnerFriction, got {type(spec).__name__}')
        a = np.asarray(spec.axis, float)
        # user frame -> principal frame
        axis[k] = quat_rotate_inv(model.body_frame_quat[k], a / np.linalg.norm(a))
        law[k] = int(spec.law)
        specs[k] = spec
    return law, axis, specs
