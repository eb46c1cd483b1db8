"""The grouped arguments of the impulse method's kernels: plain tuples of arrays in a fixed order.

A kernel of the impulse method takes its arrays in a few groups instead of one by one: the primitives of the
model, the bodies (state, loads and mass properties), the constraint rows at the current poses, the
predictions at t0+h, the LGS chains, the LGS structure and the LGS workspace. A kernel unpacks the group in
its first lines (``kind, body_a, ... = prims``); unpacking checks the number of fields when it compiles.

Plain tuples, not named tuples: Numba types a plain tuple of arrays on its fast path (as it does separate
arrays), while a named tuple crosses from Python into compiled code through Python's typing at about 0.3 µs
per array, every call. Inside compiled code both cost the same as separate arguments, and neither makes a
new specialization per call: the type depends only on the arrays' dtypes and dimensions.

The functions below build the groups from the model, state, method and LGS solver; they are cheap (a
tuple of attribute reads), so callers build them per call and never hold arrays that may be reallocated.
"""
from __future__ import annotations

from impulsim.contact import groups as CG

PRIMS = ("kind", "body_a", "body_b", "anchor_a", "anchor_b", "axis_a", "axis_b", "target", "qrel", "vel_target")
"""Fields of ``prims``: the model's constraint primitives (kinds, bodies, anchors and axes in body frames [m],
position targets [m or rad], relative rotations, velocity targets [m/s or rad/s])."""

BODIES = ("pos", "quat", "vel", "omega", "acc", "tau", "Iinv", "inertia", "inv_inertia", "inv_mass", "static")
"""Fields of ``bodies``: the state's motion (world frame; advanced or corrected in place), the step's
accelerations [m/s², rad/s²], the world inverse inertias at the current poses, and the model's principal
inertias [kg m²], their inverses, inverse masses [1/kg] and static flags."""

ROWS = ("ra", "rb", "P", "dim", "Minv", "key_pos", "key_quat")
"""Fields of ``rows``: each primitive's impulse points relative to its bodies' centres [m, world], projection,
row count and inverse of the projected mass matrix, and the poses the rows were computed at (the key that
decides whether they are still current)."""

PRED = ("pos", "quat", "vel", "omega", "valid", "dirty", "step_tol")
"""Fields of ``pred``: the bodies' predicted motion at t0+h, whether a body's prediction is its free step,
whether a body must be predicted again, and each primitive's tolerance in this step (impulse clamping)."""

CHAINS = ("node_start", "body_start", "bodies", "cut_start", "cut_prims", "soft_start", "soft_prims")
"""Fields of ``chains``: per LGS chain (CSR starts) its nodes, bodies, loop-closing primitives corrected one
by one, and velocity-only primitives."""

STRUCTURE = ("node_prim", "node_trans", "term_target", "term_row", "term_row_side", "term_col", "term_col_side",
             "col_ptr", "off_row", "upd_ptr", "upd_a", "upd_b", "upd_target")
"""Fields of ``struct``: the fixed pattern of the LGS matrices (see :mod:`lgs_structure`)."""

FAC = ("node_lin", "node_ang", "node_angw", "asm_diag", "asm_off", "diag_inv", "off", "tmp", "diag", "x",
       "iters_pos", "iters_vel")
"""Fields of ``fac``: the LGS workspace: J and Y rows of the nodes, the assembled and factorized matrix, the
right-hand side / solution and the solves per chain."""


def prims_of(m) -> tuple:
    """``prims`` of model ``m``."""
    return (m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_anchor_a, m.prim_anchor_b, m.prim_axis_a,
            m.prim_axis_b, m.prim_target, m.prim_qrel, m.prim_vel_target)


def bodies_of(m, s, method) -> tuple:
    """``bodies`` of model ``m``, state ``s`` and the method's accelerations and inverse inertias; the bodies that
    stay in place are the static ones and, with sleeping, the sleeping ones (ContactCoupling._static_now)."""
    return (s.body_pos, s.body_quat, s.body_vel, s.body_omega, method.acc, method.tau, method.Iinv,
            m.body_inertia, m.body_inv_inertia, m.body_inv_mass, method._static_now())


def rows_of(method) -> tuple:
    """``rows`` of the impulse method."""
    return (method.row_ra, method.row_rb, method.row_P, method.row_dim, method.row_Minv, method._rows_pos,
            method._rows_quat)


def pred_of(method) -> tuple:
    """``pred`` of the impulse method."""
    return (method.pred_pos, method.pred_quat, method.pred_vel, method.pred_omega, method.pred_valid,
            method.dirty, method.step_tol)


def chains_of(lgs) -> tuple:
    """``chains`` of an LGS solver."""
    return (lgs.structure.chain_node_start, lgs.chain_body_start, lgs.chain_bodies, lgs.chain_cut_start,
            lgs.cut_prims, lgs.chain_soft_start, lgs.soft_prims)


def structure_of(lgs) -> tuple:
    """``struct`` of an LGS solver."""
    st = lgs.structure
    return (st.node_prim, st.node_trans, st.term_target, st.term_row, st.term_row_side, st.term_col,
            st.term_col_side, st.col_ptr, st.off_row, st.upd_ptr, st.upd_a, st.upd_b, st.upd_target)


def fac_of(lgs) -> tuple:
    """``fac`` of an LGS solver."""
    return (lgs.node_lin, lgs.node_ang, lgs.node_angw, lgs.asm_diag, lgs.asm_off, lgs.fac_diag_inv, lgs.fac_off,
            lgs.tmp, lgs.fac_diag, lgs.x, lgs.iters_pos, lgs.iters_vel)


def lgs_of(lgs) -> tuple | None:
    """``lgs`` of the kernels that take the LGS chains whole (limit_run, limit_coupling): chains, structure,
    factorization and dependent-row pivot of an LGS solver, or None without one."""
    if lgs is None:
        return None
    return chains_of(lgs), structure_of(lgs), fac_of(lgs), float(lgs.dependent_pivot)


def limit_group_of(method) -> tuple:
    """``limits`` of the kernels that take a step's joint limits (limit_run, contact_run): the model's limits
    (contact.groups.limits_of), their restitutions, the limit stage's geometry, side, phase, target, impulse,
    position impulse and starting rates, its tolerance [m or rad], collision speed and resting speed [m/s or
    rad/s], what a prediction needs (``free``), and the arrays of the limits solved together (limit_coupling) or
    None."""
    st = method.limits
    return (CG.limits_of(method.model), method.model.limit_restitution, CG.limit_geometry_of(st), st.side, st.phase,
            st.target, st.lam, st.lam_pos, st.rate0, float(st.tol), float(st.eps_rc), float(st.eps_v), method._free(),
            method._limit_coupling)
