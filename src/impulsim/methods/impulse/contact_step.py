"""The impulse step with collisions and resting contacts (Bender Fig. 5.2).

forces → detect → classify → resolve collisions (each iteration followed by one joint velocity pass)
→ joint + contact-joint position correction → free step → joint + contact velocity correction.

``ContactCoupling`` is the part of :class:`ImpulseMethod` that couples the contact stage
(:mod:`impulsim.contact.stage`) with the joint solver: the joint sweeps and the contact sweeps alternate in
each phase until neither corrects anything. The method uses it whenever its model has contacts.
"""
from __future__ import annotations

import inspect

import numpy as np

from impulsim.contact import ContactStage, ContactOptions
from impulsim.contact.default import model_has_contacts
from impulsim.contact.groups import limit_geometry_of
from impulsim.contact.limits import COLLISION, RESTING, LimitStage
from impulsim.dynamics.forces import compute_loads
from impulsim.dynamics.integrate import free_step_all, rotation_scheme
from impulsim.methods.base import StepInfo, StageTimer
from impulsim.methods.impulse.iterative import correct_positions_of, correct_velocities_of, free_position_error
from impulsim.methods.impulse.groups import bodies_of, lgs_of, pred_of, prims_of, rows_of
from impulsim.methods.impulse.limit_coupling import coupling_arrays, forget
from impulsim.methods.impulse.limit_coupling import position_pass as coupled_position_pass
from impulsim.methods.impulse.limit_coupling import velocity_pass as coupled_velocity_pass
from impulsim.methods.impulse.lgs import diverged_error
from impulsim.methods.impulse.lgs_correct import DIVERGENCE_FACTOR
from impulsim.methods.impulse.schemes import standard_after_loads



def contact_option_defaults() -> dict:
    """Contact option name -> default, read from :class:`ContactOptions` (the one place they are defined)."""
    params = inspect.signature(ContactOptions.__init__).parameters.values()
    return {p.name: p.default for p in params if p.name != "self"}


CONTACT_OPTION_NAMES = tuple(contact_option_defaults())

STALL_PASSES = 50
"""Passes of the coupled position correction after which it stops, its contacts still open, when none of them
has changed the contacts' error or the joints' by more than STALL_CHANGE: the passes then repeat themselves,
the joints undoing what the contacts do, and no further pass can gain. A straight chain hanging from a fixed
pivot with its tip 1 mm in the ground is such a case: the contact pushes along the chain, the joint pass pulls
the tip back, and the contact error stays at 1.00e-3 m, the same to 1e-13, for all 10 000 passes of the cap
(150 ms a step). The correction then ends with the joints' passes alone until they are closed
(ContactCoupling._close_joints): the joints hold and the contact keeps its penetration, as in the other
methods. A correction that is slow is not flat:
the contact error of Bender's pyramid of 55 boxes, which converges in 660 passes a step on average, changed by
at least 4e-5 of itself over any 50 passes of 300 steps (and may rise for a while before it falls, which is no
stall either)."""
STALL_CHANGE = 1e-9
"""Relative change of an error of the coupled position correction (of eps_d for the joints' error) below which a
pass counts as repeating the last (STALL_PASSES): far above rounding (1e-13 in a repeating pass), far below
the slowest progress seen (4e-5 over 50 passes)."""


class _StallWatch:
    """Whether the coupled position correction has stalled (STALL_PASSES)."""
    __slots__ = ("contacts", "joints", "changed_at")

    def __init__(self):
        self.contacts, self.joints, self.changed_at = np.inf, np.inf, 0

    def stalled(self, it: int, joints: float, contacts: float, eps_d: float) -> bool:
        """After pass ``it`` with the joints' and the contacts' errors [m or rad]: whether its contacts are open
        and no pass since STALL_PASSES ago has changed either error by more than STALL_CHANGE (each compared
        with its value at the last change, so that a slow drift adds up)."""
        if (abs(contacts - self.contacts) > STALL_CHANGE * contacts
                or abs(joints - self.joints) > STALL_CHANGE * max(joints, eps_d)):
            self.contacts, self.joints, self.changed_at = contacts, joints, it
        return contacts > eps_d and it - self.changed_at >= STALL_PASSES


class ContactCoupling:
    """Contact and joint-limit handling of the impulse method; expects the attributes ImpulseMethod sets up.

    ``contacts`` (a :class:`ContactStage`) and ``limits`` (a :class:`LimitStage`) are each None when the
    model has none; with either, the method steps through :meth:`_step_with_contacts`.
    """

    compiled_contact_velocities = True
    """Whether the velocity correction of contacts alone (no joints or limits) runs in one compiled loop; False
    calls a contact sweep from Python per iteration, as with joints. The results are the same bit for bit;
    the compiled loop saves about 3.5 µs a sweep."""

    contacts: ContactStage | None = None
    limits: LimitStage | None = None

    def _setup_contacts(self, model, enabled, contact_opts):
        """Create the contact stage when ``enabled`` (None: when the model has contacts) and the limit stage
        when the model has joint limits."""
        if enabled is None:
            enabled = model_has_contacts(model)
        if not enabled and model.n_limits == 0:
            if contact_opts:
                raise ValueError(f"contact options {sorted(contact_opts)} given, but contacts are off "
                                 f"({'contacts=False' if enabled is False else 'the model has no collidable pair'})")
            return
        what = "contacts" if enabled else "joint limits"
        if self.scheme != "standard":
            raise ValueError(f"scheme={self.scheme!r} is not available with {what} (use scheme='standard'"
                             + (", or contacts=False to ignore the shapes)" if enabled else ")"))
        opt = ContactOptions(**contact_opts)
        if enabled:
            self.contacts = ContactStage(model, opt)
        if model.n_limits:
            # a stop counts as touched within eps_c [m or rad]; it collides above eps_rc [m/s or rad/s]
            g = float(np.linalg.norm(model.gravity)) if opt.gravity_for_eps_rc is None else opt.gravity_for_eps_rc
            eps_rc = max(float(np.sqrt(2.0 * g * opt.eps_c)), opt.eps_vc)
            self.limits = LimitStage(model, opt.eps_c, eps_rc, opt.eps_vc)
        self._eps_vc = opt.eps_vc
        self._max_iter_collision = opt.max_iter_collision
        self._max_iter_contact = opt.max_iter_contact
        self._shock = opt.shock_propagation

    def _static_now(self):
        """Static bodies, and with sleeping on the sleeping ones: the free step leaves them in place."""
        return self.model.body_static if self.contacts is None else self.contacts.static_now

    def _free(self):
        m = self.model
        # the scheme as an integer here: a scheme object inside a tuple is typed through Python on every call,
        # and the contact passes take this group many times a step (the funnel's contact stage took 2x as long)
        return (self.acc, self.tau, m.body_inertia, m.body_inv_inertia, m.body_inv_mass, self._static_now(),
                int(self.integrator))

    def _step_with_contacts(self, s, h, info: StepInfo):
        """One step of Bender's Fig. 5.2 pipeline; time is advanced by the caller."""
        m = self.model
        timer = StageTimer(info.timings)
        compute_loads(m, s, h, self.acc, self.tau)
        timer.lap("forces")
        self._ensure_position_rows(s)
        self._begin_unilaterals(s, h, info)
        timer.lap("detect")
        if self._joints_alone_when_untouched and self.contacts.count == 0:
            self._joints_alone(s, h, info, timer)
            return
        info.iters_collision = self._resolve_collisions(s)
        timer.lap("collisions")
        if self.contacts is not None:
            self.contacts.begin_positions(s, self.Iinv, h)
        if self.limits is not None:
            self.limits.begin_positions(s)
            self._forget_limit_coupling()
        if self._wagner is not None:      # the extra constraints alternate with joints, contacts and limits
            self._wagner.correct_positions(self, s, h, info, joints=self._positions_with_contacts)
        else:
            self._positions_with_contacts(s, h, info)
        if self.contacts is not None:
            self.contacts.end_positions()
        timer.lap("joint_correction")
        self._free_step(s, h)
        timer.lap("free_step")
        self._update_rows(s)
        if self.contacts is not None:
            self.contacts.begin_velocities(s, self.Iinv)
        if self.limits is not None:
            self.limits.begin_velocities(s, self.Iinv)
            self._forget_limit_coupling()
        if self._wagner is not None:
            self._wagner.correct_velocities(self, s, info, joints=self._velocities_with_contacts)
        else:
            self._velocities_with_contacts(s, info)
        if self.contacts is not None:
            self.contacts.end_velocities()
            self.contacts.after_step(s, h)
            info.n_asleep = 0 if self.contacts.sleep is None else self.contacts.sleep.n_asleep
            info.shock_sweeps = self.contacts.level_sweeps
            info.patch_visits = self.contacts.visits
        timer.lap("velocity_correction")

    _joints_alone_when_untouched = False
    _fused_when_untouched = False

    def _joints_alone(self, s, h, info, timer):
        """The rest of a step that found no contact, in a model without limits or extra constraints: the joints'
        correction, free step and velocity correction as the standard step without contacts takes them after
        its loads (bit for bit: the fused step's kernels when every joint is in LGS chains, else the staged
        stages), then the contacts' bookkeeping of an empty step (sleep clocks)."""
        if self._fused_when_untouched:
            self._take_lgs_result(s, h, info, self._lgs.corrections(self, s, h))
            timer.lap("lgs_step")
        else:
            standard_after_loads(self, s, h, info, timer)
        self.contacts.end_velocities()
        self.contacts.after_step(s, h)
        info.n_asleep = 0 if self.contacts.sleep is None else self.contacts.sleep.n_asleep

    def _resting_step_info(self, s) -> StepInfo | None:
        """The StepInfo of a step that changes nothing but the time, if a step from ``s`` is one (Method.step
        then only advances the time): the whole model sleeps and nothing disturbs it (ContactStage.at_rest;
        not with limits or Wagner's constraints, or timed loads, which act on the step's copy of the state).
        It reports no contact (none is detected between sleeping bodies) and no pass, and leaves the contact
        stage as that step would (ContactStage.rest); else None."""
        if (self.contacts is None or self.limits is not None or self._wagner is not None or self.model.n_loads
                or not self.contacts.at_rest(s)):
            return None
        self.contacts.rest()
        return StepInfo(n_asleep=self.contacts.sleep.n_asleep)

    def _head_start(self, s, h):
        """On the first contact step with a second process compiling (Method._prepare_first_step): compile
        here, before the detection, the kernels that start the position phase and take the free step: the
        second process's step finds them in the cache when it gets there, and the two processes take about
        as long. No contact is loaded yet (count 0), so the calls change nothing but ``s``, a copy."""
        self.contacts.begin_positions(s, self.Iinv, h)
        self._free_step(s, h)

    def _free_step(self, s, h):
        """Every body's free motion over h [s] under the step's loads (static and sleeping bodies stay)."""
        m = self.model
        free_step_all(s.body_pos, s.body_quat, s.body_vel, s.body_omega, self.acc, self.tau, m.body_inertia,
                      m.body_inv_inertia, m.body_inv_mass, self._static_now(), h, rotation_scheme(self.integrator))

    def _begin_unilaterals(self, s, h, info):
        """Detect and classify contacts and limits at t0 for a step of h [s] (StepInfo counts both)."""
        if self.contacts is not None:
            info.n_contacts = self.contacts.begin(s, self.Iinv)
            info.n_collisions = self.contacts.n_collisions
        if self.limits is not None:
            info.n_collisions += self.limits.begin(s, self.Iinv, h)
            self._forget_limit_coupling()

    def _resolve_collisions(self, s) -> int:
        """Collision impulses of contacts and limits, each iteration followed by one joint velocity pass;
        returns the iterations."""
        limits = self.limits if self.limits is not None and self.limits.n_collisions else None

        def coupled_pass():
            err = self._limit_velocity_sweep(s, COLLISION) if limits is not None else 0.0
            return self._joint_velocity_pass(s) or err > self._eps_vc

        if self.contacts is not None and self.contacts.n_collisions:
            idle = limits is None and not self._has_joints
            return self.contacts.resolve_collisions(s, self.Iinv, None if idle else coupled_pass)
        iters = 0
        if limits is not None:
            for iters in range(1, self._max_iter_collision + 1):
                if not coupled_pass():
                    break
        return iters

    _limit_coupling: tuple | None = None
    """The arrays of the limits solved together through the joints (limit_coupling), or None: one by one."""

    def _setup_limit_coupling(self):
        """Solve the limits together through the joints (limit_coupling) where every joint is in an LGS chain and
        there are neither contacts nor extra constraints, whose sweeps the probes of D do not include."""
        together = (self.limits is not None and self._lgs is not None and self._row_prims is None
                    and self.contacts is None and self._wagner is None)
        self._limit_coupling = coupling_arrays(self.model.n_limits, self.model.n_bodies) if together else None

    def _forget_limit_coupling(self):
        if self._limit_coupling is not None:
            forget(self._limit_coupling)

    def _limit_velocity_sweep(self, s, which) -> float:
        """One velocity pass of the limits of ``which`` (COLLISION, or RESTING: the resting and arriving ones),
        together or one by one; returns the largest speed a pushing limit lacked."""
        if self._limit_coupling is None:
            return (self.limits.collision_sweep if which == COLLISION else self.limits.velocity_sweep)(s, self.Iinv)
        st = self.limits
        return coupled_velocity_pass(lgs_of(self._lgs), prims_of(self.model), bodies_of(self.model, s, self),
                                     rows_of(self), self.eps_v, st._args(), which, limit_geometry_of(st), st.side,
                                     st.phase, st.target, st.lam, self._limit_coupling, self._eps_vc)

    def _limit_position_sweep(self, s, bodies, pred, free, h):
        """One position pass of the limits, together or one by one; returns (largest violation at t0+h,
        largest free motion of an impulse applied)."""
        st = self.limits
        if self._limit_coupling is None:
            return st.position_sweep(bodies, pred, free, h, self.eps_d)
        return coupled_position_pass(lgs_of(self._lgs), prims_of(self.model), bodies, rows_of(self), self.eps_v,
                                     st._args(), limit_geometry_of(st), st.side, st.phase, st.lam_pos, pred, free,
                                     h, self.eps_d, self._limit_coupling)

    def _joint_velocity_pass(self, s) -> bool:
        """One LGS solve per chain and one sweep over the other joints; True if a joint needed correcting."""
        m = self.model
        moved = False
        if self._lgs is not None:
            solves, _ = self._lgs.correct_velocities(self, s, max_iter=1)
            moved = solves > 0
        if self._iter_prims is not None:
            _, residual = correct_velocities_of(self._iter_prims, prims_of(m), bodies_of(m, s, self), rows_of(self),
                                                self.eps_v, 1)
            moved = moved or residual > self.eps_v
        return moved

    def _joint_position_pass(self, s, h):
        """One LGS solve per chain and one sweep over the other joints; returns (largest error, clamped)."""
        m = self.model
        residual, clamped = 0.0, 0
        if self._lgs is not None:
            _, residual, clamped, _ = self._lgs.correct_positions(self, s, h, max_iter=1)
            self.pred_valid[:] = 0       # contact impulses follow: the free step integrates afresh
            self.dirty[:] = 1            # the solve changed velocities the contact sweeps predict from
        if self._iter_prims is not None:
            _, res, cl = correct_positions_of(self._iter_prims, prims_of(m), bodies_of(m, s, self), rows_of(self),
                                              pred_of(self), h, rotation_scheme(self.integrator), self.eps_d, 1,
                                              self.max_correction_speed)
            residual, clamped = max(residual, res), clamped + cl
        return residual, clamped

    def _positions_with_contacts(self, s, h, info):
        """Joint sweeps, contact-joint sweeps and limit sweeps alternate until none corrects anything; with
        shock propagation the contacts get their level-by-level pass after ``shock_propagation`` sweeps.
        A correction that diverges fails the step (see :meth:`_diverging`); one that stalls stops unconverged
        (STALL_PASSES), its error in ``info.residual_pos``."""
        free = self._free()
        bodies, pred = bodies_of(self.model, s, self), pred_of(self)
        start = self._free_joint_error(s, h)
        self.dirty[:] = 1
        cap = max(self.max_iter_pos, self._max_iter_contact)
        res, stall = 0.0, _StallWatch()
        contacts_pushed = False
        it = 0
        for it in range(1, cap + 1):
            joints, clamped = self._joint_position_pass(s, h)
            info.clamped = max(info.clamped, clamped)
            if it == 2 and contacts_pushed:
                start = max(start, joints)      # what the first contact pass opened (see _diverging)
            res = joints
            if self.contacts is not None:
                contact_err, pushed = self.contacts.position_sweep(bodies, pred, free, h, self.eps_d)
                res = max(res, contact_err)
                if it == 1:
                    start = max(start, contact_err)
                    contacts_pushed = pushed
            if self.limits is not None:
                err, pushed = self._limit_position_sweep(s, bodies, pred, free, h)
                res = max(res, err)
                start = max(start, pushed)
                if it == 1:
                    start = max(start, err)
            if self._diverging(joints, start, it):
                raise diverged_error(s.step_count, s.t, h, joints, it, solver="coupled")
            if res <= self.eps_d:
                break
            if self.contacts is not None and stall.stalled(it, joints, contact_err, self.eps_d):
                # the passes repeat, joints and contacts undoing each other: the joints are closed, so that they
                # hold as with the other methods and the contacts keep what they could not correct
                res = self._close_joints_after_contacts(s, h, start, info, contact_err)
                break
            if self.contacts is not None and self._shock is not None and it >= max(self._shock, 1):
                err = self.contacts.position_shock_pass(bodies, pred, free, h, self.eps_d)
                res = self._close_joints_after_contacts(s, h, start, info, err)
                break
        info.iters_pos, info.residual_pos = it, res
        info.converged_pos = res <= self.eps_d

    def _close_joints_after_contacts(self, s, h, start: float, info, contact_err: float) -> float:
        """How the coupled position correction ends when its passes stall or after the contacts' shock pass
        (whose last error is ``contact_err`` [m]): the joints closed (_close_joints), then the contacts' error
        measured on the poses that leaves (the closing may undo some of what they did); without joints nothing
        to close and ``contact_err`` stands. Returns the step's position error [m or rad]."""
        if not self._has_joints:
            return contact_err
        joints = self._close_joints(s, h, start, info)
        return max(joints, self.contacts.position_error(bodies_of(self.model, s, self), pred_of(self), self._free(),
                                                        h))

    def _close_joints(self, s, h, start: float, info) -> float:
        """Joint passes alone until one finds the joints within eps_d, at most max_iter_pos of them: how the
        coupled position correction ends after the contacts' shock pass or a stall, whose impulses the joints
        must not keep (one iterative sweep leaves most of such an opening in the joints). Returns the last
        pass's error [m or rad]; raises CorrectionDiverged under the coupled correction's rule, its reference
        the larger of ``start`` and the first pass's error (a shock pass may open the joints far more than
        the step's first passes did)."""
        joints, clamped = self._joint_position_pass(s, h)
        info.clamped = max(info.clamped, clamped)
        start = max(start, joints)          # what the contacts' last impulses opened
        for it in range(2, self.max_iter_pos + 1):
            if joints <= self.eps_d:
                break
            joints, clamped = self._joint_position_pass(s, h)
            info.clamped = max(info.clamped, clamped)
            if self._diverging(joints, start, it):
                raise diverged_error(s.step_count, s.t, h, joints, it, solver="coupled")
        return joints

    def _close_joint_velocities(self, s) -> None:
        """Joint velocity passes alone until one corrects nothing, at most max_iter_vel of them: how the
        coupled velocity correction ends after the contacts' shock pass."""
        for _ in range(self.max_iter_vel):
            if not self._joint_velocity_pass(s):
                break

    def rehearse_shock_passes(self, s, h) -> None:
        """Run the contacts' level-by-level passes once on the contacts it holds, to compile them (the work of a
        copy, :func:`impulsim.contact.rehearsal.shock_passes_on_a_copy`): a step reaches them only when its
        sweeps do not converge within ``shock_propagation`` sweeps, which made-up contacts never do. Changes
        ``s``'s velocities and the method's predictions: for a copy only. Nothing without contacts or shock
        propagation."""
        if self.contacts is None or self._shock is None:
            return
        self.contacts._collision_shock_pass(s, self.Iinv, 0)      # its level ranges (no collision to resolve)
        self.contacts.velocity_shock_pass(s, self.Iinv)
        self.dirty[:] = 1
        bodies, pred, free = bodies_of(self.model, s, self), pred_of(self), self._free()
        self.contacts.position_shock_pass(bodies, pred, free, h, self.eps_d)
        if self._has_joints:
            self.contacts.position_error(bodies, pred, free, h)     # after the joints' closing

    @property
    def _has_joints(self) -> bool:
        """Whether the step corrects joints (LGS chains or primitives corrected one by one)."""
        return self._lgs is not None or self._iter_prims is not None

    def _free_joint_error(self, s, h) -> float:
        """Largest joint error [m or rad] at the free prediction of every body over h, before any correction
        (predicts into the method's predictions; the passes predict afresh)."""
        m = self.model
        if m.n_prims == 0:
            return 0.0          # no joints (and nothing to compile for a scene of contacts alone)
        self.dirty[:] = 1
        return free_position_error(self._every_prim(), prims_of(m), bodies_of(m, s, self), pred_of(self), h,
                                   rotation_scheme(self.integrator))

    def _every_prim(self) -> np.ndarray:
        """The indices of all the model's primitives (made once)."""
        listed = self.__dict__.get("_all_prims")
        if listed is None:
            listed = self.__dict__["_all_prims"] = np.arange(self.model.n_prims, dtype=np.int64)
        return listed

    def _diverging(self, joints: float, start: float, it: int) -> bool:
        """Whether pass ``it`` of the coupled correction finds the joints open by more than DIVERGENCE_FACTOR
        times what the step started with: the joints' error at the free prediction, the contacts' and
        limits' errors of the first pass (their impulses may open the joints by about that much), the
        joints' error after the first pass when its contacts pushed (a contact's impulse on a thin body turns
        it: a capsule of 4 cm radius pushed 0.5 mm at its surface opened its hinge by 8 mrad, a ragdoll's
        forearm), or the largest free motion of a limit impulse in any pass (limits solved together push with
        the joints' inverse mass, far harder than a first pass), at least eps_d. The rule of the joint
        correction alone (lgs_correct); a converging pass gains, it does not grow tenfold."""
        return it > 1 and joints > DIVERGENCE_FACTOR * max(start, self.eps_d)

    def _velocities_with_contacts(self, s, info):
        """Joint, contact and limit velocity sweeps at t0+h until none corrects anything."""
        cap = max(self.max_iter_vel, self._max_iter_contact)
        if (self.compiled_contact_velocities and self.contacts is not None and self.limits is None
                and not self._has_joints):
            it, res = self.contacts.velocity_sweeps(s, self.Iinv, cap, self._shock)   # contacts alone: one call
            info.iters_vel, info.residual_vel = it, res
            info.converged_vel = res <= self._eps_vc
            return
        it = 0
        res = 0.0
        for it in range(1, cap + 1):
            joints_moved = self._joint_velocity_pass(s)
            res = 0.0
            if self.contacts is not None:
                res = max(res, self.contacts.velocity_sweep(s, self.Iinv))
            if self.limits is not None:
                res = max(res, self._limit_velocity_sweep(s, RESTING))
            if not joints_moved and res <= self._eps_vc:
                break
            if self.contacts is not None and self._shock is not None and it >= max(self._shock, 1):
                self.contacts.velocity_shock_pass(s, self.Iinv)
                self._close_joint_velocities(s)
                break
        info.iters_vel, info.residual_vel = it, res
        info.converged_vel = res <= self._eps_vc
