"""One evaluation of the constrained equations of motion: the state's derivative y' = f(t, y).

Stages: world inertia → loads → generalized forces → constraint rows → stabilized terms c′ → λ solve →
accelerations → derivative of the packed state. The loads that the model holds over a step (user forces,
motors, servos) come from ``begin_step``; springs and the extra force elements depend on the state and
are evaluated at every stage, so the integrator keeps its order on them.
"""
from __future__ import annotations

import time

import numpy as np

from impulsim.dynamics.forces import add_springs, compute_loads
from impulsim.kernel import njit
from impulsim.methods.lagrange.forces import element_loads
from impulsim.methods.lagrange.groups import rows_of, table_of
from impulsim.methods.lagrange.rows import compute_rows
from impulsim.methods.lagrange.system import generalized_forces, stabilized_terms, world_inertia
from impulsim.methods.lagrange.table import time_dependent_blocks


@njit(cache=True, _nrt=False)     # allocation-free; no reference counts (see baraff.KERNEL)
def state_derivative(body_static, body_quat, body_vel, body_omega, acc6,
                     # outputs
                     d_pos, d_quat, d_vel, d_omega):
    """ṡ = u, q̇ = ½ (0, ω) ⊗ q (world ω), u̇, ω̇ from acc6; static bodies do not move."""
    for k in range(body_quat.shape[0]):
        if body_static[k]:
            d_pos[k] = 0.0
            d_quat[k] = 0.0
            d_vel[k] = 0.0
            d_omega[k] = 0.0
            continue
        w = body_omega[k]
        q = body_quat[k]
        for i in range(3):      # element by element: an array copy would allocate (see baraff.KERNEL)
            d_pos[k, i] = body_vel[k, i]
        d_quat[k, 0] = 0.5 * (-w[0] * q[1] - w[1] * q[2] - w[2] * q[3])
        d_quat[k, 1] = 0.5 * (w[0] * q[0] + w[1] * q[3] - w[2] * q[2])
        d_quat[k, 2] = 0.5 * (w[1] * q[0] + w[2] * q[1] - w[0] * q[3])
        d_quat[k, 3] = 0.5 * (w[2] * q[0] + w[0] * q[2] - w[1] * q[1])
        for i in range(3):
            d_vel[k, i] = acc6[k, i]
            d_omega[k, i] = acc6[k, 3 + i]


def unpack(y, n):
    """Views (pos, quat, vel, omega) into the packed state vector y of n bodies."""
    return (y[:3 * n].reshape(n, 3), y[3 * n:7 * n].reshape(n, 4), y[7 * n:10 * n].reshape(n, 3),
            y[10 * n:13 * n].reshape(n, 3))


def pack(state, out=None) -> np.ndarray:
    """The packed state vector (pos, quat, vel, ω) of ``state``, into ``out`` when given [13 n]."""
    if out is None:
        out = np.empty(13 * state.body_pos.shape[0])
    pos, quat, vel, omega = unpack(out, state.body_pos.shape[0])
    pos[...], quat[...], vel[...], omega[...] = state.body_pos, state.body_quat, state.body_vel, state.body_omega
    return out


class Evaluator:
    """Buffers and stages of one evaluation; ``solver`` is one of :mod:`solvers`."""

    def __init__(self, model, table, solver, extras, elements, alpha, beta):
        self.model, self.table, self.solver = model, table, solver
        self.extras, self.elements = list(extras), list(elements)
        self.alpha, self.beta = float(alpha), float(beta)
        n, r = model.n_bodies, table.n_rows
        self.Iw = np.zeros((n, 3, 3))
        self.Iw_inv = np.zeros((n, 3, 3))
        self.acc_held = np.zeros((n, 3))
        self.tau_held = np.zeros((n, 3))
        self.acc = np.zeros((n, 3))
        self.tau = np.zeros((n, 3))
        self.f_extra = np.zeros((n, 3))
        self.t_extra = np.zeros((n, 3))
        self.force = np.zeros((n, 6))
        self.a0 = np.zeros((n, 6))
        self.acc6 = np.zeros((n, 6))
        self.row_Ja = np.zeros((r, 6))
        self.row_Jb = np.zeros((r, 6))
        self.row_c = np.zeros(r)
        self.row_C = np.zeros(r)
        self.row_Cd = np.zeros(r)
        self.cp = np.zeros(r)
        self.lam = np.zeros(r)
        self.Wa = np.zeros((r, 6))
        self.Wb = np.zeros((r, 6))
        self.quat_unit = np.zeros((n, 4))
        self.one_kernel = hasattr(solver, "derivative")
        """The solver evaluates f in one kernel (Baraff); otherwise stage by stage (dense)."""
        self.step_kernel = True
        """Take whole fixed steps in one kernel where :attr:`whole_step_in_one_kernel` allows."""
        self.timed = {"evaluate": 0.0} if self.one_kernel else {"forces": 0.0, "rows": 0.0, "solve": 0.0}
        self._timed_blocks = time_dependent_blocks(table)
        self._extra_of_block = {int(b): self.extras[table.element[b] - self._n_joint_elements()]
                                for b in self._timed_blocks}
        self._springs = model.n_springs > 0

    def _n_joint_elements(self):
        return self.table.n_elements - len(self.extras)

    # loads ----------------------------------------------------------------------------------------
    def begin_step(self, state, h) -> None:
        """Loads held over the step (user forces, motors, servos: their memory advances here)."""
        compute_loads(self.model, state, h, self.acc_held, self.tau_held)
        if self._springs:       # springs are re-evaluated at every stage: keep only the held part
            self._spring_loads(state.body_pos, state.body_quat, state.body_vel, state.body_omega)
            self.acc_held -= self.f_extra * self.model.body_inv_mass[:, None]
            self.tau_held -= self.t_extra
        for extra in self.extras:
            extra.begin_step(self.model, state, h)

    def _spring_loads(self, pos, quat, vel, omega):
        m = self.model
        self.f_extra[...] = 0.0
        self.t_extra[...] = 0.0
        add_springs(m.spring_body_a, m.spring_body_b, m.spring_anchor_a, m.spring_anchor_b, m.spring_stiffness,
                    m.spring_damping, m.spring_rest_length, pos, quat, vel, omega, m.body_inv_mass,
                    self.f_extra, self.t_extra)

    def _stage_loads(self, t, pos, quat, vel, omega):
        self.acc[...] = self.acc_held
        self.tau[...] = self.tau_held
        inv_mass = self.model.body_inv_mass[:, None]
        if self._springs:
            self._spring_loads(pos, quat, vel, omega)
            self.acc += self.f_extra * inv_mass
            self.tau += self.t_extra
        if self.elements:
            element_loads(self.model, self.elements, t, pos, quat, vel, omega, self.f_extra, self.t_extra)
            self.acc += self.f_extra * inv_mass
            self.tau += self.t_extra

    # stages ---------------------------------------------------------------------------------------
    def rows(self, t, pos, quat, vel, omega) -> None:
        """J, c, C, Ċ of every row at this state and time."""
        tab = self.table
        self._refresh_functions(t)
        compute_rows(table_of(tab), (pos, quat, vel, omega), rows_of(self))

    def _refresh_functions(self, t):
        """f(t), ḟ(t), f̈(t) of the time-dependent extra constraints into the table."""
        tab = self.table
        for b in self._timed_blocks:
            f, fd, fdd = self._extra_of_block[int(b)].function(t)
            tab.func[b, 0], tab.func[b, 1], tab.func[b, 2] = f, fd, fdd

    def accelerations(self, t, pos, quat, vel, omega) -> None:
        """acc6 (v̇ per body) and lam (λ per row) at this state."""
        m = self.model
        t0 = time.perf_counter()
        world_inertia(quat, m.body_inertia, m.body_inv_inertia, m.body_inv_mass, self.Iw, self.Iw_inv)
        self._stage_loads(t, pos, quat, vel, omega)
        generalized_forces(m.body_inv_mass, omega, self.acc, self.tau, self.Iw, self.Iw_inv, self.force, self.a0)
        t1 = time.perf_counter()
        self.rows(t, pos, quat, vel, omega)
        stabilized_terms(self.row_c, self.row_C, self.row_Cd, self.table.row_velocity, self.alpha, self.beta,
                         self.cp)
        t2 = time.perf_counter()
        self.solver.solve(self)
        t3 = time.perf_counter()
        for key, dt in (("forces", t1 - t0), ("rows", t2 - t1), ("solve", t3 - t2)):
            self.timed[key] = self.timed.get(key, 0.0) + dt

    def derivative(self, t, y, out) -> None:
        """out = f(t, y) for the packed state y."""
        if self.one_kernel:
            self._derivative_in_one_kernel(t, y, out)
            return
        n = self.model.n_bodies
        pos, quat, vel, omega = unpack(y, n)
        unit = quat / np.linalg.norm(quat, axis=1)[:, None]     # stage values drift off unit length
        self.accelerations(t, pos, unit, vel, omega)
        d_pos, d_quat, d_vel, d_omega = unpack(out, n)
        state_derivative(self.model.body_static, quat, vel, omega, self.acc6, d_pos, d_quat, d_vel, d_omega)

    @property
    def whole_step_in_one_kernel(self) -> bool:
        """The solver can take a whole fixed-step Runge–Kutta step in one kernel: nothing in f needs Python
        between the stages (no springs, force elements, functions of time or secondary rows)."""
        return (self.one_kernel and self.step_kernel and hasattr(self.solver, "runge_kutta_step")
                and self.solver.n_secondary == 0 and not self._springs and not self.elements
                and len(self._timed_blocks) == 0)

    def runge_kutta_step(self, integrator, state, h, lam_start) -> None:
        """Advance the motion of ``state`` by h with the fixed-step ``integrator`` in one kernel (when
        :attr:`whole_step_in_one_kernel`; loads from :meth:`begin_step`), with λ of the first stage in
        ``lam_start``."""
        t0 = time.perf_counter()
        self.solver.runge_kutta_step(self, integrator, state, h, lam_start)
        self.timed["evaluate"] += time.perf_counter() - t0

    def _derivative_in_one_kernel(self, t, y, out) -> None:
        """out = f(t, y) by the solver's single kernel; only the loads that change within the step
        (springs, force elements) and the extras' functions of time are computed here first."""
        t0 = time.perf_counter()
        self._refresh_functions(t)
        acc, tau = self.acc_held, self.tau_held
        if self._springs or self.elements:
            pos, quat, vel, omega = unpack(y, self.model.n_bodies)
            unit = quat / np.linalg.norm(quat, axis=1)[:, None]
            self._stage_loads(t, pos, unit, vel, omega)
            acc, tau = self.acc, self.tau
        self.solver.derivative(self, acc, tau, y, out)
        self.timed["evaluate"] += time.perf_counter() - t0
