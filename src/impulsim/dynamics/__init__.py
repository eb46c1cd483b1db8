"""Stages shared by all methods: loads, free-body integration, joint coordinates, diagnostics."""
from impulsim.dynamics.integrate import Integrator
from impulsim.dynamics import diagnostics

__all__ = ["Integrator", "diagnostics"]
