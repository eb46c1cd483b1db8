"""Primitive kinds as plain integers for the kernels (mirrors impulsim.model.kinds.Prim)."""

from impulsim.kernel import njit
from impulsim.model.kinds import Prim

BALL = int(Prim.BALL)
DISTANCE = int(Prim.DISTANCE)
LINE = int(Prim.LINE)
PLANE = int(Prim.PLANE)
ROTATION_LOCK = int(Prim.ROTATION_LOCK)
DIRECTION = int(Prim.DIRECTION)
DOUBLE_ROTATION = int(Prim.DOUBLE_ROTATION)
VEL_POINT = int(Prim.VEL_POINT)
VEL_ANGULAR = int(Prim.VEL_ANGULAR)


@njit(cache=True, forceinline=True)
def is_translational(kind):
    """True for primitives that act with a linear impulse at a point."""
    return kind == BALL or kind == DISTANCE or kind == LINE or kind == PLANE or kind == VEL_POINT


@njit(cache=True, forceinline=True)
def is_velocity_only(kind):
    """True for velocity-only rows (no position constraint)."""
    return kind == VEL_POINT or kind == VEL_ANGULAR
