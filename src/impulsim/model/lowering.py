"""Lowering of user-level joints to the basic constraints (Bender 3.2.4).

Hinge = ball + direction; cylindrical = line + direction; slider = line + rotation lock;
universal = ball + double rotation; fixed = ball + rotation lock.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from impulsim.errors import ModelError
from impulsim.math import quat_mul, quat_conj, quat_rotate
from impulsim.math.plain import plain
from impulsim.model.kinds import JointKind, Prim

# called once per joint: run as Python (compiling them would cost seconds on an empty cache)
quat_mul, quat_conj, quat_rotate = map(plain, (quat_mul, quat_conj, quat_rotate))


@dataclass
class JointFrame:
    """A joint's bodies and its anchors/axes in their principal frames (None where not given)."""
    a: int
    b: int
    anchor_a: Optional[np.ndarray]
    anchor_b: Optional[np.ndarray]
    axis_a: Optional[np.ndarray]
    axis_b: Optional[np.ndarray]
    quat_a: np.ndarray
    quat_b: np.ndarray
    pos_a: np.ndarray
    pos_b: np.ndarray
    length: Optional[float] = None
    velocity: Optional[np.ndarray] = None
    angular_velocity: Optional[np.ndarray] = None


def _prim(kind, f: JointFrame, *, anchor_a=None, anchor_b=None, axis_a=None, axis_b=None,
          target=0.0, qrel=None, vel_target=None) -> dict:
    z = np.zeros(3)
    return dict(kind=int(kind), a=f.a, b=f.b,
                anchor_a=z if anchor_a is None else anchor_a, anchor_b=z if anchor_b is None else anchor_b,
                axis_a=z if axis_a is None else axis_a, axis_b=z if axis_b is None else axis_b,
                target=float(target), qrel=np.array([1.0, 0, 0, 0]) if qrel is None else qrel,
                vel_target=z if vel_target is None else vel_target)


def _need(f: JointFrame, label: str, *names):
    for n in names:
        if getattr(f, n) is None:
            raw = {"anchor_a": "anchor", "anchor_b": "anchor", "axis_a": "axis", "axis_b": "axis"}[n]
            raise ModelError(f"{label}: needs {raw} (or {raw}_a/{raw}_b)")


def _world_point(f: JointFrame, which: str):
    if which == "a":
        return f.pos_a + quat_rotate(f.quat_a, f.anchor_a)
    return f.pos_b + quat_rotate(f.quat_b, f.anchor_b)


def ball(f, label):
    _need(f, label, "anchor_a", "anchor_b")
    return _prim(Prim.BALL, f, anchor_a=f.anchor_a, anchor_b=f.anchor_b)


def distance(f, label):
    _need(f, label, "anchor_a", "anchor_b")
    initial = float(np.linalg.norm(_world_point(f, "b") - _world_point(f, "a")))
    length = initial if f.length is None else f.length
    if not (np.isfinite(length) and length >= 0):
        raise ModelError(f"{label}: length must be non-negative, got {f.length}")
    if length == 0.0:
        return ball(f, label)
    return _prim(Prim.DISTANCE, f, anchor_a=f.anchor_a, anchor_b=f.anchor_b, target=length)


def thread(f, label):
    _need(f, label, "anchor_a", "anchor_b")
    initial = float(np.linalg.norm(_world_point(f, "b") - _world_point(f, "a")))
    length = initial if f.length is None else f.length
    if not (np.isfinite(length) and length > 0):
        raise ModelError(f"{label}: a thread's length must be positive, got {length!r}")
    return _prim(Prim.THREAD, f, anchor_a=f.anchor_a, anchor_b=f.anchor_b, target=length)


def line(f, label):
    _need(f, label, "anchor_a", "anchor_b", "axis_a")
    return _prim(Prim.LINE, f, anchor_a=f.anchor_a, anchor_b=f.anchor_b, axis_a=f.axis_a)


def plane(f, label):
    _need(f, label, "anchor_a", "anchor_b", "axis_a")
    return _prim(Prim.PLANE, f, anchor_a=f.anchor_a, anchor_b=f.anchor_b, axis_a=f.axis_a)


def rotation_lock(f, label):
    return _prim(Prim.ROTATION_LOCK, f, qrel=quat_mul(quat_conj(f.quat_a), f.quat_b))


def direction(f, label):
    _need(f, label, "axis_a", "axis_b")
    wa, wb = quat_rotate(f.quat_a, f.axis_a), quat_rotate(f.quat_b, f.axis_b)
    if np.dot(wa, wb) < 1.0 - 1e-6:
        raise ModelError(f"{label}: axis_a and axis_b must be parallel at the initial pose")
    return _prim(Prim.DIRECTION, f, axis_a=f.axis_a, axis_b=f.axis_b)


def double_rotation(f, label):
    _need(f, label, "axis_a", "axis_b")
    wa, wb = quat_rotate(f.quat_a, f.axis_a), quat_rotate(f.quat_b, f.axis_b)
    sin = np.linalg.norm(np.cross(wa, wb))
    if sin < 1e-3:
        raise ModelError(f"{label}: axis_a and axis_b must not be parallel")
    return _prim(Prim.DOUBLE_ROTATION, f, axis_a=f.axis_a, axis_b=f.axis_b,
                 target=np.arctan2(sin, np.dot(wa, wb)))


def velocity(f, label):
    out = []
    if f.velocity is not None:
        _need(f, label, "anchor_a", "anchor_b")
        out.append(_prim(Prim.VEL_POINT, f, anchor_a=f.anchor_a, anchor_b=f.anchor_b,
                         vel_target=f.velocity))
    if f.angular_velocity is not None:
        out.append(_prim(Prim.VEL_ANGULAR, f, vel_target=f.angular_velocity))
    if not out:
        raise ModelError(f"{label}: a velocity joint needs velocity and/or angular_velocity")
    return out


def _universal_axes(f, label):
    if f.axis_a is None or f.axis_b is None:
        raise ModelError(f"{label}: a universal joint needs axis_a and axis_b")


_LOWERING = {
    JointKind.BALL: lambda f, l: [ball(f, l)],
    JointKind.DISTANCE: lambda f, l: [distance(f, l)],
    JointKind.POINT_ON_LINE: lambda f, l: [line(f, l)],
    JointKind.POINT_ON_PLANE: lambda f, l: [plane(f, l)],
    JointKind.ROTATION_LOCK: lambda f, l: [rotation_lock(f, l)],
    JointKind.DIRECTION: lambda f, l: [direction(f, l)],
    JointKind.DOUBLE_ROTATION: lambda f, l: [double_rotation(f, l)],
    JointKind.HINGE: lambda f, l: [ball(f, l), direction(f, l)],
    JointKind.CYLINDRICAL: lambda f, l: [line(f, l), direction(f, l)],
    JointKind.SLIDER: lambda f, l: [line(f, l), rotation_lock(f, l)],
    JointKind.UNIVERSAL: lambda f, l: (_universal_axes(f, l), [ball(f, l), double_rotation(f, l)])[1],
    JointKind.FIXED: lambda f, l: [ball(f, l), rotation_lock(f, l)],
    JointKind.VELOCITY: velocity,
    JointKind.THREAD: lambda f, l: [thread(f, l)],
}


def lower_joint(kind: JointKind, frame: JointFrame, label: str) -> list[dict]:
    """The primitive constraint records of one joint."""
    return _LOWERING[kind](frame, label)
