"""Row kinds of the Lagrange method's constraint table: the model's primitives plus Wagner's extras.

The first nine mirror :class:`impulsim.model.kinds.Prim`; the others exist only in this package until
the model grows entries for them (see docs/lagrange.md, "What the model would need").
"""
import enum

from impulsim.model.kinds import Prim


class Row(enum.IntEnum):
    """Kind of one block of constraint rows."""
    BALL = int(Prim.BALL)
    DISTANCE = int(Prim.DISTANCE)
    LINE = int(Prim.LINE)
    PLANE = int(Prim.PLANE)
    ROTATION_LOCK = int(Prim.ROTATION_LOCK)
    DIRECTION = int(Prim.DIRECTION)
    DOUBLE_ROTATION = int(Prim.DOUBLE_ROTATION)
    VEL_POINT = int(Prim.VEL_POINT)
    VEL_ANGULAR = int(Prim.VEL_ANGULAR)
    POINT_FUNCTION = 9      # point of B at a world point f(t): C = b − f(t)          (Wagner G, PointToFunction)
    VELOCITY_FUNCTION = 10  # velocity of a point of B equals f(t): C = ḃ − f(t)        (VelocityToFunction)


ROW_COUNT = {Row.BALL: 3, Row.DISTANCE: 1, Row.LINE: 2, Row.PLANE: 1, Row.ROTATION_LOCK: 3,
             Row.DIRECTION: 2, Row.DOUBLE_ROTATION: 1, Row.VEL_POINT: 3, Row.VEL_ANGULAR: 3,
             Row.POINT_FUNCTION: 3, Row.VELOCITY_FUNCTION: 3}

VELOCITY_LEVEL = (Row.VEL_POINT, Row.VEL_ANGULAR, Row.VELOCITY_FUNCTION)
"""Kinds whose C is a velocity (non-holonomic): J = ∂C/∂v and they are stabilized by Ċ + α C = 0."""

TIME_DEPENDENT = (Row.POINT_FUNCTION, Row.VELOCITY_FUNCTION)
"""Kinds that read a world function f(t) and its derivatives, refreshed before every evaluation."""

# plain integers for the kernels
BALL, DISTANCE, LINE, PLANE = 0, 1, 2, 3
ROTATION_LOCK, DIRECTION, DOUBLE_ROTATION = 4, 5, 6
VEL_POINT, VEL_ANGULAR, POINT_FUNCTION, VELOCITY_FUNCTION = 7, 8, 9, 10
