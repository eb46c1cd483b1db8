"""The LGS joint solver (Bender 3.3.2) over the chains of a model: structure, workspace and the stages.

The matrix M of all basic constraints of a chain is built and factorized once per time instant and reused:
the factorization at t0+h serves the velocity correction at t0+h and every iteration of the next step's
joint correction (the poses do not change in between; this is checked, not assumed). Velocity-only joints
(mouse dragging, manipulators; Bender 3.2.6) are not in M: the velocity correction first satisfies them
by sweeps, then solves M for the joints, so a dragged body moves only as far as its joints allow.

Closed loops (Bender 3.3.2.3) are found on the connection graph (``graph``) and handled without changes
to the joints, in one of two ways:

* ``loops="drop"``: the loop-closing joints stay in M, eliminated last; rows that turn out linearly
  dependent during the factorization are dropped (zero impulse). This is the automatic counterpart of the
  thesis's hand-modified joints.
* ``loops="cut"``: the loop-closing joints leave M and are corrected one impulse at a time after each
  solve, as in the iterative method (the thesis's hybrid).
"""
from __future__ import annotations

import numpy as np

from impulsim.dynamics.integrate import rotation_scheme
from impulsim.errors import SimulationError
from impulsim.methods.impulse.graph import Chain, joint_prims
from impulsim.model.kinds import Prim
from impulsim.methods.impulse.lgs_structure import analyse
from impulsim.methods.impulse.lgs_kernels import ball_lin_rows, build_and_factorize
from impulsim.methods.impulse.lgs_correct import correct_positions_lgs, correct_velocities_lgs, DIVERGENCE_FACTOR
from impulsim.methods.impulse.lgs_step import lgs_corrections, lgs_standard_step
from impulsim.methods.impulse.groups import bodies_of, chains_of, fac_of, pred_of, prims_of, rows_of, structure_of

LOOP_TREATMENTS = ("drop", "cut")


class CorrectionDiverged(SimulationError):
    """A step's joint correction diverged: its joint errors grew past DIVERGENCE_FACTOR times those of the
    uncorrected step (LGS solver: see :mod:`lgs_correct`; iterative solver: see
    :func:`iterative.correct_positions_checked`). The state is left as it was before the step. ``solves``
    (LGS solves or iterative sweeps) and ``residual`` [m] say where the correction stopped."""

    solves: int = 0
    residual: float = 0.0


def diverged_error(step, t, h, residual, solves, solver: str = "lgs") -> CorrectionDiverged:
    """The error of a step whose joint correction diverged, with the advice that holds it; ``solver`` is
    "lgs" (``solves`` counts solves), "iterative" (``solves`` counts sweeps) or "coupled" (joints corrected
    together with contacts and limits; ``solves`` counts their alternating passes)."""
    what, unit = {"lgs": ("LGS joint correction", "solves"), "iterative": ("iterative joint correction", "sweeps"),
                  "coupled": ("joint correction with contacts and limits", "passes")}[solver]
    error = CorrectionDiverged(
        f"step {step} (t = {t:.6g} s): the {what} diverged: after {solves} {unit} the joints "
        f"are open by {residual:.3g} m, more than {DIVERGENCE_FACTOR:g} times before the correction; the step "
        f"h = {h:g} s is too large for this motion (take a smaller h, or step with "
        f"impulsim.methods.impulse.lgs_halving.HalvingStepper); the state was left at the last good step")
    error.solves, error.residual = int(solves), float(residual)
    return error

DEPENDENT_PIVOT = 1e-9
"""A row is dropped as linearly dependent when elimination leaves at most this fraction of its diagonal
entry. Measured over 60 steps: the redundant rows of the three-loop model keep pivots ≤ 1.4e-13 of their
diagonal, independent rows ≥ 1.3e-4 (tree 255: ≥ 3.7e-2). A loop misaligned by δ leaves a pivot of about
δ², so rows of loops closed to better than ~3e-5 rad count as dependent."""


class LgsSolver:
    """Structure and workspace of the LGS chains of one model; the kernels do the work."""

    _scratch_attrs = frozenset((
        "structure", "cut_prims", "chain_cut_start", "soft_prims", "chain_soft_start", "chain_bodies",
        "chain_body_start", "node_lin", "node_ang", "node_angw", "asm_diag", "asm_off", "fac_diag", "fac_diag_inv",
        "fac_off", "tmp", "x", "iters_pos", "iters_vel", "model"))
    """The chains' structure (fixed) and the factorization of the last poses, rebuilt whenever the poses
    differ from the method's key (ImpulseMethod._rows_pos): neither rolled back after a failed step nor
    checkpointed (see impulsim.methods.memory)."""

    def __init__(self, model, chains: list[Chain], loops: str = "drop", dependent_pivot: float = DEPENDENT_PIVOT):
        if loops not in LOOP_TREATMENTS:
            raise ValueError(f"unknown loop treatment {loops!r} (use {' or '.join(map(repr, LOOP_TREATMENTS))})")
        self.model = model
        self.chains = chains
        self.loops = loops
        self.dependent_pivot = float(dependent_pivot)
        nodes, cuts, softs, bodies = [], [], [], []
        for ch in chains:
            tree = [i for i in joint_prims(model, ch.tree_joints) if not _velocity_only(model, i)]
            cut = [i for i in joint_prims(model, ch.cut_joints) if not _velocity_only(model, i)]
            nodes.append(tree + cut if loops == "drop" else tree)
            cuts.append([] if loops == "drop" else cut)
            softs.append([i for i in joint_prims(model, ch.joints) if _velocity_only(model, i)])
            every = joint_prims(model, ch.joints)
            touched = {int(model.prim_body_a[i]) for i in every} | {int(model.prim_body_b[i]) for i in every}
            bodies.append(sorted(touched))
        self.structure = analyse(model, nodes)
        self.cut_prims = np.array([i for c in cuts for i in c], np.int64)
        self.chain_cut_start = _starts(cuts)
        self.soft_prims = np.array([i for c in softs for i in c], np.int64)
        """Velocity-only rows (Bender 3.2.6), satisfied by sweeps before the joints' velocity solve."""
        self.chain_soft_start = _starts(softs)
        self.chain_bodies = np.array([k for b in bodies for k in b], np.int64)
        self.chain_body_start = _starts(bodies)
        self._alloc()
        self.dropped = 0
        """Rows dropped as dependent in the last factorization."""
        self.factorizations = 0
        """Factorizations so far (one per step in a continuous run)."""

    def _alloc(self):
        st = self.structure
        n, n_off = st.n_nodes, st.n_off
        self.node_lin = np.zeros((n, 2, 3, 3))
        ball_lin_rows(st.node_prim, self.model.prim_kind, self.node_lin)
        self.node_ang = np.zeros((n, 2, 3, 3))
        self.node_angw = np.zeros((n, 2, 3, 3))
        self.asm_diag = np.zeros((n, 3, 3))
        self.asm_off = np.zeros((n_off, 3, 3))
        self.fac_diag = np.zeros((n, 3, 3))
        self.fac_diag_inv = np.zeros((n, 3, 3))
        self.fac_off = np.zeros((n_off, 3, 3))
        self.tmp = np.zeros((st.max_col, 3, 3))
        self.x = np.zeros((n, 3))
        self.iters_pos = np.zeros(len(self.chains), np.int64)
        self.iters_vel = np.zeros(len(self.chains), np.int64)

    # stages -----------------------------------------------------------------------------------------
    def build(self, method, s):
        """Geometry of the nodes' primitives (into the method's row arrays), assembly and factorization of M
        at the current poses of ``s`` (with the method's world inverse inertias)."""
        self.dropped = build_and_factorize(structure_of(self), prims_of(self.model), bodies_of(self.model, s, method),
                                           self.dependent_pivot, rows_of(method), fac_of(self))
        self.factorizations += 1

    def correct_positions(self, method, s, h, max_iter=None):
        """Joint correction of all LGS chains with at most ``max_iter`` solves per chain (default: the
        method's max_iter_pos); returns (most solves, largest error, clamped count, diverged chains)."""
        return correct_positions_lgs(
            chains_of(self), structure_of(self), prims_of(self.model), bodies_of(self.model, s, method),
            rows_of(method), fac_of(self), pred_of(method), h, rotation_scheme(method.integrator), method.eps_d,
            method.max_iter_pos if max_iter is None else max_iter, method.max_correction_speed)

    def correct_velocities(self, method, s, max_iter=None):
        """Velocity correction of all LGS chains with at most ``max_iter`` solves per chain (default: the
        method's max_iter_vel); returns (most solves, largest residual)."""
        return correct_velocities_lgs(
            chains_of(self), structure_of(self), prims_of(self.model), bodies_of(self.model, s, method),
            rows_of(method), fac_of(self), method.eps_v, method.max_iter_vel if max_iter is None else max_iter)

    def standard_step(self, method, s, h):
        """The whole standard step in one kernel (see lgs_step); for all-LGS models without contacts and
        force elements. Returns (position solves, residual, clamped, velocity solves, residual, diverged
        chains; when some diverged the step stopped after its joint correction)."""
        m = self.model
        return self._tally(lgs_standard_step(
            chains_of(self), structure_of(self), prims_of(m), bodies_of(m, s, method), rows_of(method),
            fac_of(self), pred_of(method), m.gravity, s.body_force, s.body_torque, h,
            rotation_scheme(method.integrator), method.eps_d, method.eps_v, method.max_iter_pos, method.max_iter_vel,
            method.max_correction_speed, self.dependent_pivot))

    def corrections(self, method, s, h):
        """:meth:`standard_step` after the step's loads, which the method has computed (lgs_step.lgs_corrections):
        for a contact step that found no contact. Returns as :meth:`standard_step`."""
        m = self.model
        return self._tally(lgs_corrections(
            chains_of(self), structure_of(self), prims_of(m), bodies_of(m, s, method), rows_of(method),
            fac_of(self), pred_of(method), h, rotation_scheme(method.integrator), method.eps_d, method.eps_v,
            method.max_iter_pos, method.max_iter_vel, method.max_correction_speed, self.dependent_pivot, False))

    def _tally(self, result):
        """Count a fused kernel's factorizations and dropped rows; its other results, as standard_step returns."""
        sp, rp, cl, sv, rv, facs, dropped, diverged = result
        self.factorizations += facs
        self.dropped = dropped
        return sp, rp, cl, sv, rv, diverged


def _velocity_only(model, i) -> bool:
    return Prim(model.prim_kind[i]) in (Prim.VEL_POINT, Prim.VEL_ANGULAR)


def _starts(lists) -> np.ndarray:
    out = np.zeros(len(lists) + 1, np.int64)
    out[1:] = np.cumsum([len(v) for v in lists])
    return out
