"""How two materials combine: by default equal materials give the coefficients as given; the thesis's
rules (e = e₁ e₂, μ = μ₁ + μ₂) stay available by name."""
import numpy as np
import pytest

from impulsim.contact.materials import (BENDER_RULES, DEFAULT_FRICTION_RULE, DEFAULT_RESTITUTION_RULE, combine,
                                        parse_rule)


def test_equal_materials_keep_their_coefficients_by_default():
    rng = np.random.default_rng(7)
    for x in np.concatenate([[0.0, 0.3, 0.7, 1.0], rng.uniform(0, 2, 50)]):
        assert combine(int(DEFAULT_RESTITUTION_RULE), x, x) == x
        assert combine(int(DEFAULT_FRICTION_RULE), x, x) == x


def test_a_default_ground_neither_removes_friction_nor_adds_bounce():
    """The builder's default material has μ = e = 0: a body on it keeps its μ and does not bounce."""
    assert combine(int(DEFAULT_FRICTION_RULE), 0.4, 0.0) == 0.4
    assert combine(int(DEFAULT_RESTITUTION_RULE), 0.8, 0.0) == 0.0


def test_the_thesis_rules_by_name():
    e = combine(int(parse_rule(BENDER_RULES["restitution_rule"], "restitution")), 0.7, 0.7)
    mu = combine(int(parse_rule(BENDER_RULES["friction_rule"], "friction")), 0.3, 0.3)
    assert e == pytest.approx(0.49) and mu == pytest.approx(0.6)
