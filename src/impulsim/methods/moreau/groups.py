"""The grouped arguments of Moreau's row and prox kernels: plain tuples of arrays in a fixed order.

The kernels that write or solve the rows (:func:`.rows.contact_rows`, :func:`.rows.joint_rows`,
:func:`.wagner.extra_rows`, :func:`.prox.solve`) take their arrays in a few groups instead of one by one: the
rows, the blocks, the detected contacts, the materials, the runner laws, the joints' Lagrange rows and the
extra constraints. A kernel unpacks a group in its first lines (``row_a, row_b, ... = rows``); unpacking
checks the number of fields when it compiles.

Plain tuples, not named tuples: Numba types a plain tuple of arrays on its fast path (as it does separate
arrays), while a named tuple crosses from Python into compiled code through Python's typing, every call.
Inside compiled code a tuple costs the same as separate arguments.

The functions below build the groups; they are cheap (a tuple of attribute reads), so callers build them per
call and never hold arrays that may be reallocated (:class:`.rows.RowBuffers` grows on demand).
"""
from __future__ import annotations

ROWS = ("row_a", "row_b", "row_wa", "row_wb", "row_chi", "row_gamma_b")
"""Fields of ``rows``: each row's bodies, generalized force directions for both bodies, velocity offset χ
[m/s or rad/s] and start velocity γ^B."""

BLOCKS = ("blk_start", "blk_kind", "blk_law", "blk_e", "blk_e_t", "blk_par")
"""Fields of ``blocks``: each block's first row, kind (bilateral / contact), friction law, normal and
tangential restitution and law parameters."""

CONTACTS = ("body_a", "body_b", "shape_a", "shape_b", "point_a", "point_b", "normal", "distance")
"""Fields of ``contacts``: the detector's contact points (bodies, shapes, points on both [m, world], normal
and signed distance [m])."""

MATERIALS = ("shape_material", "material_restitution", "material_friction")
"""Fields of ``materials``: each shape's material, and each material's restitution and dynamic friction."""

LAWS = ("body_law", "body_law_par", "body_law_axis")
"""Fields of ``laws``: the friction law of each body's contacts (runners), its parameters and axis."""

JOINT = ("row_a", "row_b", "Ja", "Jb", "C", "Cd", "velocity")
"""Fields of ``joint``: the Lagrange method's joint rows (bodies, J of both bodies on world (v, ω), C, Ċ and
whether the row is velocity-level)."""

EXTRAS = ("kind", "with_a", "body_a", "body_b", "anchor_a", "anchor_b", "fval", "frate")
"""Fields of ``extras``: Wagner's extra constraints (kind, whether there is a first body, bodies, anchors
[m, body frames], f and ḟ of this step)."""


def rows_of(buf) -> tuple:
    """``rows`` of the row buffers ``buf``."""
    return (buf.row_a, buf.row_b, buf.row_wa, buf.row_wb, buf.row_chi, buf.row_gamma_b)


def blocks_of(buf) -> tuple:
    """``blocks`` of the row buffers ``buf``."""
    return (buf.blk_start, buf.blk_kind, buf.blk_law, buf.blk_e, buf.blk_e_t, buf.blk_par)


def contacts_of(c) -> tuple:
    """``contacts`` of the detector's buffers ``c``."""
    return (c.body_a, c.body_b, c.shape_a, c.shape_b, c.point_a, c.point_b, c.normal, c.distance)


def materials_of(m) -> tuple:
    """``materials`` of model ``m``."""
    return (m.shape_material, m.material_restitution, m.material_dynamic_friction)


def laws_of(method) -> tuple:
    """``laws`` of the Moreau method."""
    return (method.body_law, method.body_law_par, method.body_law_axis)


def joint_of(joints) -> tuple:
    """``joint`` of the method's joint rows."""
    t = joints.table
    return (t.row_a, t.row_b, joints.Ja, joints.Jb, joints.C, joints.Cd, joints.velocity)


def extras_of(x) -> tuple:
    """``extras`` of the extra constraints ``x``."""
    return (x.kind, x.with_a, x.body_a, x.body_b, x.anchor_a, x.anchor_b, x.fval, x.frate)
