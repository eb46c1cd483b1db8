"""The impulse-based step (Bender Fig. 3.1): loads, joint correction, free step, velocity correction."""
from __future__ import annotations

import numpy as np

from impulsim.dynamics.forces import compute_loads
from impulsim.dynamics.integrate import Integrator, free_step_all
from impulsim.methods.base import Method, StepInfo, StageTimer
from impulsim.methods.impulse.rows import world_inverse_inertia, compute_rows
from impulsim.methods.impulse.iterative import correct_positions, correct_velocities


class ImpulseMethod(Method):
    """Impulse-based joint simulation.

    Supports every joint kind of the model (the six basic constraints and all combined joints),
    velocity-only joints, motors, PID servos and springs.

    Options
    -------
    solver : "iterative" (Bender 3.3.1; one impulse per constraint per sweep).
    eps_d : position tolerance [m, rad] of the joint correction (default 1e-6).
    eps_v : velocity tolerance [m/s, rad/s] of the velocity correction (default 1e-6).
    max_iter_pos, max_iter_vel : sweep caps (anytime behaviour); the residual is reported.
    max_correction_speed : per-step cap on the correction a primitive may request [m/s, rad/s], so a
        broken model reassembles over several steps instead of exploding (default 10).
    integrator : "rk4" (default), "euler" or "rk45" (adaptive Cash–Karp) for the rotation.
    velocity_correction : False skips the velocity correction (faster, less accurate).
    """

    name = "impulse"

    def __init__(self, model, *, solver: str = "iterative", eps_d: float = 1e-6, eps_v: float = 1e-6,
                 max_iter_pos: int = 10000, max_iter_vel: int = 10000, max_correction_speed: float = 10.0,
                 integrator: str = "rk4", velocity_correction: bool = True):
        super().__init__(model)
        if solver != "iterative":
            raise ValueError(f"unknown impulse solver {solver!r} (available: 'iterative')")
        for name, v in (("eps_d", eps_d), ("eps_v", eps_v), ("max_correction_speed", max_correction_speed)):
            if not (v > 0 and np.isfinite(v)):
                raise ValueError(f"{name} must be positive and finite, got {v!r}")
        for name, v in (("max_iter_pos", max_iter_pos), ("max_iter_vel", max_iter_vel)):
            if int(v) < 1:
                raise ValueError(f"{name} must be at least 1, got {v!r}")
        try:
            self.integrator = Integrator[integrator.upper()]
        except KeyError:
            raise ValueError(f"unknown integrator {integrator!r} (use rk4, euler or rk45)") from None
        self.solver = solver
        self.eps_d, self.eps_v = float(eps_d), float(eps_v)
        self.max_iter_pos, self.max_iter_vel = int(max_iter_pos), int(max_iter_vel)
        self.max_correction_speed = float(max_correction_speed)
        self.velocity_correction = bool(velocity_correction)
        self._alloc(model)

    def _alloc(self, m):
        n, p = m.n_bodies, m.n_prims
        self.acc = np.zeros((n, 3))
        self.tau = np.zeros((n, 3))
        self.Iinv = np.zeros((n, 3, 3))
        self.pred_pos = np.zeros((n, 3))
        self.pred_quat = np.zeros((n, 4))
        self.dirty = np.ones(n, np.int8)
        self.row_ra = np.zeros((p, 3))
        self.row_rb = np.zeros((p, 3))
        self.row_P = np.zeros((p, 3, 3))
        self.row_dim = np.zeros(p, np.int64)
        self.row_Minv = np.zeros((p, 3, 3))
        self.step_tol = np.zeros(p)

    def _step(self, s, h, info: StepInfo):
        m = self.model
        timer = StageTimer(info.timings)
        compute_loads(m, s, h, self.acc, self.tau)
        timer.lap("forces")
        self._rows(s)
        timer.lap("rows")
        self._correct_positions(s, h, info)
        timer.lap("joint_correction")
        free_step_all(s.body_pos, s.body_quat, s.body_vel, s.body_omega, self.acc, self.tau, m.body_inertia,
                      m.body_inv_inertia, m.body_inv_mass, m.body_static, h, int(self.integrator))
        timer.lap("free_step")
        if self.velocity_correction:
            self._rows(s)
            self._correct_velocities(s, info)
        timer.lap("velocity_correction")
        s.t += h
        s.step_count += 1

    def _rows(self, s):
        m = self.model
        world_inverse_inertia(s.body_quat, m.body_inv_inertia, self.Iinv)
        compute_rows(m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_anchor_a, m.prim_anchor_b,
                     m.prim_axis_a, m.prim_axis_b, s.body_pos, s.body_quat, m.body_inv_mass, self.Iinv,
                     self.row_ra, self.row_rb, self.row_P, self.row_dim, self.row_Minv)

    def _correct_positions(self, s, h, info):
        m = self.model
        sweeps, residual, clamped = correct_positions(
            m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_anchor_a, m.prim_anchor_b, m.prim_axis_a,
            m.prim_axis_b, m.prim_target, m.prim_qrel, s.body_pos, s.body_quat, self.acc, self.tau,
            m.body_inertia, m.body_inv_inertia, m.body_inv_mass, m.body_static, self.Iinv, self.row_ra,
            self.row_rb, self.row_P, self.row_dim, self.row_Minv, h, int(self.integrator), self.eps_d,
            self.max_iter_pos, self.max_correction_speed, s.body_vel, s.body_omega, self.pred_pos,
            self.pred_quat, self.dirty, self.step_tol)
        info.iters_pos, info.residual_pos, info.clamped = sweeps, residual, clamped
        info.converged_pos = residual <= self.eps_d

    def _correct_velocities(self, s, info):
        m = self.model
        sweeps, residual = correct_velocities(
            m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_vel_target, m.body_inv_mass, self.Iinv,
            self.row_ra, self.row_rb, self.row_P, self.row_dim, self.row_Minv, self.eps_v, self.max_iter_vel,
            s.body_vel, s.body_omega)
        info.iters_vel, info.residual_vel = sweeps, residual
        info.converged_vel = residual <= self.eps_v
