"""How the materials of two touching shapes combine into one contact's coefficients.

The default keeps what a user gives when both bodies share a material: the smaller restitution
(e = min(e₁, e₂)) and the larger friction coefficient (μ = max(μ₁, μ₂)), so two bodies of μ = 0.3 and
e = 0.7 collide with μ = 0.3 and e = 0.7, and a body on a ground of the default material (μ = e = 0) keeps
its own friction and does not bounce.

Bender (5.1.2) multiplies the restitution coefficients (e = e₁ e₂) and adds the friction coefficients
(μ = μ₁ + μ₂), arguing that a rubber tyre grips on ice and on a road alike only if the coefficients add;
his experiments are set up for that rule, which stays selectable by name (``BENDER_RULES``), as do the
arithmetic and geometric means.
"""
import enum

import numpy as np

from impulsim.kernel import njit


class Combine(enum.IntEnum):
    """A rule that turns two coefficients into one."""
    PRODUCT = 0
    SUM = 1
    MIN = 2
    MAX = 3
    MEAN = 4
    GEOMETRIC = 5


DEFAULT_RESTITUTION_RULE = Combine.MIN       # equal materials: e as given
DEFAULT_FRICTION_RULE = Combine.MAX          # equal materials: μ as given

BENDER_RULES = dict(restitution_rule="product", friction_rule="sum")
"""The thesis's rules (e = e₁ e₂, μ = μ₁ + μ₂) as method options, for the experiments set up for them."""


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
