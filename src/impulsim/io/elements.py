"""Scene-file elements (materials, bodies, joints, motors, servos, springs, collisions) into the builder.

Each ``add_*`` function reads one YAML element, checks its keys and value types, and calls the
matching :class:`~impulsim.model.builder.ModelBuilder` method with ``where="file:line"`` so that the
errors the model compiler finds later name the same place.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Callable

import numpy as np
from yaml.nodes import Node, SequenceNode

from impulsim.errors import ModelError
from impulsim.io.rotations import orientation
from impulsim.io.shapes import read_shape
from impulsim import limits
from impulsim.io.yamlnodes import (Element, Mapping, SceneError, boolean, integer, matrix3, number,
                                   sequence, string, vector)
from impulsim.model.builder import ModelBuilder
from impulsim.model.kinds import Coordinate, JointKind, ServoMode
from impulsim.model.specs import Material

# ---------------------------------------------------------------------------------------- readers


def _positive(el, node, what):
    return number(el, node, what, positive=True)


def _nonnegative(el, node, what):
    return number(el, node, what, nonnegative=True)


def _real(el, node, what):
    return number(el, node, what)


def _direction(el: Element, node: Node, what: str) -> np.ndarray:
    """A non-zero 3-vector (an axis; its length does not matter)."""
    v = vector(el, node, what)
    if np.linalg.norm(v) < 1e-12:
        raise el.fail(node, f"{what} has zero length")
    return v


def _inertia(el: Element, node: Node, what: str) -> np.ndarray:
    """Three principal moments [kg m²] or a full 3×3 tensor."""
    items = sequence(el, node, what)
    if items and all(isinstance(i, SequenceNode) for i in items):
        return matrix3(el, node, what)
    moments = vector(el, node, f"{what} (3 moments or a 3x3 tensor)")
    if np.any(moments <= 0):
        raise el.fail(node, f"{what} moments must be positive, got {[float(x) for x in moments]}")
    return moments


def _shapes(el: Element, node: Node, what: str) -> list:
    return [read_shape(el, item, i) for i, item in enumerate(sequence(el, node, what))]


def _pair(el: Element, node: Node, what: str) -> tuple[str, str]:
    """Two body names ``[a, b]``."""
    items = sequence(el, node, what)
    if len(items) != 2:
        raise el.fail(node, f"{what} must name two bodies [a, b], got {len(items)}")
    return string(el, items[0], f"{what} entries"), string(el, items[1], f"{what} entries")


def _setpoints(el: Element, node: Node, what: str) -> list[tuple[float, float]]:
    """A constant set-point, or a list of ``[time, value]`` pairs."""
    if isinstance(node, SequenceNode):
        pairs = [tuple(vector(el, item, f"{what} entries ([time, value])", 2))
                 for item in sequence(el, node, what)]
        if not pairs:
            raise el.fail(node, f"{what} must not be empty")
        return pairs
    return [(0.0, number(el, node, what))]


def _choice(*choices: str) -> Callable:
    def read(el, node, what):
        return string(el, node, what, choices)
    return read


# ------------------------------------------------------------------------------------ element base


def _element(file: str, node: Node, section: str, index: int, what: str) -> tuple[Element, Mapping, str]:
    """Element, mapping and name of item ``index`` of a list section; the label gets the name."""
    el = Element(file, node, f"{section}[{index}]")
    m = Mapping(el, node, what)
    if "name" not in m:
        raise el.fail(node, 'missing required key "name"')
    name = string(el, m.value("name"), "name")
    el.relabel(f'{section}[{index}] "{name}"')
    return el, m, name


def _read_all(el: Element, m: Mapping, readers: dict, skip=("name",)) -> dict:
    return {key: readers[key](el, m.value(key), key) for key in m if key not in skip}


def _call(el: Element, method: Callable, *args, **kwargs):
    """Call a builder method; an error it raises gets the element's ``file:line`` in front."""
    try:
        return method(*args, **kwargs)
    except (ModelError, ValueError, TypeError) as exc:
        msg = str(exc)
        if isinstance(exc, SceneError) or msg.startswith(el.file):
            raise
        raise SceneError(f"{el.where}: {msg}") from None


# ---------------------------------------------------------------------------------------- materials

MATERIAL_KEYS = tuple(f.name for f in fields(Material) if f.name != "name")


def add_materials(builder: ModelBuilder, file: str, node: Node) -> None:
    """``materials: {name: {restitution, static_friction, dynamic_friction, density}, ...}``."""
    section = Mapping(Element(file, node, "materials"), node, "materials")
    for name, (_, value) in section.items.items():
        el = Element(file, value, f'materials "{name}"')
        m = Mapping(el, value, "a material")
        m.check_keys(MATERIAL_KEYS, what="material property")
        props = {key: number(el, m.value(key), key, nonnegative=True) for key in m}
        _call(el, builder.add_material, name, **props)


# ------------------------------------------------------------------------------------------ bodies

def _bounded_vector(bound: float, unit: str) -> Callable:
    """A 3-vector reader whose entries lie within ±bound (see impulsim.limits)."""
    def read(el, node, what):
        v = vector(el, node, what)
        if np.abs(v).max() > bound:
            raise el.fail(node, f"{what} must lie within ±{bound:g} {unit}, got {[float(x) for x in v]}")
        return v
    return read


def _mass(el, node, what):
    v = _positive(el, node, what)
    if not limits.MIN_MASS <= v <= limits.MAX_MASS:
        raise el.fail(node, f"{what} must lie between {limits.MIN_MASS:g} and {limits.MAX_MASS:g} kg, got {v:g}")
    return v


RESERVED_BODY_NAMES = ("momentum", "angular_momentum")
"""Body names whose recording columns (NAME.x …) are the recording's own (see io.recording)."""

BODY_READERS: dict[str, Callable] = {
    "name": string, "shapes": _shapes, "mass": _mass, "inertia": _inertia, "com": vector,
    "density": _positive, "position": _bounded_vector(limits.MAX_LENGTH, "m"), "orientation": orientation,
    "velocity": _bounded_vector(limits.MAX_SPEED, "m/s"),
    "angular_velocity": vector, "static": boolean, "kinematic": boolean, "material": string,
    "collision_group": integer, "collision_mask": integer, "point": boolean,
}


def add_body(builder: ModelBuilder, file: str, node: Node, index: int) -> None:
    """One item of ``bodies``: name, mass properties (mass + inertia, or shapes), pose and velocity."""
    el, m, name = _element(file, node, "bodies", index, "a body")
    m.check_keys(BODY_READERS, ("name",))
    if name in RESERVED_BODY_NAMES:
        raise el.fail(m.value("name"), f'the name "{name}" is reserved (the recording has columns '
                                       f'{name}.x/y/z); choose another')
    kwargs = _read_all(el, m, BODY_READERS)
    if not (kwargs.get("static") or kwargs.get("kinematic")) and "shapes" in kwargs:
        from impulsim.io.meshfiles import moving_body_shapes     # mesh files on moving bodies: convex pieces
        kwargs["shapes"] = moving_body_shapes(kwargs["shapes"], f"{el.where}: {el.label}")
    if not (kwargs.get("static") or kwargs.get("kinematic") or kwargs.get("point") or "inertia" in kwargs):
        _check_shape_volumes(el, m, kwargs.get("shapes", []))
    _call(el, builder.add_body, name, where=el.where, **kwargs)


def _check_shape_volumes(el: Element, m: Mapping, shapes: list) -> None:
    """A moving body whose mass comes from its shapes needs shapes with a volume (not a half-space)."""
    for i, shape in enumerate(shapes):
        try:
            shape.volume()
        except (ModelError, ValueError) as exc:
            item = m.value("shapes").value[i]
            raise el.child(item, f"shapes[{i}]").fail(item, " ".join(str(exc).split())) from None


# ------------------------------------------------------------------------------------------ joints

_POINT = ("anchor", "anchor_a", "anchor_b")
_AXES = ("axis", "axis_a", "axis_b")

JOINT_PARAMS: dict[str, tuple] = {
    "ball": _POINT,
    "distance": _POINT + ("length",),
    "point_on_line": _POINT + _AXES,
    "point_on_plane": _POINT + _AXES,
    "rotation_lock": (),
    "direction": _AXES,
    "double_rotation": _AXES,
    "hinge": _POINT + _AXES,
    "cylindrical": _POINT + _AXES,
    "slider": _POINT + _AXES,
    "universal": _POINT + ("axis_a", "axis_b"),
    "fixed": _POINT,
    "velocity": _POINT + ("velocity", "angular_velocity"),
    "thread": _POINT + ("length",),
}
"""Joint type -> the frame keys it takes, besides name, type and bodies (one entry per JointKind)."""

JOINT_READERS: dict[str, Callable] = {
    "anchor": vector, "anchor_a": vector, "anchor_b": vector, "axis": _direction,
    "axis_a": _direction, "axis_b": _direction, "length": _nonnegative, "velocity": vector,
    "angular_velocity": vector,
}


def add_joint(builder: ModelBuilder, file: str, node: Node, index: int) -> None:
    """One item of ``joints``: name, type, bodies [a, b] and the type's anchors and axes."""
    el, m, name = _element(file, node, "joints", index, "a joint")
    if "type" not in m:
        raise el.fail(node, 'missing required key "type"')
    kind = string(el, m.value("type"), "type", JOINT_PARAMS)
    m.check_keys(("name", "type", "bodies") + JOINT_PARAMS[kind], ("bodies",), what=f"{kind} joint key")
    body_a, body_b = _pair(el, m.value("bodies"), "bodies")
    frame = {key: JOINT_READERS[key](el, m.value(key), key) for key in m if key in JOINT_READERS}
    _call(el, builder.add_joint, JointKind[kind.upper()], name, body_a, body_b, where=el.where, **frame)


# --------------------------------------------------------------------------------------- actuators

MOTOR_READERS = {"name": string, "joint": string, "effort": _real,
                 "coordinate": _choice("auto", *(c.name.lower() for c in Coordinate))}

LIMIT_READERS = {"name": string, "joint": string, "lower": _real, "upper": _real, "restitution": _real,
                 "coordinate": _choice("auto", *(c.name.lower() for c in Coordinate))}

SERVO_READERS = {"name": string, "joint": string, "mode": _choice(*(s.name.lower() for s in ServoMode)),
                 "kp": _real, "ki": _real, "kd": _real,
                 "limit": lambda el, node, what: number(el, node, what, positive=True, finite=False),
                 "setpoints": _setpoints, "interpolate": boolean}

SPRING_READERS = {"name": string, "bodies": _pair, "stiffness": _nonnegative, "damping": _nonnegative,
                  "rest_length": _nonnegative, "anchor_a": vector, "anchor_b": vector}


def add_motor(builder: ModelBuilder, file: str, node: Node, index: int) -> None:
    """One item of ``motors``: a constant torque [N m] or force [N] along a joint's axis."""
    el, m, name = _element(file, node, "motors", index, "a motor")
    m.check_keys(MOTOR_READERS, ("name", "joint"))
    _call(el, builder.add_motor, name, where=el.where, **_read_all(el, m, MOTOR_READERS))


def add_limit(builder: ModelBuilder, file: str, node: Node, index: int) -> None:
    """One item of ``limits``: stops on a joint's angle [rad] or position [m], with restitution."""
    el, m, name = _element(file, node, "limits", index, "a limit")
    m.check_keys(LIMIT_READERS, ("name", "joint"))
    _call(el, builder.add_limit, name, where=el.where, **_read_all(el, m, LIMIT_READERS))


def add_servo(builder: ModelBuilder, file: str, node: Node, index: int) -> None:
    """One item of ``servos``: a PID controller on a joint's angle, position or their rates."""
    el, m, name = _element(file, node, "servos", index, "a servo")
    m.check_keys(SERVO_READERS, ("name", "joint", "kp"))
    _call(el, builder.add_servo, name, where=el.where, **_read_all(el, m, SERVO_READERS))


def add_spring(builder: ModelBuilder, file: str, node: Node, index: int) -> None:
    """One item of ``springs``: a spring-damper between two body points."""
    el, m, name = _element(file, node, "springs", index, "a spring")
    m.check_keys(SPRING_READERS, ("name", "bodies", "stiffness"))
    kwargs = _read_all(el, m, SPRING_READERS, skip=("name", "bodies"))
    body_a, body_b = _pair(el, m.value("bodies"), "bodies")
    _call(el, builder.add_spring, name, body_a, body_b, where=el.where, **kwargs)


# -------------------------------------------------------------------------------------- collisions


def add_collision_rules(builder: ModelBuilder, file: str, node: Node) -> None:
    """``collisions: {exclude: [[a, b], ...], allow: [[a, b], ...]}`` (allow: jointed pairs too)."""
    el = Element(file, node, "collisions")
    m = Mapping(el, node, "collisions")
    m.check_keys(("exclude", "allow"))
    known = body_names(builder)
    for key, method in (("exclude", builder.exclude_collision), ("allow", builder.allow_collision)):
        if key not in m:
            continue
        for i, item in enumerate(sequence(el, m.value(key), key)):
            pair = _pair(el, item, f"{key}[{i}]")
            check_body(el, item, pair[0], known)
            check_body(el, item, pair[1], known)
            _call(el, method, *pair)


def body_names(builder: ModelBuilder) -> set:
    """Names a scene element may refer to: every body added so far and the ground."""
    return {"world"} | {b.name for b in builder.bodies}


def check_body(el: Element, node: Node, name: str, known: set) -> None:
    """Refuse a reference to a body the scene does not define."""
    if name not in known:
        raise el.fail(node, f'body "{name}" does not exist')
