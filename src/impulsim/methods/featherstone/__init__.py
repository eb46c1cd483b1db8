"""Featherstone's articulated-body method in reduced coordinates, with Mirtich's impulses and Holck's
impulse-based joint limits (Holck 2005)."""
from impulsim.methods.featherstone.method import FeatherstoneMethod

__all__ = ["FeatherstoneMethod"]
