"""Shapes, their mass properties (incl. closed meshes by Mirtich's algorithm), convex hulls and BVHs."""
from impulsim.geometry.shapes import Shape, Sphere, Box, Cylinder, Capsule, Ellipsoid, ShapeKind
from impulsim.geometry.pointsets import ConvexHull, TriangleMesh, HalfSpace
from impulsim.geometry.mass import MassProperties, combine_mass_properties, principal_frame
from impulsim.geometry.polyhedron import mesh_mass_properties
from impulsim.geometry.hull import convex_hull, HullTopology

__all__ = ["Shape", "Sphere", "Box", "Cylinder", "Capsule", "Ellipsoid", "ConvexHull", "TriangleMesh", "HalfSpace",
           "ShapeKind", "MassProperties", "combine_mass_properties", "principal_frame",
           "mesh_mass_properties", "convex_hull", "HullTopology"]
