"""Integer kinds stored in the mass-point model's flat arrays (never bare integers in code)."""
import enum


class ConstraintKind(enum.IntEnum):
    """What a constraint (i, j, d) of the list L demands (Schmitt & Thüring §2, §5.4)."""
    DISTANCE = 0    # |P_j − P_i| = d  (rigid link, rigid body pair, joint)
    THREAD = 1      # |P_j − P_i| ≤ d  (massless inextensible thread; slack allowed)


class PointKind(enum.IntEnum):
    """How a point may move (§2 suspension points, §5.5 rail)."""
    FREE = 0        # moves in all three directions
    FIXED = 1       # suspension point: never moves, its mass is irrelevant (1/m = 0)
    LINE = 2        # slides without friction on a fixed line through its initial position
    PLANE = 3       # slides without friction in a fixed plane through its initial position
