"""The grouped arguments of the Lagrange method's one-kernel evaluation and step: plain tuples of arrays in a
fixed order.

:func:`.fused.baraff_derivative` and :func:`.fused.baraff_runge_kutta_step` take their arrays in a few
groups instead of one by one: the bodies' mass properties, the constraint table, Baraff's forest, the
evaluation's workspace and (for a whole step) the state's motion and the integrator's workspace. A kernel
unpacks a group in its first lines (``kind, a, ... = table``); unpacking checks the number of fields when it
compiles.

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
"""Fields of ``motion``: the state's positions [m], orientations, velocities [m/s] and angular velocities
[rad/s, world], advanced in place by a whole step."""

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


def rk_work_of(rk) -> tuple:
    """``rk_ws`` of the fixed-step integrator ``rk``."""
    return (rk.k, rk.tmp, rk.y0, rk.out)
