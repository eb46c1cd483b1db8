"""Primitive solid shapes in a body's user frame.

A shape has a local pose (``position`` [m], ``orientation`` quaternion w,x,y,z) relative to the frame the
user defined its body in. Shapes give mass properties (uniform density) and, in the collision layer,
geometry. Cylinders and capsules have their axis along the shape's local z. Point-set shapes (convex
hulls, triangle meshes) live in ``impulsim.geometry.pointsets`` and the half-space beside them.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np


class ShapeKind(enum.IntEnum):
    """Shape kinds; the integer is stored in flat model arrays."""
    SPHERE = 0
    BOX = 1
    CYLINDER = 2
    CAPSULE = 3
    CONVEX = 4
    """Convex polyhedron, the hull of a point set."""
    ELLIPSOID = 5
    """Solid ellipsoid with semi-axes along the shape's local x, y, z: a smooth, rolling surface."""
    HALFSPACE = 6
    """Solid below the plane z = 0 of its shape frame (a ground); no volume."""
    MESH = 7
    """Triangle mesh (static of any size, or moving against convex shapes)."""


def _vec3(v, what: str) -> np.ndarray:
    a = np.asarray(v, dtype=float)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{what} must be three finite numbers, got {v!r}")
    return a


def _unit_quat(q, what: str) -> np.ndarray:
    a = np.asarray(q, dtype=float)
    if a.shape != (4,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{what} must be a quaternion (w, x, y, z), got {q!r}")
    n = np.linalg.norm(a)
    if n < 1e-12:
        raise ValueError(f"{what} is a zero quaternion")
    return a / n


def _positive(value, what: str) -> float:
    v = float(value)
    if not (v > 0.0 and math.isfinite(v)):
        raise ValueError(f"{what} must be positive and finite, got {value!r}")
    return v


def _positive_vec3(v, what: str, each: str) -> np.ndarray:
    """Three finite numbers (``what``), each positive (``each`` names one in the error)."""
    a = _vec3(v, what)
    for x in a:
        _positive(x, each)
    return a


@dataclass
class Shape:
    """Base class: local pose of the shape in its body's user frame."""
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    orientation: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 0.0]))
    material: str | None = None
    """Material name; None takes the body's material."""

    kind = None  # set by subclasses

    def __post_init__(self):
        self.position = _vec3(self.position, "shape position")
        self.orientation = _unit_quat(self.orientation, "shape orientation")
        self._check()

    def _check(self):
        pass

    def volume(self) -> float:
        """Volume [m³]."""
        raise NotImplementedError

    def unit_inertia(self) -> np.ndarray:
        """Inertia about the shape's centre per unit mass [m²], diagonal in the shape frame, shape (3,)."""
        raise NotImplementedError

    def local_mass_properties(self, density: float):
        """(mass [kg], centre of mass [m] (3,), inertia about it [kg m²] (3, 3)), all in the shape frame.

        Primitive shapes are centred and diagonal; point-set shapes override this.
        """
        mass = density * self.volume()
        return mass, np.zeros(3), np.diag(mass * self.unit_inertia())

    def params(self) -> np.ndarray:
        """Size parameters as stored in the model, shape (3,)."""
        raise NotImplementedError

    def bounding_radius(self) -> float:
        """Radius of a sphere about the shape's centre that contains it [m]."""
        raise NotImplementedError

    def mesh_data(self):
        """(vertices [nv, 3] in the shape frame, triangles [nt, 3] int or None) for point-set shapes
        (convex hulls, triangle meshes); None for shapes described by ``params`` alone."""
        return None


@dataclass
class Sphere(Shape):
    radius: float = 0.5
    kind = ShapeKind.SPHERE

    def _check(self):
        self.radius = _positive(self.radius, "sphere radius")

    def volume(self):
        return 4.0 / 3.0 * math.pi * self.radius ** 3

    def unit_inertia(self):
        return np.full(3, 0.4 * self.radius ** 2)

    def params(self):
        return np.array([self.radius, 0.0, 0.0])

    def bounding_radius(self):
        return self.radius


@dataclass
class Box(Shape):
    """Box with full side lengths ``size`` = (a, b, c) [m] along its local x, y, z."""
    size: np.ndarray = field(default_factory=lambda: np.ones(3))
    kind = ShapeKind.BOX

    def _check(self):
        self.size = _positive_vec3(self.size, "box size", "box side length")

    def volume(self):
        return float(np.prod(self.size))

    def unit_inertia(self):
        a2, b2, c2 = self.size ** 2
        return np.array([b2 + c2, a2 + c2, a2 + b2]) / 12.0

    def params(self):
        return self.size.copy()

    def bounding_radius(self):
        return 0.5 * float(np.linalg.norm(self.size))


@dataclass
class Cylinder(Shape):
    """Solid cylinder of ``radius`` and ``length`` [m] along its local z."""
    radius: float = 0.5
    length: float = 1.0
    kind = ShapeKind.CYLINDER

    def _check(self):
        self.radius = _positive(self.radius, "cylinder radius")
        self.length = _positive(self.length, "cylinder length")

    def volume(self):
        return math.pi * self.radius ** 2 * self.length

    def unit_inertia(self):
        r2, l2 = self.radius ** 2, self.length ** 2
        return np.array([r2 / 4 + l2 / 12, r2 / 4 + l2 / 12, r2 / 2])

    def params(self):
        return np.array([self.radius, self.length, 0.0])

    def bounding_radius(self):
        return math.hypot(self.radius, 0.5 * self.length)


@dataclass
class Capsule(Shape):
    """Cylinder of ``length`` [m] along local z with hemispherical caps of ``radius``."""
    radius: float = 0.5
    length: float = 1.0
    kind = ShapeKind.CAPSULE

    def _check(self):
        self.radius = _positive(self.radius, "capsule radius")
        self.length = float(self.length)
        if not (self.length >= 0.0 and math.isfinite(self.length)):
            raise ValueError(f"capsule length must be non-negative, got {self.length!r}")

    def volume(self):
        r, l = self.radius, self.length
        return math.pi * r * r * l + 4.0 / 3.0 * math.pi * r ** 3

    def unit_inertia(self):
        r, l = self.radius, self.length
        m_cyl = math.pi * r * r * l
        m_hemi = 2.0 / 3.0 * math.pi * r ** 3
        izz = m_cyl * r * r / 2 + 2 * m_hemi * 0.4 * r * r
        # hemisphere about the capsule centre: 2/5 m r² + m (l²/4 + 3 l r / 8)
        ixx = m_cyl * (r * r / 4 + l * l / 12) + 2 * m_hemi * (0.4 * r * r + l * l / 4 + 3 * l * r / 8)
        return np.array([ixx, ixx, izz]) / (m_cyl + 2 * m_hemi)

    def params(self):
        return np.array([self.radius, self.length, 0.0])

    def bounding_radius(self):
        return self.radius + 0.5 * self.length


@dataclass
class Ellipsoid(Shape):
    """Solid ellipsoid with semi-axes ``semi_axes`` = (a, b, c) [m] along its local x, y, z.

    Unlike a convex hull of its surface points it is smooth: the contact point moves continuously over
    it as it rolls (a rattleback needs that).
    """
    semi_axes: np.ndarray = field(default_factory=lambda: np.full(3, 0.5))
    kind = ShapeKind.ELLIPSOID

    def _check(self):
        self.semi_axes = _positive_vec3(self.semi_axes, "ellipsoid semi-axes", "ellipsoid semi-axis")

    def volume(self):
        return 4.0 / 3.0 * math.pi * float(np.prod(self.semi_axes))

    def unit_inertia(self):
        a2, b2, c2 = self.semi_axes ** 2
        return np.array([b2 + c2, a2 + c2, a2 + b2]) / 5.0

    def params(self):
        return self.semi_axes.copy()

    def bounding_radius(self):
        return float(self.semi_axes.max())
