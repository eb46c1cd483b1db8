"""Shapes in scene files: a table from the YAML key to the shape class and its parameters.

A body's ``shapes`` list holds one-key mappings, the key naming the kind::

    shapes:
      - box: {size: [0.1, 0.1, 1.0]}
      - sphere: {radius: 0.2, position: [0, 0, -0.5], material: rubber}
      - cylinder: {radius: 0.1, length: 0.5}          # axis along the shape's z, as capsule
      - capsule: {radius: 0.1, length: 0.5}
      - ellipsoid: {semi_axes: [0.2, 0.05, 0.04]}     # along the shape's x, y, z
      - convex_hull: {points: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}
      - mesh: {vertices: [[x, y, z], ...], triangles: [[0, 1, 2], ...]}   # counter-clockwise from outside
      - mesh: {file: part.stl, scale: 0.001}          # OBJ, STL, PLY, glTF/GLB; path relative to the scene
      - half_space:                                   # everything below z = 0 of the shape frame

Every kind also takes ``position`` [m], ``orientation`` (see :mod:`impulsim.io.rotations`) in the
body's user frame, and ``material``. A new shape class becomes available in scene files with one
:func:`register_shape_type` call (or one line in ``SHAPE_TYPES``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from yaml.nodes import Node

from impulsim.geometry import Box, Capsule, ConvexHull, Cylinder, Ellipsoid, HalfSpace, Sphere, TriangleMesh
from impulsim import limits
from impulsim.io.rotations import orientation
from impulsim.io.yamlnodes import Element, Mapping, integer, number, sequence, string, vector

Reader = Callable[[Element, Node, str], Any]


def _length_in_range(el: Element, node: Node, what: str, values) -> None:
    """Shape lengths lie in [MIN_LENGTH, MAX_LENGTH] (zero allowed where the caller allows it)."""
    for v in np.atleast_1d(values):
        if abs(v) > limits.MAX_LENGTH or 0 < abs(v) < limits.MIN_LENGTH:
            raise el.fail(node, f"{what} must lie between {limits.MIN_LENGTH:g} and {limits.MAX_LENGTH:g} m, "
                                f"got {float(v):g}")


def positive(el: Element, node: Node, what: str) -> float:
    """A positive finite number (a length [m])."""
    v = number(el, node, what, positive=True)
    _length_in_range(el, node, what, v)
    return v


def nonnegative(el: Element, node: Node, what: str) -> float:
    """A finite number ≥ 0 (a length [m])."""
    v = number(el, node, what, nonnegative=True)
    _length_in_range(el, node, what, v)
    return v


def positive_vector(el: Element, node: Node, what: str) -> np.ndarray:
    """Three positive finite numbers (side lengths [m])."""
    v = vector(el, node, what)
    if np.any(v <= 0):
        raise el.fail(node, f"{what} must be positive, got {[float(x) for x in v]}")
    _length_in_range(el, node, what, v)
    return v


def points(el: Element, node: Node, what: str) -> np.ndarray:
    """A list of points ``[[x, y, z], ...]`` [m], shape (n, 3)."""
    items = sequence(el, node, what)
    if not items:
        raise el.fail(node, f"{what} must not be empty")
    out = np.array([vector(el, item, f"{what} entries") for item in items]).reshape(len(items), 3)
    if np.abs(out).max() > limits.MAX_LENGTH:
        raise el.fail(node, f"{what} must lie within ±{limits.MAX_LENGTH:g} m")
    return out


def triangles(el: Element, node: Node, what: str) -> np.ndarray:
    """A list of vertex-index triples ``[[i, j, k], ...]``, shape (n, 3)."""
    rows = []
    for item in sequence(el, node, what):
        corners = sequence(el, item, f"{what} entries")
        if len(corners) != 3:
            raise el.fail(item, f"{what} entries must be three vertex indices, got {len(corners)}")
        rows.append([integer(el, c, f"{what} indices", minimum=0) for c in corners])
    return np.array(rows, np.int64).reshape(len(rows), 3)


@dataclass(frozen=True)
class ShapeType:
    """How a YAML shape key maps to a shape class: its constructor and each parameter's reader."""
    cls: type
    params: dict
    """Parameter name -> reader(element, node, what) returning the constructor argument."""
    required: tuple = ()


SHAPE_TYPES: dict[str, ShapeType] = {
    "sphere": ShapeType(Sphere, {"radius": positive}, ("radius",)),
    "box": ShapeType(Box, {"size": positive_vector}, ("size",)),
    "cylinder": ShapeType(Cylinder, {"radius": positive, "length": positive}, ("radius", "length")),
    "capsule": ShapeType(Capsule, {"radius": positive, "length": nonnegative}, ("radius", "length")),
    "ellipsoid": ShapeType(Ellipsoid, {"semi_axes": positive_vector}, ("semi_axes",)),
    "convex_hull": ShapeType(ConvexHull, {"points": points}, ("points",)),
    "mesh": ShapeType(lambda **kw: _scene_mesh(**kw), {"vertices": points, "triangles": triangles,
                                                     "file": lambda el, node, what: _mesh_file(el, node, what),
                                                     "scale": lambda el, node, what: _mesh_scale(el, node, what)}),
    "half_space": ShapeType(HalfSpace, {}),
}

_POSE_READERS: dict[str, Reader] = {
    "position": vector,
    "orientation": orientation,
    "material": string,
}


def _scene_mesh(**kw):
    from impulsim.io.meshfiles import scene_mesh
    return scene_mesh(**kw)


def _mesh_file(el: Element, node: Node, what: str) -> str:
    """A mesh file (OBJ, STL, PLY, glTF/GLB) named relative to the scene file."""
    from pathlib import Path
    return str(Path(el.file).parent / string(el, node, what))


def _mesh_scale(el: Element, node: Node, what: str):
    """A mesh scale: one factor or three per-axis factors."""
    if node.tag == "tag:yaml.org,2002:seq":
        return vector(el, node, what)
    return number(el, node, what)


def register_shape_type(key: str, cls: type, params: dict, required: tuple = ()) -> None:
    """Make ``key: {...}`` in a body's ``shapes`` list build ``cls(**params)``."""
    SHAPE_TYPES[key] = ShapeType(cls, dict(params), tuple(required))


_plugins_loaded = False


def load_shape_plugins() -> None:
    """Import the modules that packages declare under the entry-point group ``impulsim.shapes`` (each calls
    :func:`register_shape_type`), once. Applications add shape kinds this way (the bobsleigh's ``track``)
    without the scene reader importing them."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points
    for point in entry_points(group="impulsim.shapes"):
        point.load()


def read_shape(body: Element, node: Node, index: int):
    """The shape object described by one item of a body's ``shapes`` list."""
    el = body.child(node, f"shapes[{index}]")
    item = Mapping(el, node, "a shape")
    load_shape_plugins()
    if len(item.items) != 1:
        kinds = ", ".join(SHAPE_TYPES)
        raise el.fail(node, f"a shape is one key naming its kind ({kinds}), got {len(item.items)} keys")
    item.check_keys(SHAPE_TYPES, what="shape kind")
    kind = next(iter(item))
    spec = SHAPE_TYPES[kind]
    el.relabel(f"{el.label} ({kind})")
    value = item.value(kind)
    if value.tag == "tag:yaml.org,2002:null" and not spec.required:
        return _construct(el, node, spec, {})          # e.g. "- half_space:" with the default pose
    params = Mapping(el, value, f"{kind} parameters")
    readers = {**spec.params, **_POSE_READERS}
    params.check_keys(readers, spec.required, what=f"{kind} parameter")
    kwargs = {key: readers[key](el, params.value(key), key) for key in params}
    return _construct(el, node, spec, kwargs)


def _construct(el: Element, node: Node, spec: ShapeType, kwargs: dict):
    try:
        return spec.cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise el.fail(node, " ".join(str(exc).split())) from None
