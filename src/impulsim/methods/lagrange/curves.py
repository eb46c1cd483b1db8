"""Curves and functions of time for Wagner's constraints: they live in :mod:`impulsim.methods.curves`, shared
with the impulse method; imported here under their old place."""
from impulsim.methods.curves import BezierCurve, Polynomial  # noqa: F401
