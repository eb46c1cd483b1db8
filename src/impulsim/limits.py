"""Limits on what a scene may hold, so that every input is either simulated or refused in bounded time.

Values outside these ranges are refused with a one-line error (``file:line: element: problem``) when a
scene is read or a model is built; docs/limits.md lists them for users.
"""

MAX_SCENE_CHARS = 64 * 1024 * 1024
"""Longest scene file [characters]."""
MAX_NUMBER_CHARS = 100
"""Longest numeric literal [characters] (a float has 17 significant digits; 5000 digits is an attack)."""
MAX_YAML_DEPTH = 64
"""Deepest nesting of lists and mappings in a scene file."""
MAX_YAML_NODES = 2_000_000
"""Most YAML nodes a scene may expand to (aliases counted at each use)."""
MAX_ELEMENTS = 100_000
"""Most items in one list of the scene (bodies, joints, shapes of a body, points of a hull …)."""

MAX_ABS_NUMBER = 1e12
"""Largest magnitude of any number in a scene file (in its SI unit)."""
MAX_LENGTH = 1e6
"""Largest length of a shape [m] (radius, side, half-length), and largest coordinate of a position [m]."""
MIN_LENGTH = 1e-6
"""Smallest non-zero length of a shape [m]."""
MAX_SPEED = 1e5
"""Largest initial speed [m/s] (faster rigid bodies are taken as a diverged integration)."""
MIN_MASS = 1e-9
"""Smallest mass of a moving body [kg], given or computed from its shapes."""
MAX_MASS = 1e15
"""Largest mass of a moving body [kg]."""
MIN_SEPARATION = 0.25
"""Two moving bodies that may collide start "inside each other" when their centres of mass are closer than
this fraction of the thinner one's thickness (2 sqrt(J_min / m))."""
MAX_PILE = 3
"""A body may not start inside this many other bodies or more: piled on one point they cannot be pushed
apart in bounded time (the first step grows with the square of their number)."""
MAX_STEPS = 1e9
"""Most steps of one run (duration / h); longer runs are split with checkpoints (``--resume``)."""
