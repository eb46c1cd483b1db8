"""Shapes and their mass properties."""
from impulsim.geometry.shapes import Shape, Sphere, Box, Cylinder, Capsule, ShapeKind
from impulsim.geometry.mass import MassProperties, combine_mass_properties, principal_frame

__all__ = ["Shape", "Sphere", "Box", "Cylinder", "Capsule", "ShapeKind", "MassProperties",
           "combine_mass_properties", "principal_frame"]
