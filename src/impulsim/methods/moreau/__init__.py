"""Moreau's midpoint time-stepping with prox solvers (Rempfler 2015, ch. 2; see docs/moreau.md)."""
from impulsim.methods.moreau.laws import FrictionLaw, RunnerFriction
from impulsim.methods.moreau.method import MoreauMethod

__all__ = ["MoreauMethod", "RunnerFriction", "FrictionLaw"]
