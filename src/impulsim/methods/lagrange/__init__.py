"""The Lagrange-multiplier method (Wagner 2001; Baraff 1996): dense, sparse (Baraff) and SVD solvers,
Baumgarte stabilization, explicit and adaptive Runge–Kutta, and Wagner's extra constraints and force
elements."""
from impulsim.methods.lagrange.method import LagrangeMethod, ConstraintForces
from impulsim.methods.lagrange.constraints import (PointToFunction, PointToPath, EqualVelocity,
                                                   VelocityToFunction)
from impulsim.methods.lagrange.curves import BezierCurve, Polynomial
from impulsim.methods.lagrange.forces import (VectorForce, SpringForce, TrajectoryForce, GravityField,
                                              DampingField, RadialField, ForceElementsHook)

__all__ = ["LagrangeMethod", "ConstraintForces", "PointToFunction", "PointToPath", "EqualVelocity",
           "VelocityToFunction", "BezierCurve", "Polynomial", "VectorForce", "SpringForce", "TrajectoryForce",
           "GravityField", "DampingField", "RadialField", "ForceElementsHook"]
