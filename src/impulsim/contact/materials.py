"""How the materials of two touching shapes combine into one contact's coefficients.

Bender (5.1.2) multiplies the restitution coefficients (e = e₁ e₂) and adds the friction coefficients
(μ = μ₁ + μ₂), arguing that a rubber tyre grips on ice and on a road alike only if the coefficients add.
The usual alternatives (minimum, maximum, arithmetic or geometric mean) are selectable.
"""
import enum

import numpy as np
from numba import njit


class Combine(enum.IntEnum):
    """A rule that turns two coefficients into one."""
    PRODUCT = 0
    SUM = 1
    MIN = 2
    MAX = 3
    MEAN = 4
    GEOMETRIC = 5


DEFAULT_RESTITUTION_RULE = Combine.PRODUCT   # Bender: e = e1 · e2
DEFAULT_FRICTION_RULE = Combine.SUM          # Bender: μ = μ1 + μ2


def parse_rule(rule, what: str) -> Combine:
    """A Combine from its name (``"product"``, ``"sum"``, ``"min"``, ``"max"``, ``"mean"``, ``"geometric"``)."""
    if isinstance(rule, Combine):
        return rule
    try:
        return Combine[str(rule).upper()]
    except KeyError:
        names = ", ".join(c.name.lower() for c in Combine)
        raise ValueError(f"unknown {what} combination rule {rule!r} (use one of: {names})") from None


@njit(cache=True)
def combine(rule, x, y):
    """The coefficient of a contact between coefficients x and y under ``rule`` (Combine as int)."""
    if rule == 0:
        return x * y
    if rule == 1:
        return x + y
    if rule == 2:
        return min(x, y)
    if rule == 3:
        return max(x, y)
    if rule == 4:
        return 0.5 * (x + y)
    return np.sqrt(x * y)
