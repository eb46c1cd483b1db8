"""The impulse-based step (Bender Fig. 3.1): loads, joint correction, free step, velocity correction."""
from __future__ import annotations

import time

import numpy as np

from impulsim.dynamics.forces import has_force_elements
from impulsim.dynamics.integrate import Integrator, rotation_scheme
from impulsim.errors import ModelError, UnsupportedFeatureError
from impulsim.methods.base import Method, StepInfo, StageTimer
from impulsim.methods.capabilities import Capabilities
from impulsim.methods.impulse import contact_run, run_path as compiled_run, schemes
from impulsim.methods.impulse.contact_step import ContactCoupling, CONTACT_OPTION_NAMES, contact_option_defaults
from impulsim.methods.impulse.graph import find_chains, joint_prims
from impulsim.methods.impulse.iterative import correct_positions_checked, correct_velocities_of
from impulsim.methods.impulse.lgs import LgsSolver, LOOP_TREATMENTS, DEPENDENT_PIVOT, diverged_error
from impulsim.methods.impulse.lgs_correct import advance_bodies, DIVERGENCE_FACTOR
from impulsim.methods.impulse.groups import bodies_of, pred_of, prims_of, rows_of
from impulsim.methods.impulse.lgs_kernels import same_poses
from impulsim.methods.impulse.rows import world_inverse_inertia, compute_rows, compute_rows_of
from impulsim.methods.impulse.wagner import WagnerConstraints

SOLVERS = ("iterative", "lgs")


class ImpulseMethod(Method, ContactCoupling):
    """Impulse-based simulation of joints and contacts (Bender 2007).

    Supports every joint kind of the model (the six basic constraints and all combined joints),
    velocity-only joints, motors, PID servos, springs and closed loops, with either solver; collisions and
    resting contacts with Coulomb friction and joint limits (Bender ch. 5), coupled with either solver.

    Options
    -------
    solver : "iterative" (Bender 3.3.1; one impulse per constraint per sweep) or "lgs" (3.3.2; one linear
        system over all constraints of a chain, factorized once per step in linear time for trees).
    chain_solver : {body name: solver} to pick the solver of single chains (each independent chain is the set
        of bodies coupled by joints; name any body of it); the others use ``solver``.
    loops : LGS treatment of closed loops: "drop" (default; redundant rows found and dropped during the
        factorization) or "cut" (loop-closing joints corrected iteratively after each solve).
    scheme : "standard" (impulses at t0, Bender 3.2) or the higher-order schemes (Bender 3.4), named by the
        global order they measure: "order2" (impulses at the step's midpoint), "order3" and
        "order3_precise" (1+2 and 1+2+3 midpoint sub-step sequences extrapolated with the weights Bender
        derived for orders 4 and 6, which are accepted as aliases "order4" and "order6").
    eps_d : position tolerance [m, rad] of the joint correction (default 1e-6).
    eps_v : velocity tolerance [m/s, rad/s] of the velocity correction (default 1e-6).
    max_iter_pos, max_iter_vel : caps on sweeps (iterative) or solves (LGS) per phase (anytime
        behaviour); the residual is reported.
    max_correction_speed : per-step cap on the correction a primitive may request [m/s, rad/s], so a
        broken model reassembles over several steps instead of exploding (default 10).
    integrator : "rk4" (default), "euler" or "rk45" (adaptive Cash–Karp) for the rotation.
    velocity_correction : False skips the velocity correction (faster, less accurate).
    dependent_pivot : relative pivot below which the LGS factorization drops a row as dependent.
    fused : run the step of an all-LGS model without contacts, limits, springs, motors or servos as one
        compiled kernel (default True; same results, less call overhead). False keeps the staged step,
        whose StepInfo.timings has the time of every stage; the fused step reports "lgs_step" only. It also
        keeps :meth:`run` in Python (calls of ``step``) instead of its compiled loop (see ``run_path``;
        the loop takes springs, motors and servos too).
    constraints : Wagner's extra constraints (PointToFunction, PointToPath, VelocityToFunction, EqualVelocity
        of :mod:`impulsim.methods.extra_constraints`), kept by impulses like joints with a moving target
        (see :mod:`impulsim.methods.impulse.wagner`); the run then steps in Python (any scheme; with
        contacts and joint limits, not with sleeping bodies).
    contacts : True / False to switch collision handling on or off; None (default) switches it on when the
        model has shapes on two bodies that may collide.
    eps_c, eps_vc, restitution, restitution_rule, friction_rule, max_iter_collision, shock_propagation,
    max_iter_contact, capacity, warm_start : contact options, see :class:`impulsim.contact.ContactOptions`.
    """

    name = "impulse"
    capabilities = Capabilities(velocity_joints=True, loops=True, kinematic_bodies=True, constraints=True,
                                contacts=("newton", "poisson", "stronge"), limits=True,
                                schemes=tuple(schemes.SCHEMES)[1:])

    _scratch_attrs = frozenset((
        "acc", "tau", "Iinv", "row_ra", "row_rb", "row_P", "row_dim", "row_Minv", "step_tol", "_rows_pos",
        "_rows_quat", "chains", "chain_solvers", "_iter_prims", "_row_prims", "_run_fused", "_run_work",
        "_contact_work", "_contact_site", "_contact_loop_ready"))
    """Loads and rows of the current poses (with the poses they belong to, ``_rows_pos``/``_rows_quat``, the
    key under which they are reused) and the chain structure: not rolled back after a failed step, where
    rows and key stay consistent with each other, nor checkpointed (see impulsim.methods.memory)."""

    def __init__(self, model, *, solver: str = "iterative", chain_solver: dict | None = None, loops: str = "drop",
                 scheme: str = "standard", eps_d: float = 1e-6, eps_v: float = 1e-6, max_iter_pos: int = 10000,
                 max_iter_vel: int = 10000, max_correction_speed: float = 10.0, integrator: str = "rk4",
                 velocity_correction: bool = True, dependent_pivot: float = DEPENDENT_PIVOT,
                 contacts: bool | None = None, fused: bool = True, constraints=(), forces=(), ignore=(),
                 **contact_options):
        constraints = list(constraints or ())
        unknown = sorted(set(contact_options) - set(CONTACT_OPTION_NAMES))
        if unknown:
            raise ValueError(f"unknown option(s) of the impulse method: {', '.join(unknown)}")
        _check_choice("solver", solver, SOLVERS)
        _check_choice("loops", loops, LOOP_TREATMENTS)
        _check_choice("scheme", scheme, tuple(schemes.SCHEMES) + tuple(schemes.ALIASES))
        scheme = schemes.canonical(scheme)
        super().__init__(model, ignore=ignore, contacts=contacts, scheme=scheme, constraints=constraints,
                         forces=forces, restitution=contact_options.get("restitution"))
        for name, v in (("eps_d", eps_d), ("eps_v", eps_v), ("max_correction_speed", max_correction_speed),
                        ("dependent_pivot", dependent_pivot)):
            if not (v > 0 and np.isfinite(v)):
                raise ValueError(f"{name} must be positive and finite, got {v!r}")
        for name, v in (("max_iter_pos", max_iter_pos), ("max_iter_vel", max_iter_vel)):
            if int(v) < 1:
                raise ValueError(f"{name} must be at least 1, got {v!r}")
        try:
            self.integrator = Integrator[integrator.upper()]
        except KeyError:
            raise ValueError(f"unknown integrator {integrator!r} (use rk4, euler or rk45)") from None
        self.solver, self.loops, self.scheme = solver, loops, scheme
        self.eps_d, self.eps_v = float(eps_d), float(eps_v)
        self.max_iter_pos, self.max_iter_vel = int(max_iter_pos), int(max_iter_vel)
        self.max_correction_speed = float(max_correction_speed)
        self.velocity_correction = bool(velocity_correction)
        self._alloc(model)
        self.chains = find_chains(model)
        self.chain_solvers = _chain_solvers(model, self.chains, solver, chain_solver or {})
        self._setup_solvers(model, loops, float(dependent_pivot))
        self._scheme = schemes.SCHEMES[scheme]
        self._setup_contacts(model, contacts, contact_options)
        self._wagner = WagnerConstraints(model, constraints) if len(constraints) else None
        self._setup_limit_coupling()
        if self._wagner is not None and self.contacts is not None and self.contacts.sleep is not None:
            raise UnsupportedFeatureError(
                "method 'impulse' does not let bodies sleep with Wagner's constraints (a sleeping body would "
                "not follow its constraint): leave sleep off")
        if self._wagner is not None and not self.velocity_correction and self._wagner.has_velocity_rows():
            raise UnsupportedFeatureError(
                "method 'impulse' keeps velocity constraints (VelocityToFunction, EqualVelocity) in its velocity "
                "correction: they need velocity_correction=True")
        self._fused = bool(fused) and self._fusable()
        self._run_fused = bool(fused)
        self._joints_alone_when_untouched = (self.contacts is not None and self.limits is None and self._wagner is None
                                             and self.velocity_correction)
        """Whether a contact step that finds no contact may finish as a step without contacts would
        (ContactCoupling._joints_alone): no limits or extra constraints, velocity correction on."""
        self._fused_when_untouched = bool(fused) and self.contacts is not None and self._all_lgs_standard(
            contacts_allowed=True)
        """... and then in the fused step's kernels (every joint in LGS chains)."""

    def _fusable(self) -> bool:
        """Whether the step is the fixed kernel sequence of lgs_step: an all-LGS standard step (see
        :meth:`_all_lgs_standard`) without force elements."""
        return self._all_lgs_standard() and not has_force_elements(self.model)

    def _all_lgs_standard(self, contacts_allowed: bool = False) -> bool:
        """Whether the step is, after its loads, the kernel sequence of ``lgs_step.lgs_corrections``: LGS
        only (no loop cuts or velocity-only rows corrected one by one), standard scheme with the velocity
        correction, no limits or extra constraints, and no contacts unless ``contacts_allowed`` (a contact step
        that finds none, ContactCoupling._joints_alone). The compiled run loop takes such steps with any
        loads, force elements included (run_path.compiled_path)."""
        return (self._lgs is not None and self._iter_prims is None and self._row_prims is None
                and self.scheme == "standard" and self.velocity_correction
                and (self.contacts is None or contacts_allowed) and self.limits is None and self._wagner is None)

    def _alloc(self, m):
        n, p = m.n_bodies, m.n_prims
        self.acc = np.zeros((n, 3))
        self.tau = np.zeros((n, 3))
        self.Iinv = np.zeros((n, 3, 3))
        self.pred_pos = np.zeros((n, 3))
        self.pred_quat = np.zeros((n, 4))
        self.pred_vel = np.zeros((n, 3))
        self.pred_omega = np.zeros((n, 3))
        self.pred_valid = np.zeros(n, np.int8)
        self.dirty = np.ones(n, np.int8)
        self.row_ra = np.zeros((p, 3))
        self.row_rb = np.zeros((p, 3))
        self.row_P = np.zeros((p, 3, 3))
        self.row_dim = np.zeros(p, np.int64)
        self.row_Minv = np.zeros((p, 3, 3))
        self.step_tol = np.zeros(p)
        self._rows_pos = np.full((n, 3), np.nan)
        self._rows_quat = np.full((n, 4), np.nan)

    def _setup_solvers(self, m, loops, dependent_pivot):
        lgs = [ch for ch, sv in zip(self.chains, self.chain_solvers) if sv == "lgs"]
        self._lgs = LgsSolver(m, lgs, loops, dependent_pivot) if lgs else None
        in_lgs = set(joint_prims(m, [j for ch in lgs for j in ch.joints]))
        rest = [i for i in range(m.n_prims) if i not in in_lgs]
        self._iter_prims = np.array(rest, np.int64) if rest else None
        # primitives corrected one at a time need their full rows (with (P K Pᵀ)⁻¹); LGS nodes only geometry
        one_by_one = rest + ([] if self._lgs is None else self._lgs.cut_prims.tolist() + self._lgs.soft_prims.tolist())
        self._row_prims = np.array(sorted(one_by_one), np.int64) if one_by_one else None

    # the step ---------------------------------------------------------------------------------------
    def _step(self, s, h, info: StepInfo):
        if self._wagner is not None:
            self._wagner.begin_step(self.model, s, h)
            self._wagner.t_end = s.t + h
        if self.contacts is not None or self.limits is not None:
            self._step_with_contacts(s, h, info)
        elif self._fused:
            self._fused_step(s, h, info)
        else:
            self._scheme(self, s, h, info, StageTimer(info.timings))
        s.t += h
        s.step_count += 1

    def _fused_step(self, s, h, info: StepInfo):
        t = time.perf_counter()
        self._take_lgs_result(s, h, info, self._lgs.standard_step(self, s, h))
        info.timings["lgs_step"] = time.perf_counter() - t

    def _take_lgs_result(self, s, h, info: StepInfo, result):
        """Fail the step if a chain's correction diverged, else put the solves and residuals of the fused step's
        kernels (``LgsSolver.standard_step`` or ``corrections``) into ``info``."""
        sp, rp, cl, sv, rv, diverged = result
        if diverged:
            raise diverged_error(s.step_count, s.t, h, rp, sp)
        info.iters_pos, info.residual_pos, info.clamped, info.converged_pos = sp, rp, cl, rp <= self.eps_d
        info.iters_vel, info.residual_vel, info.converged_vel = sv, rv, rv <= self.eps_v

    def contact_detector(self):
        return None if self.contacts is None else self.contacts.detector

    def _idle_step(self, state):
        return self._resting_step_info(state)     # a model asleep whole (ContactCoupling)

    _compiles_before_detecting = True      # see _prepare_first_step

    def _prepare_first_step(self, s, h):
        """Beside the second process of the first contact step (Method._prepare_first_step), compile the
        start of the position phase and the free step (the head start), then step: the two processes take
        about as long, and the step waits for the other at its first detection."""
        super()._prepare_first_step(s, h)
        if self.side_compile is not None and self.contacts.count == 0:
            self._head_start(s.copy(), h)

    # many steps ---------------------------------------------------------------------------------------
    @property
    def run_path(self) -> str:
        """How :meth:`run` steps this model: "lgs", "iterative" or "limits" (compiled loops, see
        :mod:`impulsim.methods.impulse.run_path`), "contacts" (bodies in contact, free or on iterative joints,
        with or without joint limits, see :mod:`impulsim.methods.impulse.contact_run`), or "python" (calls of
        :meth:`step`: contacts with LGS chains or sleeping, higher-order schemes, mixed solvers without limits,
        extra constraints, ``fused=False``)."""
        if contact_run.contact_path(self):
            return contact_run.PATH
        return compiled_run.compiled_path(self) or "python"

    def _run_steps(self, state, h, n, iters):
        if n >= 1 and contact_run.contact_path(self):
            info = contact_run.run_contacts(self, state, h, n, iters)
            if info is not None:
                return info
        path = compiled_run.compiled_path(self)
        if path is None or n < 1 or not compiled_run.loop_ready(path, n, elements=has_force_elements(self.model)):
            return super()._run_steps(state, h, n, iters)
        return compiled_run.run_compiled(self, path, state, h, n, iters)

    @staticmethod
    def extra_option_defaults() -> dict:
        """The contact options this method passes on to its contact stage, with their defaults."""
        return contact_option_defaults()

    # stages (used by the schemes) -------------------------------------------------------------------
    def _rows(self, s):
        """Impulse points, projections and inverse projected matrices of every primitive, now."""
        m = self.model
        world_inverse_inertia(s.body_quat, m.body_inv_inertia, self.Iinv)
        compute_rows(m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_anchor_a, m.prim_anchor_b,
                     m.prim_axis_a, m.prim_axis_b, s.body_pos, s.body_quat, m.body_inv_mass, self.Iinv,
                     self.row_ra, self.row_rb, self.row_P, self.row_dim, self.row_Minv)

    def _update_rows(self, s):
        """Rows of the iteratively corrected primitives and the LGS factorization at the current poses,
        remembered for the next step."""
        m = self.model
        self._rows_pos[0, 0] = np.nan        # no key while the rows change: an interrupted update is not reused
        world_inverse_inertia(s.body_quat, m.body_inv_inertia, self.Iinv)
        if self._row_prims is not None:
            compute_rows_of(self._row_prims, m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_anchor_a,
                            m.prim_anchor_b, m.prim_axis_a, m.prim_axis_b, s.body_pos, s.body_quat, m.body_inv_mass,
                            self.Iinv, self.row_ra, self.row_rb, self.row_P, self.row_dim, self.row_Minv)
        if self._lgs is not None:
            self._lgs.build(self, s)
        self._rows_pos[...] = s.body_pos
        self._rows_quat[...] = s.body_quat

    def _ensure_position_rows(self, s):
        """Rows and factorization for a joint correction at the current poses; reused when the poses are
        exactly those of the last velocity correction."""
        if not same_poses(s.body_pos, s.body_quat, self._rows_pos, self._rows_quat):
            self._update_rows(s)

    def _correct_positions(self, s, h, info):
        """Joint correction over h from the current poses (with the extra constraints, if any)."""
        if self._wagner is not None:
            self._wagner.correct_positions(self, s, h, info)
        else:
            self._correct_joint_positions(s, h, info)

    def _correct_joint_positions(self, s, h, info):
        """Joint correction of the model's joints alone; a correction that diverges fails the step
        (CorrectionDiverged, with either solver)."""
        m = self.model
        iters = clamped = 0
        residual = 0.0
        if self._lgs is not None:
            iters, residual, clamped, diverged = self._lgs.correct_positions(self, s, h)
            if diverged:
                raise diverged_error(s.step_count, s.t, h, residual, iters)
        if self._iter_prims is not None:
            sweeps, res, cl, diverged = correct_positions_checked(
                self._iter_prims, prims_of(m), bodies_of(m, s, self), rows_of(self), pred_of(self), h,
                rotation_scheme(self.integrator), self.eps_d, self.max_iter_pos, self.max_correction_speed,
                DIVERGENCE_FACTOR)
            if diverged:
                raise diverged_error(s.step_count, s.t, h, res, sweeps, solver="iterative")
            iters, residual, clamped = max(iters, sweeps), max(residual, res), clamped + cl
        info.iters_pos += iters
        info.residual_pos = max(info.residual_pos, residual)
        info.clamped += clamped
        info.converged_pos = info.converged_pos and residual <= self.eps_d

    def _advance(self, s, h):
        """Free step of all bodies; LGS chains reuse their last (valid) prediction."""
        m = self.model
        advance_bodies(bodies_of(m, s, self), pred_of(self), h, rotation_scheme(self.integrator))

    def _correct_velocities(self, s, info):
        """Velocity correction at the step's end (with the extra constraints, if any)."""
        if self._wagner is not None:
            self._wagner.correct_velocities(self, s, info)
        else:
            self._correct_joint_velocities(s, info)

    def _correct_joint_velocities(self, s, info):
        """Velocity correction of the model's joints alone."""
        m = self.model
        iters = 0
        residual = 0.0
        if self._lgs is not None:
            iters, residual = self._lgs.correct_velocities(self, s)
        if self._iter_prims is not None:
            sweeps, res = correct_velocities_of(self._iter_prims, prims_of(m), bodies_of(m, s, self), rows_of(self),
                                                self.eps_v, self.max_iter_vel)
            iters, residual = max(iters, sweeps), max(residual, res)
        info.iters_vel += iters
        info.residual_vel = max(info.residual_vel, residual)
        info.converged_vel = info.converged_vel and residual <= self.eps_v

    # description --------------------------------------------------------------------------------------
    @property
    def factorizations(self) -> int:
        """LGS factorizations so far (one per step in a continuous run)."""
        return 0 if self._lgs is None else self._lgs.factorizations

    def constraint_impulses(self) -> dict:
        """{name: world impulse [N s]} each extra constraint applied to its body B (B's point; the
        opposite on A) in the last step, joint and velocity correction together (standard scheme: the
        constraint force averaged over the step is this divided by h)."""
        return {} if self._wagner is None else self._wagner.impulses()

    @property
    def dropped_rows(self) -> int:
        """Rows the last LGS factorization dropped as linearly dependent (redundant loop constraints)."""
        return 0 if self._lgs is None else self._lgs.dropped

    def describe_chains(self) -> list[dict]:
        """Per chain: its bodies, tree joints, loop-closing joints and solver (names)."""
        m = self.model
        return [dict(bodies=[m.body_names[k] for k in ch.bodies], joints=[m.joint_names[j] for j in ch.tree_joints],
                     cut_joints=[m.joint_names[j] for j in ch.cut_joints], solver=sv)
                for ch, sv in zip(self.chains, self.chain_solvers)]


class ContactImpulseMethod(ImpulseMethod):
    """The impulse method with contact handling switched on whatever the model (``contacts=True``)."""

    def __init__(self, model, **options):
        options.setdefault("contacts", True)
        super().__init__(model, **options)


def _check_choice(option, value, allowed):
    if value not in allowed:
        raise ValueError(f"unknown {option} {value!r} (available: {', '.join(map(repr, allowed))})")


def _chain_solvers(model, chains, default, overrides) -> list[str]:
    """Solver of each chain: ``default`` unless a body of the chain is named in ``overrides``."""
    out = [default] * len(chains)
    chain_of = {k: c for c, ch in enumerate(chains) for k in ch.bodies}
    for body, solver in overrides.items():
        _check_choice(f'chain_solver for body "{body}": solver', solver, SOLVERS)
        if body not in model.body_names:
            raise ModelError(f'chain_solver: body "{body}" does not exist')
        k = model.body_names.index(body)
        if k not in chain_of:
            raise ModelError(f'chain_solver: body "{body}" is not part of a chain (static, kinematic or unjointed)')
        out[chain_of[k]] = solver
    return out
