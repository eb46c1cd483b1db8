"""Wagner's extra constraints, for the Lagrange method: the classes live in :mod:`impulsim.methods.extra_constraints`,
shared with the impulse method; imported here under their old place."""
from impulsim.methods.extra_constraints import (ExtraConstraint, PointToFunction, PointToPath, EqualVelocity,  # noqa: F401
                                                VelocityToFunction, body_index, principal_anchor)
