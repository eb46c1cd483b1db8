"""The grouped arguments of the Lagrange method's kernels: plain tuples of arrays in a fixed order.

:func:`.fused.baraff_derivative` and :func:`.fused.baraff_runge_kutta_step` take their arrays in a few
groups instead of one by one: the bodies' mass properties, the constraint table, Baraff's forest, the
evaluation's workspace and (for a whole step) the state's motion and the integrator's workspace. The stages
they run take groups too: :func:`.rows.compute_rows` the table, a motion and the rows it fills;
:func:`.baraff.factor` and :func:`.baraff.secondary_responses` the forest, the blocks of the system at the
current state and the factorization's workspace. A kernel unpacks a group in its first lines
(``kind, a, ... = table``); unpacking checks the number of fields when it compiles.

Plain tuples, not named tuples: Numba types a plain tuple of arrays on its fast path (as it does separate
arrays), while a named tuple crosses from Python into compiled code through Python's typing, every call.
Inside compiled code a tuple costs the same as separate arguments.

The functions below build the groups; they are cheap (a tuple of attribute reads).
"""
from __future__ import annotations

MASS = ("static", "inv_mass", "inertia", "inv_inertia")
"""Fields of ``mass``: the model's static flags, inverse masses [1/kg], principal inertias [kg m²] and their
inverses."""

TABLE = ("kind", "a", "b", "anchor_a", "anchor_b", "axis_a", "axis_b", "perp", "target", "qrel", "vel_target",
         "func", "row_start", "row_a", "row_velocity")
"""Fields of ``table``: the constraint table (kinds, bodies, anchors and axes in body frames [m], targets,
relative rotations, velocity targets, functions of time, each element's first row, each row's body and
whether it is a velocity row)."""

FOREST = ("node_kind", "node_ref", "node_size", "node_parent", "order", "node_x", "node_d", "node_h",
          "child_start", "children", "element_row_start")
"""Fields of ``forest``: the fixed structure of Baraff's primary forest (see :mod:`.forest`)."""

WORK = ("quat_unit", "Iw", "Iw_inv", "force", "a0", "row_Ja", "row_Jb", "row_c", "row_C", "row_Cd", "cp",
        "Q", "Y", "node_form", "x", "work")
"""Fields of ``ws``: the workspace of one evaluation: unit quaternions, world inertias and their inverses,
generalized forces and free accelerations, the rows J, c, C, Ċ and c′, and the factorization's blocks,
forms, right-hand side / solution and scratch."""

MOTION = ("pos", "quat", "vel", "omega")
"""Fields of ``motion``: the bodies' positions [m], orientations, velocities [m/s] and angular velocities
[rad/s, world]: the state's (advanced in place by a whole step) or those of a stage (read by the rows)."""

ROWS = ("row_Ja", "row_Jb", "row_c", "row_C", "row_Cd")
"""Fields of ``rows``: every constraint row's Jacobian blocks J_a, J_b [n_rows, 6] on its two bodies, its
velocity product term c, its position error C and its rate Ċ [n_rows], filled by :func:`.rows.compute_rows`."""

SYSTEM = ("row_a", "row_Ja", "row_Jb", "inv_mass", "Iw", "Iw_inv")
"""Fields of ``system``: the blocks of the augmented system H at the current state: each row's body A, the
rows' Jacobian blocks, the bodies' inverse masses [1/kg] and world inertias [kg m²] and their inverses."""

FACTOR = ("Q", "Y", "node_form", "x", "work")
"""Fields of ``fac``: Baraff's factorization: the blocks Q_i and Y_i of every node, each node's form, the
right-hand side / solution and scratch (see :func:`.baraff.factor`)."""

RK_WORK = ("k", "tmp", "y0", "out")
"""Fields of ``rk_ws``: the integrator's stage slopes, stage input, packed start state and result."""


def mass_of(m) -> tuple:
    """``mass`` of model ``m``."""
    return (m.body_static, m.body_inv_mass, m.body_inertia, m.body_inv_inertia)


def table_of(t) -> tuple:
    """``table`` of the constraint table ``t``."""
    return (t.kind, t.a, t.b, t.anchor_a, t.anchor_b, t.axis_a, t.axis_b, t.perp, t.target, t.qrel,
            t.vel_target, t.func, t.row_start, t.row_a, t.row_velocity)


def forest_of(f) -> tuple:
    """``forest`` of Baraff's forest ``f``."""
    return (f.node_kind, f.node_ref, f.node_size, f.node_parent, f.order, f.node_x, f.node_d, f.node_h,
            f.child_start, f.children, f.element_row_start)


def work_of(ev, solver) -> tuple:
    """``ws`` of evaluator ``ev`` and Baraff solver ``solver``."""
    return (ev.quat_unit, ev.Iw, ev.Iw_inv, ev.force, ev.a0, ev.row_Ja, ev.row_Jb, ev.row_c, ev.row_C,
            ev.row_Cd, ev.cp, solver.Q, solver.Y, solver.node_form, solver.x, solver.work)


def motion_of(s) -> tuple:
    """``motion`` of state ``s``."""
    return (s.body_pos, s.body_quat, s.body_vel, s.body_omega)


def rows_of(ev) -> tuple:
    """``rows`` of evaluator ``ev``."""
    return (ev.row_Ja, ev.row_Jb, ev.row_c, ev.row_C, ev.row_Cd)


def system_of(t, ev) -> tuple:
    """``system`` of the constraint table ``t`` and evaluator ``ev`` (its rows and world inertias)."""
    return (t.row_a, ev.row_Ja, ev.row_Jb, ev.model.body_inv_mass, ev.Iw, ev.Iw_inv)


def factor_of(solver) -> tuple:
    """``fac`` of Baraff solver ``solver``."""
    return (solver.Q, solver.Y, solver.node_form, solver.x, solver.work)


def rk_work_of(rk) -> tuple:
    """``rk_ws`` of the fixed-step integrator ``rk``."""
    return (rk.k, rk.tmp, rk.y0, rk.out)
