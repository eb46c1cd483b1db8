"""Model description: builder, compiled Model, mutable State."""
from impulsim.model.builder import ModelBuilder, WORLD
from impulsim.model.model import Model
from impulsim.model.state import State
from impulsim.model.kinds import Prim, JointKind, Coordinate, ServoMode
from impulsim.model.specs import Material

__all__ = ["ModelBuilder", "WORLD", "Model", "State", "Prim", "JointKind", "Coordinate", "ServoMode",
           "Material"]
