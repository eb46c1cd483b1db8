"""The Lagrange-multiplier method (Wagner 2001, Baraff 1996) over the shared model.

Per evaluation of the equations of motion: J M⁻¹ Jᵀ λ = −(J M⁻¹ F + c′), v̇ = M⁻¹ (F + Jᵀ λ)
(Wagner eq. 3.12, 3.13), then an explicit Runge–Kutta step of the whole state.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.contact.default import model_has_contacts
from impulsim.contact.materials import DEFAULT_FRICTION_RULE, DEFAULT_RESTITUTION_RULE
from impulsim.errors import ModelError, SimulationError
from impulsim.methods.base import Method, StepInfo
from impulsim.methods.capabilities import IMPACT_LAWS, Capabilities
from impulsim.methods.lagrange.constraints import ExtraConstraint
from impulsim.methods.lagrange.contacts import ContactStage
from impulsim.methods.lagrange.evaluate import Evaluator, pack, unpack
from impulsim.methods.lagrange.forces import bind_all
from impulsim.methods.lagrange.integrators import RungeKutta, normalize_quaternions
from impulsim.methods.lagrange.kinds import VELOCITY_LEVEL
from impulsim.methods.lagrange.limits import _displace as displace
from impulsim.methods.lagrange.limits import apply_limits
from impulsim.methods.lagrange.solvers import SingularSystem, make_solver
from impulsim.methods.lagrange.system import block_residuals, constraint_loads
from impulsim.methods.extra_constraints import check_extras
from impulsim.methods.lagrange.table import build_table
from impulsim.model.model import Model

STABILIZATIONS = ("baumgarte", "none")


@dataclass
class ConstraintForces:
    """What the constraints carry at one state: λ per row and Jᵀλ per element and body.

    ``load`` [n_bodies, 6] sums every constraint's force [N] (columns 0–2) and torque about the centre of
    mass [N m] (columns 3–5) on each body, world frame.
    """
    t: float
    lam: np.ndarray
    load: np.ndarray
    names: list
    element_rows: list
    element_bodies: list
    element_load: list
    """Per element: ((force on A, torque on A), (force on B, torque on B)) [N, N m], world frame."""

    def element(self, name: str) -> dict:
        """λ of a joint or extra constraint and the force/torque it applies to each of its bodies."""
        try:
            e = self.names.index(name)
        except ValueError:
            raise KeyError(f"no constrained element called {name!r}") from None
        r0, r1 = self.element_rows[e]
        (fa, ta), (fb, tb) = self.element_load[e]
        a, b = self.element_bodies[e]
        return dict(lam=self.lam[r0:r1].copy(), body_a=a, body_b=b, force_a=fa, torque_a=ta, force_b=fb,
                    torque_b=tb)


class LagrangeMethod(Method):
    """Constraint forces by Lagrange multipliers, integrated with explicit Runge–Kutta.

    Supports every joint kind of the model (the basic constraints and the combined joints), velocity-only
    joints, springs, motors, PID servos, user forces, closed loops (found automatically), redundant and
    conflicting constraints (with the SVD solvers), and Wagner's extra constraints and force elements
    passed in ``constraints`` and ``forces`` (see :mod:`.constraints`, :mod:`.forces`).
    Contacts (collisions with Newton's restitution, resting contacts, Coulomb friction) by impulses held
    as forces over each step, solved together with the joints (see :mod:`.contacts`).

    Options
    -------
    solver : "baraff" (default; linear time on trees, loops as secondary constraints), "baraff_svd",
        "dense" (Cholesky of J M⁻¹ Jᵀ) or "dense_svd" (least squares / minimum norm; never fails on
        over-determined systems). The plain solvers raise a SimulationError naming a redundant element.
    integrator : "rk4" (default), "rk2", "euler" or "rk45" (adaptive Cash–Karp, to ``tolerance``).
    stabilization : "baumgarte" (default): C̈ + 2α Ċ + β² C = 0 with β = γ α on holonomic rows,
        Ċ + α C = 0 on velocity rows; "none" integrates C̈ = 0 and lets the constraints drift.
    alpha : α [1/s] (Wagner's default 5). gamma : γ = β/α (1: critically damped).
    svd_tol : singular values below svd_tol · σ_max are dropped by the SVD solvers.
    tolerance : local error bound of the adaptive integrator (relative to 1 + |y|).
    constraints : extra constraints (PointToFunction, PointToPath, EqualVelocity, VelocityToFunction).
    forces : force elements (VectorForce, SpringForce, TrajectoryForce, GravityField, DampingField,
        RadialField), evaluated at every integrator stage.
    eps_d, eps_v : bounds on the position [m, rad] and velocity [m/s, rad/s] constraint errors that
        ``StepInfo.converged_pos/vel`` report against after each step (the method does not iterate).
    contacts : resolve contacts found by the collision Detector. Default: on when shapes of bodies that no
        chain of joints connects may collide (see contact.default); True also detects self-collisions;
        False runs without contacts.
    restitution : impact law of the contacts: only "newton" (u_n⁺ = −e u_n⁻); "poisson" and "stronge"
        are refused.
    eps_c : contact tolerance of the Detector [m]. slop : penetration [m] left uncorrected.
    rest_speed : approach speed [m/s] below which a contact gets no restitution (default 2 |g| h).
    contact_eps_v, contact_max_iter : stop criterion [m/s] and sweeps at most of the contacts' Gauss–Seidel.
    restitution_rule, friction_rule : how the coefficients of two materials combine (contact.materials).
    consistent_start : before the first step of a run (``state.step_count == 0``) project the velocities
        onto the velocity constraints (:meth:`project_velocities`), as for a DAE's consistent initial
        values; otherwise Baumgarte removes an initial velocity error over ~5/α … 10/α seconds.
    """

    name = "lagrange"
    unsupported = ((lambda m: not isinstance(m, Model), "models other than the rigid-body Model"),)
    capabilities = Capabilities(velocity_joints=True, loops=True, kinematic_bodies=True, constraints=True,
                                force_elements=True, limits=True, contacts=("newton",))

    def __init__(self, model, *, solver: str = "baraff", integrator: str = "rk4",
                 stabilization: str = "baumgarte", alpha: float = 5.0, gamma: float = 1.0, svd_tol: float = 1e-9,
                 tolerance: float = 1e-8, constraints=(), forces=(), eps_d: float = 1e-6, eps_v: float = 1e-6,
                 consistent_start: bool = False, contacts: bool | None = None, restitution: str = "newton",
                 eps_c: float = 1e-3, slop: float = 1e-4, rest_speed=None, contact_eps_v: float = 1e-6,
                 contact_max_iter: int = 100, restitution_rule=DEFAULT_RESTITUTION_RULE,
                 friction_rule=DEFAULT_FRICTION_RULE, ignore=()):
        super().__init__(model, ignore=ignore, contacts=contacts, constraints=constraints, forces=forces,
                         restitution=restitution)
        if str(restitution).lower() not in IMPACT_LAWS:
            raise ValueError(f"unknown restitution law {restitution!r} (use one of: {', '.join(IMPACT_LAWS)}; "
                             f"the Lagrange method honours newton)")
        self._check_options(stabilization, alpha, gamma, svd_tol, eps_d, eps_v)
        self.extras = list(constraints)
        for c in self.extras:
            if not isinstance(c, ExtraConstraint):
                raise ModelError(f"constraints must be ExtraConstraint objects, got {type(c).__name__}")
        check_extras(model, self.extras)
        if not solver.endswith("_svd"):
            _refuse_redundant_velocity_joints(model)
        self.elements = bind_all(model, forces)
        self.table = build_table(model, self.extras)
        self.solver_name = solver
        self.solver = make_solver(solver, self.table, model, svd_tol)
        self.stabilization = stabilization
        on = stabilization == "baumgarte"
        self.alpha, self.gamma = float(alpha), float(gamma)
        self.eval = Evaluator(model, self.table, self.solver, self.extras, self.elements,
                              self.alpha if on else 0.0, self.alpha * self.gamma if on else 0.0)
        self.integrator = RungeKutta(integrator, 13 * model.n_bodies, tolerance)
        self.eps_d, self.eps_v = float(eps_d), float(eps_v)
        self.consistent_start = bool(consistent_start)
        self.lam_start = np.zeros(self.table.n_rows)
        """λ per row at the start of the last step [N, N m or N s/m per unit row]."""
        self.contacts = None
        """The contact stage (None: the model runs without contacts)."""
        use = model_has_contacts(model) if contacts is None else bool(contacts)
        if use and "contacts" not in self.ignored:
            from impulsim.collision import Detector
            if not (np.isfinite(slop) and slop >= 0):
                raise ValueError(f"slop must be a non-negative distance, got {slop!r}")
            self.contacts = ContactStage(model, self.table, Detector(model, eps_c), eps_v=contact_eps_v,
                                         max_iter=contact_max_iter, rest_speed=rest_speed, slop=slop,
                                         restitution_rule=restitution_rule, friction_rule=friction_rule)
        if hasattr(self.solver, "prepare_step"):
            self.solver.prepare_step(self.eval, self.integrator)
        self.y0 = self.integrator.y0
        """The packed state at the start of the step (the integrator's buffer, which a step taken in one
        kernel fills)."""

    @staticmethod
    def _check_options(stabilization, alpha, gamma, svd_tol, eps_d, eps_v):
        if stabilization not in STABILIZATIONS:
            raise ValueError(f"unknown stabilization {stabilization!r} (use {', '.join(STABILIZATIONS)})")
        for name, v in (("alpha", alpha), ("gamma", gamma), ("svd_tol", svd_tol), ("eps_d", eps_d),
                        ("eps_v", eps_v)):
            if not (np.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be positive and finite, got {v!r}")

    # the step -------------------------------------------------------------------------------------
    def _step(self, s, h, info: StepInfo):
        ev = self.eval
        for key in ev.timed:
            ev.timed[key] = 0.0
        if self.consistent_start and s.step_count == 0:
            self.project_velocities(s)
        ev.begin_step(s, h)
        if self.contacts is not None:
            self._contact_forces(s, h, info)
        try:
            if ev.whole_step_in_one_kernel and not self.integrator.adaptive:
                ev.runge_kutta_step(self.integrator, s, h, self.lam_start)
            else:
                self._integrate(s, h)
        except SingularSystem as exc:
            raise SimulationError(self._singular_message(s, exc.row)) from None
        s.t += h
        s.step_count += 1
        if self.contacts is not None:
            self._separate(s, info)
        if self.model.n_limits and "limits" not in self.ignored:
            self._stops(s)
        self._report(s, info)

    def contact_detector(self):
        return None if self.contacts is None else self.contacts.detector

    def _refresh(self, s):
        """World inertias and joint rows at ``s``."""
        from impulsim.methods.lagrange.system import world_inertia
        ev, m = self.eval, self.model
        world_inertia(s.body_quat, m.body_inertia, m.body_inv_inertia, m.body_inv_mass, ev.Iw, ev.Iw_inv)
        ev.rows(s.t, s.body_pos, s.body_quat, s.body_vel, s.body_omega)

    def _contact_forces(self, s, h, info):
        """Contact impulses of this step held as forces over it (see .contacts), from the velocities the
        step would end with under the joints alone, v + h v̇ (one more evaluation at the step's start, only
        in steps with contacts)."""
        ev, n = self.eval, self.model.n_bodies

        def end_velocities():
            out = np.empty(13 * n)
            ev.derivative(s.t, pack(s), out)
            _, _, acc, alpha = unpack(out, n)
            v_end = np.hstack([s.body_vel + h * acc, s.body_omega + h * alpha])
            self._refresh(s)
            return v_end
        self.contacts.hold_contact_forces(ev, s, h, end_velocities, info)
        info.iters_collision = self.contacts.sweeps

    def _separate(self, s, info):
        """Contacts deeper than the slop at the step's end pushed apart, the joints kept (see .contacts).
        After a step whose contacts carried forces or were pushed apart, bodies under joints are put back
        onto their joints
        (positions, then velocities): a contact force of one step turns a jointed body within the step
        (ω reversed in a collision), which the Runge–Kutta step follows only to its order; left alone,
        the joint's velocity error of such a step would drift for the ~1/α seconds Baumgarte needs."""
        self._refresh(s)
        moved = self.contacts.separate(self.eval, s) > self.contacts.slop
        if self.table.n_rows and (moved or (info.n_contacts and self.contacts.acted)):
            try:
                self._project_positions(s)
                self._project(s)
            except SingularSystem as exc:
                raise SimulationError(self._singular_message(s, exc.row)) from None

    POSITION_PROJECTIONS = 2
    """Gauss–Newton projections of the positions onto the joints after a step with contact forces."""

    def _project_positions(self, s):
        """Δq = M⁻¹ Jᵀ μ with J M⁻¹ Jᵀ μ = −C on the holonomic rows (Gauss–Newton onto C = 0)."""
        ev = self.eval
        velocity_row = self.table.row_velocity.astype(bool)
        for _ in range(self.POSITION_PROJECTIONS):
            self._refresh(s)
            ev.force[...] = 0.0
            ev.a0[...] = 0.0
            ev.cp[...] = np.where(velocity_row, 0.0, ev.row_C)
            self.solver.solve(ev)
            displace(s, ev.acc6 * (1.0 - self.model.body_static)[:, None])

    def _stops(self, s):
        """Joint limits reached at the end of the step: impulses and displacements (see .limits)."""
        from impulsim.methods.lagrange.system import world_inertia
        ev, m = self.eval, self.model

        def refresh():
            world_inertia(s.body_quat, m.body_inertia, m.body_inv_inertia, m.body_inv_mass, ev.Iw, ev.Iw_inv)
            ev.rows(s.t, s.body_pos, s.body_quat, s.body_vel, s.body_omega)
        refresh()
        if apply_limits(m, self.table, ev, s, ev.Iw_inv, refresh):
            self.project_velocities(s)     # onto the joints at the displaced positions

    def _integrate(self, s, h):
        """The motion of s advanced by h with the integrator calling the evaluator stage by stage."""
        ev = self.eval
        n = self.model.n_bodies
        y0 = pack(s, self.y0)
        first = [True]

        def f(t, y, out):
            ev.derivative(t, y, out)
            if first[0]:
                self.lam_start[:] = ev.lam
                first[0] = False

        y1 = self.integrator.step(f, s.t, y0, h, lambda y: normalize_quaternions(y, n))
        pos, quat, vel, omega = unpack(y1, n)
        s.body_pos[...], s.body_quat[...], s.body_vel[...], s.body_omega[...] = pos, quat, vel, omega

    def _singular_message(self, s, row):
        t = self.table
        if not 0 <= row < t.n_rows:          # a body's equations failed (a load that overflows), no row's
            return (f"step {s.step_count} (t = {s.t:.6g} s): the equations of motion have no finite solution "
                    f"(a load or velocity is too large); the state was left at the last good step")
        name = t.element_names[t.element[t.row_block[row]]]
        return (f'step {s.step_count} (t = {s.t:.6g} s): the constraint system is singular at "{name}": its rows '
                f'depend on the other constraints (redundant or conflicting); solver="{self.solver_name}" needs '
                f'independent rows, "dense_svd" or "baraff_svd" give the least-squares answer; the state was left '
                f"at the last good step")

    def _report(self, s, info):
        ev = self.eval
        ev.rows(s.t, s.body_pos, s.body_quat, s.body_vel, s.body_omega)
        info.iters_pos = self.integrator.evaluations
        info.iters_vel = self.integrator.substeps
        info.residual_pos, info.residual_vel = self._residuals()
        info.converged_pos = info.residual_pos <= self.eps_d
        info.converged_vel = info.residual_vel <= self.eps_v
        info.timings.update(ev.timed)

    def _residuals(self):
        """Largest |C| of a holonomic block [m, rad] and largest |Ċ| (or velocity-row |C|) [m/s, rad/s]."""
        t, ev = self.table, self.eval
        if t.n_rows == 0:
            return 0.0, 0.0
        return block_residuals(ev.row_C, ev.row_Cd, t.row_velocity, t.row_start)

    def project_velocities(self, state) -> None:
        """Make the velocities meet the velocity constraints (J v + ∂C/∂t = 0, velocity rows C = 0) with the
        least change of kinetic energy: Δv = M⁻¹ Jᵀ μ, J M⁻¹ Jᵀ μ = −Ċ (one solve; the state is changed)."""
        try:
            self._project(state)
        except SingularSystem as exc:
            raise SimulationError(self._singular_message(state, exc.row)) from None

    def _project(self, s):
        ev = self.eval
        m = self.model
        from impulsim.methods.lagrange.system import world_inertia
        world_inertia(s.body_quat, m.body_inertia, m.body_inv_inertia, m.body_inv_mass, ev.Iw, ev.Iw_inv)
        ev.rows(s.t, s.body_pos, s.body_quat, s.body_vel, s.body_omega)
        # with F = 0 and c′ = Ċ the solver returns v̇ = M⁻¹ Jᵀ λ, λ = −A⁻¹ Ċ: the velocity change itself
        ev.force[...] = 0.0
        ev.a0[...] = 0.0
        ev.cp[...] = np.where(self.table.row_velocity.astype(bool), ev.row_C, ev.row_Cd)
        self.solver.solve(ev)
        s.body_vel += ev.acc6[:, :3]
        s.body_omega += ev.acc6[:, 3:]

    # outputs --------------------------------------------------------------------------------------
    def constraint_forces(self, state, h: float = 1e-3) -> ConstraintForces:
        """λ and Jᵀλ at ``state`` (not changed), with the loads a step of size h from it would use."""
        ev = self.eval
        probe = state.copy()
        ev.begin_step(probe, h)
        ev.derivative(probe.t, pack(probe), np.empty(13 * self.model.n_bodies))
        return self._forces(probe.t, ev.lam.copy())

    def _forces(self, t, lam) -> ConstraintForces:
        tab, ev = self.table, self.eval
        load = np.zeros((self.model.n_bodies, 6))
        constraint_loads(tab.row_a, tab.row_b, ev.row_Ja, ev.row_Jb, lam, self.model.n_bodies, load)
        rows, bodies, loads = [], [], []
        for e in range(tab.n_elements):
            r0, r1 = tab.element_rows(e)
            la = ev.row_Ja[r0:r1].T @ lam[r0:r1]
            lb = ev.row_Jb[r0:r1].T @ lam[r0:r1]
            rows.append((r0, r1))
            bodies.append((int(tab.row_a[r0]), int(tab.row_b[r0])))
            loads.append(((la[:3], la[3:]), (lb[:3], lb[3:])))
        return ConstraintForces(t=t, lam=lam, load=load, names=list(tab.element_names), element_rows=rows,
                                element_bodies=bodies, element_load=loads)

    def constraint_errors(self, state) -> np.ndarray:
        """|C| per element (holonomic rows) at ``state`` [m or rad], in element order."""
        ev, t = self.eval, self.table
        ev.rows(state.t, state.body_pos, state.body_quat, state.body_vel, state.body_omega)
        sq = np.where(t.row_velocity.astype(bool), 0.0, ev.row_C ** 2)
        return np.array([np.sqrt(sq[slice(*t.element_rows(e))].sum()) for e in range(t.n_elements)])


__all__ = ["LagrangeMethod", "ConstraintForces", "VELOCITY_LEVEL"]


def _refuse_redundant_velocity_joints(model):
    """A velocity joint between two bodies that another joint already connects repeats rows of that joint
    (a drive about a hinge's axis prescribes the two rates the hinge fixes as well): only the SVD solvers
    take such dependent rows."""
    from impulsim.errors import UnsupportedFeatureError
    from impulsim.model.kinds import JointKind
    pairs = {}
    for j in range(model.n_joints):
        pair = frozenset((int(model.joint_body_a[j]), int(model.joint_body_b[j])))
        pairs.setdefault(pair, []).append(j)
    for joints in pairs.values():
        velocity = [j for j in joints if model.joint_kind[j] == JointKind.VELOCITY]
        other = [j for j in joints if model.joint_kind[j] != JointKind.VELOCITY]
        if velocity and (other or len(velocity) > 1):
            j, k = velocity[0], (other or velocity[1:])[0]
            raise UnsupportedFeatureError(
                f'method \'lagrange\': velocity joint "{model.joint_names[j]}" beside joint '
                f'"{model.joint_names[k]}" between the same bodies gives dependent rows; use solver="baraff_svd" '
                f'or "dense_svd" (or the impulse method, which takes them with either solver)')
