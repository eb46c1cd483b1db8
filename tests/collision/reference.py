"""Independent references for collision tests: support functions and signed distance functions in NumPy.

Nothing here uses the collision package. For two convex sets A and B, the separation along a unit u,
    s(u) = min_{a∈A} a·u − max_{b∈B} b·u = −h_A(−u) − h_B(u),
is a lower bound of their signed distance for every u (distance when apart, minus the penetration depth
when they overlap), and the bound is attained at the true normal (convex duality). So a detector result
(d, n) is right iff s(n) = d and s(u) ≤ d for all u — checked on a dense set of directions.
"""
from __future__ import annotations

import numpy as np

import impulsim as ims
from impulsim.geometry import ShapeKind
from impulsim.math import quat_mul, quat_to_matrix


def fibonacci_sphere(n: int) -> np.ndarray:
    """n roughly uniform unit vectors, shape [n, 3]."""
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    theta = np.pi * (1 + 5 ** 0.5) * i
    return np.stack([np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)], axis=1)


class WorldShape:
    """One model shape at the state's pose: centre c, rotation R (shape axes as columns), kind, params."""

    def __init__(self, model, state, s):
        b = model.shape_body[s]
        q = quat_mul(state.body_quat[b], model.shape_quat[s])
        Rb = quat_to_matrix(np.ascontiguousarray(state.body_quat[b]))
        self.kind = int(model.shape_kind[s])
        self.R = quat_to_matrix(np.ascontiguousarray(q))
        self.c = state.body_pos[b] + Rb @ model.shape_pos[s]
        self.p = model.shape_params[s]
        v = model.shape_verts[model.shape_vert_start[s]:model.shape_vert_start[s + 1]]
        self.verts = state.body_pos[b] + v @ Rb.T      # point sets are stored in the body frame

    def support(self, U: np.ndarray) -> np.ndarray:
        """Support values h(u) = max_x x·u for unit rows of U, shape [n]."""
        k, R, c, p = self.kind, self.R, self.c, self.p
        L = U @ R                                      # directions in the shape frame
        base = U @ c
        if k == ShapeKind.SPHERE:
            return base + p[0]
        if k == ShapeKind.BOX:
            return base + np.abs(L) @ (0.5 * p)
        if k == ShapeKind.CAPSULE:
            return base + 0.5 * p[1] * np.abs(L[:, 2]) + p[0]
        if k == ShapeKind.CYLINDER:
            return base + 0.5 * p[1] * np.abs(L[:, 2]) + p[0] * np.hypot(L[:, 0], L[:, 1])
        if k == ShapeKind.CONVEX:
            return np.max(U @ self.verts.T, axis=1)
        if k == ShapeKind.ELLIPSOID:
            return base + np.linalg.norm(L * p, axis=1)
        raise ValueError(k)

    def sdf(self, x: np.ndarray) -> float:
        """Signed distance of the point x to the shape's surface (exact for primitives; for hulls the
        largest face-plane distance, which is 0 exactly on the surface)."""
        k, p = self.kind, self.p
        y = self.R.T @ (x - self.c)
        if k == ShapeKind.SPHERE:
            return np.linalg.norm(y) - p[0]
        if k == ShapeKind.BOX:
            q = np.abs(y) - 0.5 * p
            return np.linalg.norm(np.maximum(q, 0)) + min(q.max(), 0.0)
        if k == ShapeKind.CAPSULE:
            z = np.clip(y[2], -0.5 * p[1], 0.5 * p[1])
            return np.linalg.norm(y - np.array([0, 0, z])) - p[0]
        if k == ShapeKind.CYLINDER:
            q = np.array([np.hypot(y[0], y[1]) - p[0], abs(y[2]) - 0.5 * p[1]])
            return np.linalg.norm(np.maximum(q, 0)) + min(q.max(), 0.0)
        if k == ShapeKind.CONVEX:
            from scipy.spatial import ConvexHull
            eq = ConvexHull(self.verts).equations
            return float(np.max(eq[:, :3] @ x + eq[:, 3]))
        if k == ShapeKind.ELLIPSOID:
            # (|A⁻¹ y| − 1) times the smallest semi-axis: zero exactly on the surface, and within the
            # ratio of the semi-axes of the true distance near it
            return (np.linalg.norm(y / p) - 1.0) * p.min()
        raise ValueError(k)


def separation(a: WorldShape, b: WorldShape, U: np.ndarray) -> np.ndarray:
    """s(u) = −h_A(−u) − h_B(u) for unit rows u of U (u points from B towards A)."""
    return -a.support(-U) - b.support(U)


def shape_of(kind: ShapeKind, rng: np.random.Generator):
    """A random shape of ``kind`` with sizes in [0.2, 2] m (hulls: 6–16 points in a 0.3–1 m ball)."""
    if kind == ShapeKind.SPHERE:
        return ims.Sphere(radius=rng.uniform(0.1, 1.0))
    if kind == ShapeKind.BOX:
        return ims.Box(size=rng.uniform(0.2, 2.0, 3))
    if kind == ShapeKind.CYLINDER:
        return ims.Cylinder(radius=rng.uniform(0.1, 1.0), length=rng.uniform(0.2, 2.0))
    if kind == ShapeKind.CAPSULE:
        return ims.Capsule(radius=rng.uniform(0.1, 1.0), length=rng.uniform(0.0, 2.0))
    if kind == ShapeKind.CONVEX:
        from impulsim.geometry import ConvexHull
        pts = rng.normal(size=(int(rng.integers(6, 17)), 3))
        pts *= rng.uniform(0.3, 1.0) / np.linalg.norm(pts, axis=1, keepdims=True).max()
        return ConvexHull(points=pts)
    if kind == ShapeKind.ELLIPSOID:
        return ims.Ellipsoid(semi_axes=rng.uniform(0.1, 1.0, 3))
    raise ValueError(kind)


def random_quat(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def two_body_model(shape_a, shape_b, pos_a, quat_a, pos_b, quat_b):
    """Model with two free bodies carrying one shape each (shape 0 on body 1, shape 1 on body 2)."""
    b = ims.ModelBuilder("pair", gravity=(0, 0, 0))
    b.add_body("a", shapes=[shape_a], position=pos_a, orientation=quat_a)
    b.add_body("b", shapes=[shape_b], position=pos_b, orientation=quat_b)
    return b.build()
