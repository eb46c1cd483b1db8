"""The impulse-based method (Bender 2007, Schmitt & Thüring 2000)."""
from impulsim.methods.impulse.method import ImpulseMethod

__all__ = ["ImpulseMethod"]
