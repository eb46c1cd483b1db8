"""Integer kinds stored in the flat model arrays (never bare integers in code)."""
import enum


class Prim(enum.IntEnum):
    """The basic constraints every joint is lowered to (Bender 3.2.3), plus velocity-only rows.

    Translational kinds act with a linear impulse p at a point, rotational kinds with an angular impulse l.
    """
    BALL = 0            # point-to-point, removes 3 translations
    DISTANCE = 1        # |b - a| = target, removes 1 translation
    LINE = 2            # point b of body B on a line of body A, removes 2 translations
    PLANE = 3           # point b of body B in a plane of body A, removes 1 translation
    ROTATION_LOCK = 4   # Bender's "translation joint": relative rotation fixed, removes 3 rotations
    DIRECTION = 5       # axis of A parallel to axis of B, removes 2 rotations
    DOUBLE_ROTATION = 6  # angle between axis of A and axis of B fixed, removes 1 rotation
    VEL_POINT = 7       # velocity only: u_b - u_a = target, 3 rows
    VEL_ANGULAR = 8     # velocity only: ω_b - ω_a = target, 3 rows
    THREAD = 9          # |b - a| <= target: pulls only when taut, 1 row (massless inextensible thread)


TRANSLATIONAL = (Prim.BALL, Prim.DISTANCE, Prim.LINE, Prim.PLANE, Prim.VEL_POINT)
ROWS = {Prim.BALL: 3, Prim.DISTANCE: 1, Prim.LINE: 2, Prim.PLANE: 1, Prim.ROTATION_LOCK: 3,
        Prim.DIRECTION: 2, Prim.DOUBLE_ROTATION: 1, Prim.VEL_POINT: 3, Prim.VEL_ANGULAR: 3,
        Prim.THREAD: 1}


class JointKind(enum.IntEnum):
    """User-level joints; each compiles into one or more primitives."""
    BALL = 0
    DISTANCE = 1
    POINT_ON_LINE = 2
    POINT_ON_PLANE = 3
    ROTATION_LOCK = 4
    DIRECTION = 5
    DOUBLE_ROTATION = 6
    HINGE = 7
    CYLINDRICAL = 8
    SLIDER = 9
    UNIVERSAL = 10
    FIXED = 11
    VELOCITY = 12
    THREAD = 13     # |b - a| <= length: a massless inextensible thread (slack allowed)


class Coordinate(enum.IntEnum):
    """What a motor or servo measures and drives on its joint."""
    ANGLE = 0       # rotation of B relative to A about the joint axis [rad]
    POSITION = 1    # displacement of B relative to A along the joint axis [m]


class ServoMode(enum.IntEnum):
    """PID servo control target."""
    ANGLE = 0
    POSITION = 1
    ANGULAR_VELOCITY = 2
    VELOCITY = 3


SERVO_COORDINATE = {ServoMode.ANGLE: Coordinate.ANGLE, ServoMode.ANGULAR_VELOCITY: Coordinate.ANGLE,
                    ServoMode.POSITION: Coordinate.POSITION, ServoMode.VELOCITY: Coordinate.POSITION}

# which coordinates each joint kind can measure
JOINT_COORDINATES = {
    JointKind.HINGE: (Coordinate.ANGLE,),
    JointKind.CYLINDRICAL: (Coordinate.ANGLE, Coordinate.POSITION),
    JointKind.SLIDER: (Coordinate.POSITION,),
    JointKind.DIRECTION: (Coordinate.ANGLE,),
    JointKind.POINT_ON_LINE: (Coordinate.POSITION,),
}
