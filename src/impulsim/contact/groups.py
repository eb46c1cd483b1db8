"""The grouped arguments of the contact and joint-limit kernels: plain tuples of arrays in a fixed order.

A kernel of the contact stage takes its arrays in a few groups instead of one by one: the contacts in their
sweep order split into patches, the contact levels of a shock pass, the shock pass's workspace, the
detector's contacts and the materials they are loaded with; a joint-limit kernel takes the model's limits
and their geometry. The position passes take the impulse method's ``bodies`` and ``pred`` groups as they
are (:mod:`impulsim.methods.impulse.groups`: BODIES, PRED), and ``free``, what a prediction needs
(:func:`impulsim.dynamics.integrate.predict_body`). A kernel unpacks a group in its first lines
(``order, patch_start, patch_len = patches``); unpacking checks the number of fields when it compiles.

Plain tuples, not named tuples: Numba types a plain tuple of arrays on its fast path (as it does separate
arrays), while a named tuple crosses from Python into compiled code through Python's typing at about 0.3 µs
per array, every call. The functions below are a tuple of attribute reads: callers build the groups per call
and never hold arrays that may be reallocated.
"""
from __future__ import annotations

from impulsim.dynamics.groups import JOINTS, joints_of

PATCHES = ("order", "patch_start", "patch_len")
"""Fields of ``patches``: the contacts in sweep order (bottom-up or top-down) and the patches it is split
into (first position in the order and number of contacts, see contact.patches)."""

LEVELS = ("level_patches", "top", "body_level", "awake_frozen")
"""Fields of ``levels`` (shock propagation): the first patch of each contact level, the top level, each
body's level, and what is frozen outside a shock pass (nothing, or the sleeping bodies)."""

SHOCK = ("ws", "level_cache", "no_cache", "no_memo")
"""Fields of ``shock``: a shock pass's workspace: the patch workspace, the blocks of one level, an invalid
cache and a switched-off patch memory (see contact.patches, contact.memo)."""

FOUND = ("body_a", "body_b", "shape_a", "shape_b", "point_a", "point_b", "normal", "distance")
"""Fields of ``found``: the detector's contacts (collision.Contacts): bodies and shapes, the points on A
and B [m] and the unit normal from B towards A (world), and the signed distance [m]."""

LAST = ("keys_sorted", "index_sorted", "pair_sorted", "pair_index", "local_a", "local_b", "count")
"""Fields of ``last``: last step's contacts, as the warm start matches this step's to them (contact.warmstart):
their identity keys sorted and each one's index, their body-pair keys sorted and each one's index, their
points in A's and B's body frames [m], and how many there were."""

MATERIALS = ("shape_material", "shape_round_radius", "shape_rolls", "restitution", "static_friction",
             "dynamic_friction", "restitution_rule", "friction_rule")
"""Fields of ``materials``: each shape's material, rounding radius [m] (spheres, capsules) and whether it
rolls, each material's coefficients, and the rules that combine two materials' (contact.materials)."""

LIMITS = ("joint", "coord", "lower", "upper") + JOINTS
"""Fields of ``limits``: each joint limit's joint, coordinate (0 angle, 1 position) and bounds [rad or m],
then the model's ``joints`` group (dynamics.groups.JOINTS) that the coordinates are measured with."""

LIMIT_GEOMETRY = ("x", "ra", "rb", "k")
"""Fields of a limit stage's ``geom``: each limit's world axis, impulse arms from A's and B's centres of
mass [m] and inverse mass along the axis (see contact.limits)."""


def found_of(c) -> tuple:
    """``found`` of the detector's contacts ``c`` (collision.Contacts)."""
    return (c.body_a, c.body_b, c.shape_a, c.shape_b, c.point_a, c.point_b, c.normal, c.distance)


def last_of(stage) -> tuple:
    """``last`` of a contact stage."""
    return (stage.prev_keys_sorted, stage.prev_index_sorted, stage.prev_pair_sorted, stage.prev_pair_index,
            stage.prev_local_a, stage.prev_local_b, stage.prev_count)


def materials_of(stage) -> tuple:
    """``materials`` of a contact stage."""
    m, opt = stage.model, stage.opt
    return (m.shape_material, stage.shape_round_radius, stage.shape_rolls, m.material_restitution,
            m.material_static_friction, m.material_dynamic_friction, opt.restitution_rule, opt.friction_rule)


def levels_of(stage, level_patches) -> tuple:
    """``levels`` of a contact stage with the level ranges ``level_patches``."""
    return (level_patches, stage.top_level, stage.body_level, stage._awake_frozen)


def shock_of(stage) -> tuple:
    """``shock`` of a contact stage."""
    return (stage.ws, stage.level_cache, stage.no_cache, stage.no_memo)


def limits_of(m) -> tuple:
    """``limits`` of model ``m``."""
    return (m.limit_joint, m.limit_coord, m.limit_lower, m.limit_upper) + joints_of(m)


def limit_geometry_of(stage) -> tuple:
    """``geom`` of a limit stage."""
    return (stage.x, stage.ra, stage.rb, stage.k)
