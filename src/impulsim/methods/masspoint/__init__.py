"""Mass-point systems with distance constraints (Schmitt & Thüring 2000), on the shared Model and State.

A mass-point system is an ordinary model of point masses (``ModelBuilder.add_point``), static bodies
(suspension points), distance and thread joints, point-on-line / point-on-plane rails and timed loads;
:class:`MassPointMethod` ("masspoint") steps it with the shared call shape ``info = method.step(state, h)``
and refuses everything else by name. :class:`MassPointBuilder` is a convenience that writes such a model
point by point. See docs/masspoint.md.
"""
from impulsim.methods.masspoint.system import PointSystem, point_system
from impulsim.methods.masspoint.builder import MassPointBuilder
from impulsim.methods.masspoint.method import MassPointMethod
from impulsim.methods.masspoint.trajectory import Trajectory, record
from impulsim.methods.masspoint import diagnostics

__all__ = ["PointSystem", "point_system", "MassPointBuilder", "MassPointMethod", "Trajectory", "record",
           "diagnostics"]
