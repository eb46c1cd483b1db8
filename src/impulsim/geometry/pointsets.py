"""Shapes described by point sets (convex hulls, triangle meshes) and the half-space.

Vertices are given in the shape frame [m]; the model compiler moves them into the body's principal frame
(``Model.shape_verts``). Mass properties of hulls and closed meshes come from Mirtich's algorithm
(:mod:`impulsim.geometry.polyhedron`). Shapes without a volume (half-space, open mesh) raise
:class:`~impulsim.errors.ModelError` when a mass is asked of them: put them on a static or kinematic body,
or give the body ``mass`` and ``inertia`` explicitly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from impulsim.errors import ModelError
from impulsim.geometry.hull import convex_hull
from impulsim.geometry.polyhedron import check_triangles, is_closed, mesh_mass_properties
from impulsim.geometry.shapes import Shape, ShapeKind


@dataclass
class ConvexHull(Shape):
    """Convex polyhedron: the hull of ``points`` [n >= 4, 3] given in the shape frame [m]."""
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    kind = ShapeKind.CONVEX

    def _check(self):
        self.hull = convex_hull(self.points, "ConvexHull")
        self.points = self.hull.vertices

    def local_mass_properties(self, density):
        props = mesh_mass_properties(self.hull.vertices, self.hull.triangles, density, "ConvexHull")
        return props.mass, props.com, props.inertia

    def volume(self):
        return self.local_mass_properties(1.0)[0]

    def params(self):
        return np.zeros(3)

    def bounding_radius(self):
        return float(np.max(np.linalg.norm(self.hull.vertices, axis=1)))

    def mesh_data(self):
        return self.hull.vertices, self.hull.triangles


@dataclass
class TriangleMesh(Shape):
    """Triangle mesh: ``vertices`` [nv, 3] in the shape frame [m], ``triangles`` [nt, 3] vertex indices,
    wound counter-clockwise seen from outside (the side bodies rest on).

    A closed mesh has mass properties (Mirtich); an open one (a terrain, a bobsleigh track) must sit on a
    static or kinematic body. Meshes collide with every convex shape, not with other meshes; a moving
    non-convex body is better built as several :class:`ConvexHull` parts.
    """
    vertices: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    triangles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int64))
    kind = ShapeKind.MESH

    def _check(self):
        self.vertices, self.triangles = check_triangles(self.vertices, self.triangles, "TriangleMesh")

    @property
    def closed(self) -> bool:
        """True if the mesh encloses a volume (every edge shared by two triangles with opposite winding)."""
        return is_closed(self.triangles)

    def local_mass_properties(self, density):
        props = mesh_mass_properties(self.vertices, self.triangles, density, "TriangleMesh")
        return props.mass, props.com, props.inertia

    def volume(self):
        return self.local_mass_properties(1.0)[0]

    def params(self):
        return np.zeros(3)

    def bounding_radius(self):
        return float(np.max(np.linalg.norm(self.vertices, axis=1)))

    def mesh_data(self):
        return self.vertices, self.triangles


@dataclass
class HalfSpace(Shape):
    """Everything below the plane z = 0 of the shape frame (outward normal +z): a ground.

    With the default pose it is the world's ground plane z = 0. It has no volume and no mass.
    """
    kind = ShapeKind.HALFSPACE

    def local_mass_properties(self, density):
        raise ModelError("HalfSpace has no volume and no mass: put it on a static or kinematic body "
                         "(e.g. the ground), or give the body mass and inertia explicitly")

    def volume(self):
        return self.local_mass_properties(1.0)[0]

    def params(self):
        return np.zeros(3)

    def bounding_radius(self):
        return float("inf")
