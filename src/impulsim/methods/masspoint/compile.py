"""Validate a MassPointBuilder's description and compile it into flat arrays."""
from __future__ import annotations

import numpy as np

from impulsim.errors import ModelError
from impulsim.methods.masspoint.kinds import ConstraintKind, PointKind
from impulsim.methods.masspoint.model import MassPointModel, MassPointState


def compile_model(builder, initial_tolerance: float):
    """Return ``(MassPointModel, MassPointState)`` or raise ModelError naming the element."""
    if not builder.points:
        raise ModelError(f'mass-point system "{builder.name}": has no points')
    index = _point_index(builder.points)
    pos = np.array([p.position for p in builder.points], dtype=float)
    point = _point_arrays(builder.points)
    con = _constraint_arrays(builder.constraints, index, pos, point, initial_tolerance)
    kick = _kick_arrays(builder.kicks, index, point["point_kind"])
    model = MassPointModel(name=builder.name, gravity=builder.gravity.copy(),
                           point_names=tuple(p.name for p in builder.points), **point, **con, **kick)
    state = MassPointState(t=0.0, step_count=0, point_pos=pos,
                           point_vel=np.array([p.velocity for p in builder.points], dtype=float),
                           point_force=np.zeros_like(pos))
    return model, state


def _point_index(points) -> dict:
    index = {}
    for k, p in enumerate(points):
        if p.name in index:
            raise ModelError(f'points[{k}] "{p.name}": name already used by points[{index[p.name]}]')
        index[p.name] = k
    return index


def _projector(kind: PointKind, axis: np.ndarray) -> np.ndarray:
    """A = E (free), a aᵀ (line), E − n nᵀ (plane), 0 (fixed)."""
    if kind == PointKind.FREE:
        return np.eye(3)
    if kind == PointKind.LINE:
        return np.outer(axis, axis)
    if kind == PointKind.PLANE:
        return np.eye(3) - np.outer(axis, axis)
    return np.zeros((3, 3))


def _point_arrays(points) -> dict:
    kind = np.array([p.kind for p in points], dtype=np.int8)
    mass = np.array([p.mass for p in points], dtype=float)
    inv_mass = np.where(kind == PointKind.FIXED, 0.0, 1.0 / np.where(mass > 0, mass, 1.0))
    return dict(point_kind=kind, point_mass=mass, point_inv_mass=inv_mass,
                point_proj=np.array([_projector(p.kind, p.axis) for p in points], dtype=float),
                point_axis=np.array([p.axis for p in points], dtype=float).reshape(-1, 3))


def _constraint_arrays(specs, index, pos, point, tol) -> dict:
    kind, ci, cj, length, seen = [], [], [], [], {}
    for k, c in enumerate(specs):
        label = f'constraints[{k}] "{c.name}"'
        i, j = _constraint_points(label, c, index)
        pair = (min(i, j), max(i, j))
        if pair in seen:
            raise ModelError(f"{label}: points \"{c.a}\" and \"{c.b}\" are already linked by "
                             f"constraints[{seen[pair]}] (store each pair once)")
        seen[pair] = k
        d0 = float(np.linalg.norm(pos[j] - pos[i]))
        d = d0 if c.length is None else c.length
        _check_initial(label, c, d0, d, tol)
        _check_movable(label, c, i, j, pos, point)
        kind.append(c.kind)
        ci.append(i)
        cj.append(j)
        length.append(d)
    names = tuple(_unique_names(specs))
    return dict(con_names=names, con_kind=np.array(kind, dtype=np.int32),
                con_i=np.array(ci, dtype=np.int64), con_j=np.array(cj, dtype=np.int64),
                con_length=np.array(length, dtype=float))


def _constraint_points(label, c, index):
    for p in (c.a, c.b):
        if p not in index:
            raise ModelError(f'{label}: point "{p}" does not exist')
    if c.a == c.b:
        raise ModelError(f'{label}: links point "{c.a}" to itself')
    return index[c.a], index[c.b]


def _check_initial(label, c, d0, d, tol):
    if d0 == 0.0:
        raise ModelError(f'{label}: points "{c.a}" and "{c.b}" coincide at t = 0, so the link has '
                         "no direction")
    if c.kind == ConstraintKind.DISTANCE and abs(d0 - d) > tol:
        raise ModelError(f"{label}: initial distance {d0:.12g} m differs from the length {d:.12g} m by "
                         f"more than {tol:g} m (the method needs a consistent start)")
    if c.kind == ConstraintKind.THREAD and d0 > d + tol:
        raise ModelError(f"{label}: initial distance {d0:.12g} m exceeds the thread length {d:.12g} m")


def _check_movable(label, c, i, j, pos, point):
    """The link must be correctable: e·W_i e + e·W_j e > 0 along its initial direction e."""
    e = (pos[j] - pos[i]) / np.linalg.norm(pos[j] - pos[i])
    k = sum(point["point_inv_mass"][p] * float(e @ point["point_proj"][p] @ e) for p in (i, j))
    if k <= 1e-12 * max(point["point_inv_mass"][i], point["point_inv_mass"][j], 1.0):
        raise ModelError(f'{label}: neither "{c.a}" nor "{c.b}" can move along the link '
                         "(both fixed, or rails perpendicular to it)")


def _unique_names(specs):
    seen = {}
    for k, c in enumerate(specs):
        if c.name in seen:
            raise ModelError(f'constraints[{k}] "{c.name}": name already used by constraints[{seen[c.name]}]')
        seen[c.name] = k
        yield c.name


def _kick_arrays(kicks, index, point_kind) -> dict:
    pts = []
    for k, kick in enumerate(kicks):
        label = f'kicks[{k}] on "{kick.point}"'
        if kick.point not in index:
            raise ModelError(f'{label}: point "{kick.point}" does not exist')
        if point_kind[index[kick.point]] == PointKind.FIXED:
            raise ModelError(f"{label}: the point is fixed, a force on it would have no effect")
        pts.append(index[kick.point])
    return dict(kick_point=np.array(pts, dtype=np.int64),
                kick_force=np.array([k.force for k in kicks], dtype=float).reshape(-1, 3),
                kick_start=np.array([k.start for k in kicks], dtype=float),
                kick_end=np.array([k.end for k in kicks], dtype=float))
