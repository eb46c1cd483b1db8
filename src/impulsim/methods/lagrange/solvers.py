"""The four λ solvers of Wagner's Table 6.2 over one interface: Direct, DirectSVD, Baraff, BaraffSVD.

``solver.solve(ev)`` reads the rows (J, c′) and generalized forces of an :class:`Evaluator` and writes its
accelerations ``acc6`` and multipliers ``lam``. A singular system raises :class:`SingularSystem` with the
row that exposed it (the SVD variants never do). The Baraff solvers also have ``derivative``, which
evaluates the whole right-hand side y' = f(t, y) in one kernel (:mod:`.fused`); the evaluator uses it
when it exists.
"""
from __future__ import annotations

import numpy as np

from impulsim.methods.lagrange import baraff, dense
from impulsim.methods.lagrange.dense import SingularSystem
from impulsim.methods.lagrange.evaluate import state_derivative, unpack
from impulsim.methods.lagrange.forest import build_forest
from impulsim.methods.lagrange.fused import baraff_derivative, baraff_runge_kutta_step
from impulsim.methods.lagrange.groups import (factor_of, forest_of, mass_of, motion_of, rk_work_of, system_of,
                                              table_of, work_of)
from impulsim.methods.lagrange.system import accelerations, mobility, row_rates


class DenseSolver:
    """Assemble A = J M⁻¹ Jᵀ and solve A λ = −(J M⁻¹ F + c′) by Cholesky (or SVD)."""

    def __init__(self, table, model, svd: bool, svd_tol: float):
        self.svd, self.svd_tol = svd, svd_tol
        self.start, self.rows, self.sides = dense.body_row_lists(table.row_a, table.row_b, model.body_inv_mass)
        n = table.n_rows
        self.A = np.zeros((n, n))
        self.rhs = np.zeros(n)
        self.rank = n

    def solve(self, ev) -> None:
        t = ev.table
        mobility(t.row_a, t.row_b, ev.row_Ja, ev.row_Jb, ev.model.body_inv_mass, ev.Iw_inv, ev.Wa, ev.Wb)
        dense.assemble(self.start, self.rows, self.sides, ev.row_Ja, ev.row_Jb, ev.Wa, ev.Wb, self.A)
        row_rates(t.row_a, t.row_b, ev.row_Ja, ev.row_Jb, ev.a0, self.rhs)
        self.rhs += ev.cp
        np.negative(self.rhs, out=self.rhs)
        if self.svd:
            ev.lam[:], self.rank = dense.solve_svd(self.A, self.rhs, self.svd_tol)
        else:
            ev.lam[:] = dense.solve_cholesky(self.A, self.rhs)
        accelerations(ev.a0, ev.lam, t.row_a, t.row_b, ev.Wa, ev.Wb, ev.acc6)


class BaraffSolver:
    """Baraff's sparse factorization of the primary forest, then the k secondary rows (see baraff.py)."""

    def __init__(self, table, model, svd: bool, svd_tol: float):
        self.svd, self.svd_tol = svd, svd_tol
        f = self.forest = build_forest(table, model.body_inv_mass, ground_links_secondary=svd)
        self.Q = np.zeros(f.node_d[-1])
        self.Y = np.zeros(f.node_h[-1])
        self.node_form = np.zeros(len(f.node_size), np.int8)
        self.x = np.zeros(f.node_x[-1])
        s = max(6, int(f.node_size.max()) if len(f.node_size) else 6)
        self.work = np.zeros(2 * s * s)
        k = len(f.secondary_rows)
        self.resp_acc = np.zeros((k, model.n_bodies, 6))
        self.resp_lam = np.zeros((k, table.n_rows))
        self.K = np.zeros((k, k))
        self.rank = None
        self._step_args = None

    @property
    def n_secondary(self) -> int:
        return len(self.forest.secondary_rows)

    def solve(self, ev) -> None:
        """v̇ and λ from the rows and forces already in ``ev`` (stage by stage)."""
        f, t = self.forest, ev.table
        baraff.load_rhs(f.node_kind, f.node_ref, f.node_x, f.element_row_start, ev.force, ev.cp, self.x)
        bad = baraff.factor(forest_of(f), system_of(t, ev), self.svd, True, factor_of(self))
        if bad >= 0:
            raise SingularSystem(self._first_row(bad))
        baraff.back_substitute(f.order, f.node_kind, f.node_size, f.node_parent, f.node_x, f.node_d, f.node_h,
                               self.node_form, self.Q, self.Y, self.work, self.x)
        ev.acc6[:] = 0.0
        ev.lam[:] = 0.0
        baraff.unload_solution(f.node_kind, f.node_ref, f.node_x, f.element_row_start, self.x, ev.acc6, ev.lam)
        if self.n_secondary:
            self._secondary(ev)

    def derivative(self, ev, acc, tau, y, out) -> None:
        """out = f(t, y) in one kernel (:mod:`.fused`), then the secondary rows; rows and forces of the
        stage are left in ``ev`` as :meth:`solve` leaves them."""
        f, t, m = self.forest, ev.table, ev.model
        bad = baraff_derivative(mass_of(m), table_of(t), forest_of(f), acc, tau, ev.alpha, ev.beta, self.svd, y,
                                work_of(ev, self), ev.acc6, ev.lam, out)
        if bad >= 0:
            raise SingularSystem(self._first_row(bad))
        if self.n_secondary:
            self._secondary(ev)
            n = m.n_bodies
            d_pos, d_quat, d_vel, d_omega = unpack(out, n)
            _, quat, vel, omega = unpack(y, n)
            state_derivative(m.body_static, quat, vel, omega, ev.acc6, d_pos, d_quat, d_vel, d_omega)

    def runge_kutta_step(self, ev, rk, state, h, lam_start) -> None:
        """Advance the motion of ``state`` by h with the fixed-step integrator ``rk`` in one kernel
        (:func:`.fused.baraff_runge_kutta_step`); only for models without secondary rows (see
        :attr:`.Evaluator.whole_step_in_one_kernel`). Rows and forces of the last stage are left in ``ev``."""
        self.prepare_step(ev, rk)
        bad = baraff_runge_kutta_step(rk.a, rk.b, h, ev.alpha, ev.beta, motion_of(state), *self._step_args,
                                      lam_start)
        if bad >= 0:
            raise SingularSystem(self._first_row(bad))
        rk.count_one_step()

    def prepare_step(self, ev, rk) -> None:
        """Gather the buffers the one-kernel step works on (they never change), once; done when the method
        is made, so that a fresh method's memory has the same parts as one that has stepped."""
        if self._step_args is None:
            f, t, m = self.forest, ev.table, ev.model
            self._step_args = (mass_of(m), table_of(t), forest_of(f), ev.acc_held, ev.tau_held, self.svd,
                                work_of(ev, self), ev.acc6, ev.lam, rk_work_of(rk))

    def _first_row(self, node):
        f = self.forest
        if f.node_kind[node] == baraff.ELEMENT:
            return int(f.element_row_start[f.node_ref[node]])
        return 0

    def _secondary(self, ev):
        """λ_S from K λ_S = −(J_S v̇⁰ + c′_S), then v̇ = v̇⁰ + Σ Δv̇_s λ_s and λ_P += Σ Δλ_P,s λ_s."""
        f, t = self.forest, ev.table
        S = f.secondary_rows
        baraff.secondary_responses(S, f.body_node, t.row_a, t.row_b, ev.row_Ja, ev.row_Jb, forest_of(f),
                                   factor_of(self), self.resp_acc, self.resp_lam, self.K)
        rates = np.einsum("ri,ri->r", ev.row_Ja[S], ev.acc6[t.row_a[S]]) + \
            np.einsum("ri,ri->r", ev.row_Jb[S], ev.acc6[t.row_b[S]])
        rhs = -(rates + ev.cp[S])
        if self.svd:
            lam_s, self.rank = dense.solve_svd(self.K, rhs, self.svd_tol)
        else:
            try:
                lam_s = dense.solve_cholesky(self.K, rhs)
            except SingularSystem as exc:
                raise SingularSystem(int(S[exc.row])) from None
        ev.acc6 += np.tensordot(lam_s, self.resp_acc, axes=1)
        ev.lam += lam_s @ self.resp_lam
        ev.lam[S] = lam_s


SOLVERS = {"dense": (DenseSolver, False), "dense_svd": (DenseSolver, True),
           "baraff": (BaraffSolver, False), "baraff_svd": (BaraffSolver, True)}


def make_solver(name, table, model, svd_tol):
    try:
        cls, svd = SOLVERS[name]
    except KeyError:
        raise ValueError(f"unknown Lagrange solver {name!r} (use {', '.join(SOLVERS)})") from None
    return cls(table, model, svd, svd_tol)
