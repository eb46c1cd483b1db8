"""Mass-point systems with distance constraints (Schmitt & Thüring 2000).

A mass-point system is its own model type: :class:`MassPointBuilder` compiles points, links, threads,
rails and kicks into a :class:`MassPointModel` and :class:`MassPointState`; :class:`MassPointMethod`
steps them with the shared call shape ``info = method.step(state, h)``; :class:`MassPointSimulation`
is the runner (``step()``, ``run(duration)``). See docs/masspoint.md.
"""
from impulsim.methods.masspoint.kinds import ConstraintKind, PointKind
from impulsim.methods.masspoint.model import MassPointModel, MassPointState
from impulsim.methods.masspoint.builder import MassPointBuilder
from impulsim.methods.masspoint.method import MassPointMethod
from impulsim.methods.masspoint.simulation import MassPointSimulation, Trajectory, record
from impulsim.methods.masspoint import diagnostics

__all__ = ["ConstraintKind", "PointKind", "MassPointModel", "MassPointState", "MassPointBuilder",
           "MassPointMethod", "MassPointSimulation", "Trajectory", "record", "diagnostics"]
