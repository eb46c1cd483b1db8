"""The Lagrange method's constraint table: the model's primitives and the extra constraints, as flat arrays.

Each *block* is one primitive (or one extra constraint) with 1–3 scalar rows; each *element* is a user
joint of the model or one extra constraint, and owns consecutive blocks. A block between two bodies that
both have infinite mass (static or kinematic) cannot be acted on by any force and is left out; its
element's name is kept in ``ConstraintTable.skipped``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.math.linalg import basis_perpendicular
from impulsim.methods.lagrange.kinds import Row, ROW_COUNT, VELOCITY_LEVEL, TIME_DEPENDENT


@dataclass
class ConstraintTable:
    """Flat arrays of the constraint blocks (all anchors and axes in the bodies' principal frames)."""
    kind: np.ndarray
    a: np.ndarray
    b: np.ndarray
    anchor_a: np.ndarray
    anchor_b: np.ndarray
    axis_a: np.ndarray
    axis_b: np.ndarray
    perp: np.ndarray
    """Two unit vectors ⟂ axis_a in A's frame (LINE, DIRECTION rows), shape [n_blocks, 2, 3]."""
    target: np.ndarray
    qrel: np.ndarray
    vel_target: np.ndarray
    func: np.ndarray
    """f(t), ḟ(t), f̈(t) [world] of time-dependent blocks, refreshed before each evaluation, [n_blocks, 3, 3]."""
    row_start: np.ndarray
    """Rows of block i are row_start[i] .. row_start[i+1]-1, shape [n_blocks + 1]."""
    element: np.ndarray
    """Element (joint, then extra constraint) of each block, shape [n_blocks]."""
    element_names: list
    element_block_start: np.ndarray
    """Blocks of element e are element_block_start[e] .. [e+1]-1, shape [n_elements + 1]."""
    row_a: np.ndarray
    row_b: np.ndarray
    row_block: np.ndarray
    row_velocity: np.ndarray
    """1 for velocity-level rows (C is a velocity), 0 for holonomic rows, int8."""
    skipped: list
    """Elements left out because none of their bodies can move."""

    @property
    def n_blocks(self) -> int:
        return int(self.kind.shape[0])

    @property
    def n_rows(self) -> int:
        return int(self.row_start[-1])

    @property
    def n_elements(self) -> int:
        return len(self.element_names)

    def element_rows(self, e: int) -> tuple[int, int]:
        """First and one-past-last row of element e."""
        b0, b1 = self.element_block_start[e], self.element_block_start[e + 1]
        return int(self.row_start[b0]), int(self.row_start[b1])


def _block_from_prim(model, i) -> dict:
    return dict(kind=int(model.prim_kind[i]), a=int(model.prim_body_a[i]), b=int(model.prim_body_b[i]),
                anchor_a=model.prim_anchor_a[i], anchor_b=model.prim_anchor_b[i], axis_a=model.prim_axis_a[i],
                axis_b=model.prim_axis_b[i], target=float(model.prim_target[i]), qrel=model.prim_qrel[i],
                vel_target=model.prim_vel_target[i])


def _movable(model, k) -> bool:
    return model.body_inv_mass[k] > 0.0


def build_table(model, extras=()) -> ConstraintTable:
    """Collect the model's joints and the ``extras`` (objects with ``name`` and ``block(model)``)."""
    blocks, names, skipped = [], [], []
    for j in range(model.n_joints):
        prims = [_block_from_prim(model, i) for i in range(model.joint_prim_start[j], model.joint_prim_start[j + 1])]
        _append(model, model.joint_names[j], prims, blocks, names, skipped)
    for extra in extras:
        _append(model, extra.name, [extra.block(model)], blocks, names, skipped)
    return _pack(blocks, names, skipped)


def _append(model, name, prims, blocks, names, skipped):
    live = [p for p in prims if _movable(model, p["a"]) or _movable(model, p["b"])]
    if not live:
        skipped.append(name)
        return
    for p in live:
        p["element"] = len(names)
        blocks.append(p)
    names.append(name)


def _perpendiculars(axis) -> np.ndarray:
    n = np.linalg.norm(axis)
    if n == 0.0:
        return np.zeros((2, 3))
    y, z = basis_perpendicular(np.asarray(axis, float) / n)
    return np.array([y, z])


def _pack(blocks, names, skipped) -> ConstraintTable:
    n = len(blocks)
    counts = [ROW_COUNT[Row(p["kind"])] for p in blocks]
    row_start = np.zeros(n + 1, np.int64)
    row_start[1:] = np.cumsum(counts)

    def col(key, shape=(), default=0.0):
        out = np.full((n,) + shape, default, float)
        for i, p in enumerate(blocks):
            if key in p and p[key] is not None:
                out[i] = p[key]
        return out

    qrel = col("qrel", (4,))
    qrel[np.all(qrel == 0.0, axis=1)] = (1.0, 0.0, 0.0, 0.0)
    element = np.array([p["element"] for p in blocks], np.int64)
    element_block_start = np.searchsorted(element, np.arange(len(names) + 1)).astype(np.int64)
    kinds = np.array([p["kind"] for p in blocks], np.int32)
    row_block = np.repeat(np.arange(n), counts).astype(np.int64)
    velocity_kinds = [int(k) for k in VELOCITY_LEVEL]
    return ConstraintTable(
        kind=kinds, a=np.array([p["a"] for p in blocks], np.int64), b=np.array([p["b"] for p in blocks], np.int64),
        anchor_a=col("anchor_a", (3,)), anchor_b=col("anchor_b", (3,)), axis_a=col("axis_a", (3,)),
        axis_b=col("axis_b", (3,)), perp=np.array([_perpendiculars(p.get("axis_a", np.zeros(3))) for p in blocks]).reshape(n, 2, 3),
        target=col("target"), qrel=qrel, vel_target=col("vel_target", (3,)), func=np.zeros((n, 3, 3)),
        row_start=row_start, element=element, element_names=list(names), element_block_start=element_block_start,
        row_a=np.array([p["a"] for p in blocks], np.int64)[row_block] if n else np.zeros(0, np.int64),
        row_b=np.array([p["b"] for p in blocks], np.int64)[row_block] if n else np.zeros(0, np.int64),
        row_block=row_block, row_velocity=np.isin(kinds[row_block], velocity_kinds).astype(np.int8),
        skipped=list(skipped))


def time_dependent_blocks(table: ConstraintTable) -> np.ndarray:
    """Indices of the blocks whose rows read f(t)."""
    return np.nonzero(np.isin(table.kind, [int(k) for k in TIME_DEPENDENT]))[0]
