"""The model's joints as bilateral rows, and the projection of positions and velocities onto them.

Rows come from the Lagrange method's table and kernels (every primitive, in world (v, ω) form) and are
turned into rows in u = (v, _K ω). In the step they are solved with the contacts (prox onto R). After the
step, positions and velocities are projected onto the joints (post-stabilization, Ascher et al. 1994): the
midpoint scheme keeps velocity-level constraints only, so without it positions drift by O(h²) per unit
time. The projection solves G Π = −C (and G Π = −γ for velocities) with the same prox sweeps:
Δq = M⁻¹ W Π is the smallest correction in the mass metric.
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.methods.lagrange.groups import motion_of, table_of
from impulsim.methods.lagrange.rows import compute_rows
from impulsim.methods.lagrange.table import build_table
from impulsim.methods.moreau import bodies, prox
from impulsim.methods.moreau.groups import blocks_of, joint_of, rows_of
from impulsim.methods.moreau.rows import joint_rows, row_velocity

# the inner sweeps stop when every row's linearized error is below this fraction of the bound, so that
# the nonlinear remainder has room within it
INNER_FRACTION = 0.25
# the projections aim at a fraction of eps_d / eps_v: the rows measure a primitive's error as the shared
# diagnostics do only to first order (e.g. 2 sin(θ/2) against θ). The position target is tighter because
# the diagnostics measure velocities at points that move with the position error δ, which shifts that
# measure by about |ω| δ (|ω| up to ~5 rad/s in the joint tests).
TARGET_FRACTION = 0.5
POSITION_FRACTION = 0.1
MAX_RETRIES = 5


class JointRows:
    """Constraint rows of the model's joints, evaluated at a State."""

    def __init__(self, model, alpha=1.0):
        self.model = model
        self.alpha = float(alpha)
        """Over-relaxation α ∈ (0, 2) of the projections' sweeps."""
        self.table = t = build_table(model)
        n = t.n_rows
        self.n_rows = n
        self.Ja, self.Jb = np.zeros((n, 6)), np.zeros((n, 6))
        self.c, self.C, self.Cd = np.zeros(n), np.zeros(n), np.zeros(n)
        self.velocity = t.row_velocity.astype(np.int64)
        self.all_rows = np.arange(n, dtype=np.int64)
        self.holonomic = np.nonzero(t.row_velocity == 0)[0].astype(np.int64)
        self.du = np.zeros((model.n_bodies, 6))
        self.gamma = np.zeros(n)
        self.block_first = t.row_start[:-1].copy()
        self.holonomic_block = np.isin(np.arange(t.n_blocks), np.unique(t.row_block[self.holonomic]))
        self.stats = np.zeros(5)


    def evaluate(self, s) -> None:
        """J, C, Ċ of every row at state s."""
        if not self.n_rows:
            return
        compute_rows(table_of(self.table), motion_of(s), (self.Ja, self.Jb, self.c, self.C, self.Cd))

    def fill(self, sel, use_value, e_holonomic, s, u, row0, blk0, buf) -> int:
        """Write the rows ``sel`` as bilateral blocks into ``buf`` from row0/blk0 (see rows.joint_rows)."""
        return joint_rows(sel, joint_of(self), use_value, e_holonomic, s.body_quat, s.body_vel, s.body_omega, u,
                          row0, blk0, rows_of(buf), blocks_of(buf))

    def _solve_bilateral(self, n, minv, buf, u, tol, max_iter):
        prox.gauss_seidel_r(n, 1.0, self.alpha, buf.blk_start, buf.blk_kind, buf.blk_law, buf.blk_par, buf.row_a,
                            buf.row_b, buf.row_wa, buf.row_wb, minv, buf.row_r)
        buf.lam[:n] = 0.0
        prox.solve(0, n, n, blocks_of(buf), rows_of(buf), buf.row_r, minv, 0.0, np.inf, INNER_FRACTION * tol,
                   max_iter, buf.lam, buf.lam_new, u, self.stats)

    def _block_norms(self, rows):
        return np.sqrt(np.add.reduceat(rows * rows, self.block_first)) if self.n_rows else np.zeros(0)

    def position_error(self) -> float:
        """Largest norm of a holonomic block's C at the last evaluation [m or rad]."""
        norms = self._block_norms(self.C)[self.holonomic_block]
        return float(norms.max()) if len(norms) else 0.0

    def velocity_error(self, buf, u, n_extra=0) -> float:
        """Largest norm of a block's γ = W u + χ, rows as filled in ``buf`` in table order, then the largest
        |γ| of the ``n_extra`` single rows that follow them [m/s or rad/s]."""
        n = self.n_rows
        if len(self.gamma) != n + n_extra:
            self.gamma = np.zeros(n + n_extra)
        row_velocities(n + n_extra, buf.row_a, buf.row_b, buf.row_wa, buf.row_wb, buf.row_chi, u, self.gamma)
        norms = self._block_norms(self.gamma[:n])
        worst = float(norms.max()) if len(norms) else 0.0
        return max(worst, float(np.abs(self.gamma[n:]).max())) if n_extra else worst

    def project_positions(self, s, minv, buf, eps_d, max_projections, max_iter) -> tuple[int, float]:
        """Gauss–Newton steps q ← q + M⁻¹ W Π with Π solving C + Wᵀ M⁻¹ W Π = 0, until every block's |C|
        is ≤ POSITION_FRACTION · eps_d. Returns (steps, final largest block |C|)."""
        n = len(self.holonomic)
        self.evaluate(s)
        err = self.position_error()
        steps = 0
        while err > POSITION_FRACTION * eps_d and steps < max_projections:
            self.du[:] = 0.0
            self.fill(self.holonomic, 1, 0.0, s, self.du, 0, 0, buf)
            self._solve_bilateral(n, minv, buf, self.du, POSITION_FRACTION * eps_d, max_iter)
            displace(self.model.body_static, self.du, s.body_pos, s.body_quat)
            steps += 1
            self.evaluate(s)
            err = self.position_error()
        return steps, err

    def project_velocities(self, s, minv, buf, u, eps_v, max_iter, extras=None) -> float:
        """u ← u + M⁻¹ W Π so that every joint row's velocity error is ≤ eps_v; returns the final
        largest |γ| [m/s or rad/s]. Rows are those of the last :meth:`evaluate` (the end positions).
        ``extras`` (Wagner's constraints, :class:`.wagner.MoreauExtras`) add their end-velocity rows at
        state s, projected together with the joints."""
        n_extra = 0 if extras is None else extras.n_rows
        n = self.n_rows + n_extra
        bodies.generalized_velocities(s.body_quat, s.body_vel, s.body_omega, u)
        self.fill(self.all_rows, 0, 0.0, s, u, 0, 0, buf)
        if n_extra:
            extras.fill_end(s, u, self.n_rows, self.n_rows, buf)
        err = self.velocity_error(buf, u, n_extra)
        tries = 0
        # the sweeps stop on the rows' errors seen during the last sweep; over-relaxed sweeps can end a
        # little above that, so the measured error decides whether to sweep again
        while err > TARGET_FRACTION * eps_v and tries < MAX_RETRIES:
            self._solve_bilateral(n, minv, buf, u, TARGET_FRACTION * eps_v, max_iter)
            err = self.velocity_error(buf, u, n_extra)
            tries += 1
        if tries:
            bodies.world_velocities(s.body_quat, u, s.body_vel, s.body_omega)
        return err


@njit(cache=True)
def row_velocities(n, row_a, row_b, row_wa, row_wb, row_chi, u, out):
    """γ_i of rows 0 .. n−1 into out."""
    for i in range(n):
        out[i] = row_velocity(i, row_a, row_b, row_wa, row_wb, row_chi, u)


@njit(cache=True)
def displace(body_static, dq, body_pos, body_quat):
    """r += Δr, p ← p ⊕ Δθ_K for every movable body (Δq = (Δr, Δθ_K) per body)."""
    for k in range(body_pos.shape[0]):
        if body_static[k]:
            continue
        for i in range(3):
            body_pos[k, i] += dq[k, i]
        bodies.rotate_by(body_quat, k, (dq[k, 3], dq[k, 4], dq[k, 5]))
