"""Orientations in scene files: quaternion, axis-angle, or roll-pitch-yaw.

Three spellings of the same thing, all giving the rotation from the body's (or shape's) frame to its
parent frame (the world for bodies, the body's user frame for shapes):

* ``[w, x, y, z]`` — a quaternion, scalar first; normalized on reading.
* ``{axis: [x, y, z], angle: a}`` — rotation by ``a`` radians about ``axis`` (``angle_deg`` for degrees).
* ``{rpy: [roll, pitch, yaw]}`` — fixed-axis x-y-z angles in radians (``rpy_deg`` for degrees):
  first roll about world x, then pitch about world y, then yaw about world z, i.e.
  R = Rz(yaw) · Ry(pitch) · Rx(roll). This is the same rotation as intrinsic z-y'-x'' (yaw, pitch, roll)
  and the convention of URDF's ``rpy``.
"""
from __future__ import annotations

import math

import numpy as np
from yaml.nodes import Node, SequenceNode

from impulsim.io.yamlnodes import Element, Mapping, number, vector
from impulsim.math import quat_from_axis_angle, quat_mul

_FORMS = ("axis", "angle", "angle_deg", "rpy", "rpy_deg")


def orientation(el: Element, node: Node, what: str = "orientation") -> np.ndarray:
    """Unit quaternion (w, x, y, z) from any of the three spellings."""
    if isinstance(node, SequenceNode):
        q = vector(el, node, f"{what} (quaternion w, x, y, z)", 4)
        norm = float(np.linalg.norm(q))
        if norm < 1e-12:
            raise el.fail(node, f"{what} is a zero quaternion")
        return q / norm
    m = Mapping(el, node, f"{what} (a quaternion list, {{axis, angle}} or {{rpy}})")
    m.check_keys(_FORMS, what=f"{what} key")
    if "axis" in m:
        return _axis_angle(el, m, what)
    for key, scale in (("rpy", 1.0), ("rpy_deg", math.pi / 180.0)):
        if key in m:
            if len(m.items) != 1:
                raise el.fail(node, f"{what}: give {key} alone")
            roll, pitch, yaw = vector(el, m.value(key), f"{what} {key}") * scale
            return rpy_to_quat(roll, pitch, yaw)
    raise el.fail(node, f"{what} needs axis and angle (or angle_deg), or rpy (or rpy_deg)")


def _axis_angle(el: Element, m: Mapping, what: str) -> np.ndarray:
    axis = vector(el, m.value("axis"), f"{what} axis")
    if np.linalg.norm(axis) < 1e-12:
        raise el.fail(m.value("axis"), f"{what} axis has zero length")
    given = [k for k in ("angle", "angle_deg") if k in m]
    if len(given) != 1 or len(m.items) != 2:
        raise el.fail(m.node, f"{what} with an axis needs exactly one of angle, angle_deg")
    angle = number(el, m.value(given[0]), f"{what} {given[0]}")
    if given[0] == "angle_deg":
        angle = math.radians(angle)
    return quat_from_axis_angle(axis / np.linalg.norm(axis), angle)


def rpy_to_quat(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Quaternion of R = Rz(yaw) Ry(pitch) Rx(roll) (angles in radians)."""
    qx = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), roll)
    qy = quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), pitch)
    qz = quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), yaw)
    return quat_mul(qz, quat_mul(qy, qx))
