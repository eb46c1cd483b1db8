"""The impulse step with collisions and resting contacts (Bender Fig. 5.2).

forces → detect → classify → resolve collisions (each iteration followed by one joint velocity pass)
→ joint + contact-joint position correction → free step → joint + contact velocity correction.
"""
from __future__ import annotations

import numpy as np

from impulsim.contact import ContactStage, ContactOptions
from impulsim.dynamics.forces import compute_loads
from impulsim.dynamics.integrate import free_step_all
from impulsim.methods.base import StepInfo, StageTimer
from impulsim.methods.impulse.iterative import correct_positions, correct_velocities
from impulsim.methods.impulse.method import ImpulseMethod

CONTACT_OPTION_NAMES = ("eps_c", "eps_vc", "restitution", "restitution_rule", "friction_rule",
                        "max_iter_collision", "shock_propagation", "max_iter_contact", "capacity", "warm_start")


class ContactImpulseMethod(ImpulseMethod):
    """The impulse method with collision detection, collisions and resting contacts with friction.

    Takes the joint options of :class:`ImpulseMethod` plus the contact options of
    :class:`impulsim.contact.ContactOptions` (eps_c, eps_vc, restitution, restitution_rule,
    friction_rule, max_iter_collision, shock_propagation, max_iter_contact).
    """

    name = "impulse"

    def __init__(self, model, **options):
        contact_opts = {k: options.pop(k) for k in CONTACT_OPTION_NAMES if k in options}
        if options.get("solver", "iterative") != "iterative":
            raise ValueError(f"contacts are coupled with the iterative joint solver only; "
                             f"solver={options['solver']!r} is not supported with contacts yet")
        super().__init__(model, **options)
        self.contacts = ContactStage(model, ContactOptions(**contact_opts))

    def _free(self):
        m = self.model
        return (self.acc, self.tau, m.body_inertia, m.body_inv_inertia, m.body_inv_mass, m.body_static,
                int(self.integrator))

    def _step(self, s, h, info: StepInfo):
        m = self.model
        timer = StageTimer(info.timings)
        compute_loads(m, s, h, self.acc, self.tau)
        timer.lap("forces")
        self._rows(s)
        info.n_contacts = self.contacts.begin(s, self.Iinv)
        info.n_collisions = self.contacts.n_collisions
        timer.lap("detect")
        self.contacts.resolve_collisions(s, self.Iinv, lambda: self._joint_velocity_pass(s))
        timer.lap("collisions")
        self.contacts.begin_positions(s, self.Iinv, h)
        self._positions_with_contacts(s, h, info)
        self.contacts.end_positions()
        timer.lap("joint_correction")
        free_step_all(s.body_pos, s.body_quat, s.body_vel, s.body_omega, self.acc, self.tau, m.body_inertia,
                      m.body_inv_inertia, m.body_inv_mass, m.body_static, h, int(self.integrator))
        timer.lap("free_step")
        self._rows(s)
        self.contacts.begin_velocities(s, self.Iinv)
        self._velocities_with_contacts(s, info)
        self.contacts.end_velocities()
        timer.lap("velocity_correction")
        s.t += h
        s.step_count += 1

    def _joint_velocity_pass(self, s) -> bool:
        m = self.model
        if m.n_prims == 0:
            return False
        _, residual = correct_velocities(
            m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_vel_target, m.body_inv_mass, self.Iinv,
            self.row_ra, self.row_rb, self.row_P, self.row_dim, self.row_Minv, self.eps_v, 1,
            s.body_vel, s.body_omega)
        return residual > self.eps_v

    def _joint_position_pass(self, s, h):
        m = self.model
        if m.n_prims == 0:
            return 0.0, 0
        _, residual, clamped = correct_positions(
            m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_anchor_a, m.prim_anchor_b, m.prim_axis_a,
            m.prim_axis_b, m.prim_target, m.prim_qrel, s.body_pos, s.body_quat, self.acc, self.tau,
            m.body_inertia, m.body_inv_inertia, m.body_inv_mass, m.body_static, self.Iinv, self.row_ra,
            self.row_rb, self.row_P, self.row_dim, self.row_Minv, h, int(self.integrator), self.eps_d,
            1, self.max_correction_speed, s.body_vel, s.body_omega, self.pred_pos,
            self.pred_quat, self.dirty, self.step_tol)
        return residual, clamped

    def _positions_with_contacts(self, s, h, info):
        """Joint sweeps and contact-joint sweeps alternate until neither corrects anything."""
        self.dirty[:] = 1
        free = self._free()
        cap = max(self.max_iter_pos, self.contacts.opt.max_iter_contact)
        jres = cres = 0.0
        it = 0
        for it in range(1, cap + 1):
            jres, clamped = self._joint_position_pass(s, h)
            info.clamped = max(info.clamped, clamped)
            cres, moved = self.contacts.position_sweep(s, self.Iinv, self.pred_pos, self.pred_quat, self.dirty,
                                                       free, h, self.eps_d)
            if jres <= self.eps_d and cres <= self.eps_d:
                break
        info.iters_pos, info.residual_pos = it, max(jres, cres)
        info.converged_pos = info.residual_pos <= self.eps_d

    def _velocities_with_contacts(self, s, info):
        cap = max(self.max_iter_vel, self.contacts.opt.max_iter_contact)
        it = 0
        jres = cres = 0.0
        for it in range(1, cap + 1):
            joints_moved = self._joint_velocity_pass(s)
            cres = self.contacts.velocity_sweep(s, self.Iinv)
            if not joints_moved and cres <= self.contacts.opt.eps_vc:
                break
        info.iters_vel, info.residual_vel = it, cres
        info.converged_vel = cres <= self.contacts.opt.eps_vc
