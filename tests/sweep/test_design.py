"""Designs and case documents: what cases a design makes and how a path sets a scene value."""
import numpy as np
import pytest
import yaml

from impulsim.sweep.cases import CaseError, case_text, set_path
from impulsim.sweep.design import DesignError, make_design, parse_parameter

BASE = yaml.safe_load("""
settings: {h: 0.002, duration: 0.5}
materials:
  rubber: {restitution: 0.5}
bodies:
  - {name: ground, shapes: [half_space: {material: rubber}], static: true}
  - {name: ball, shapes: [sphere: {radius: 0.1}], material: rubber, mass: 1.0, position: [0, 0, 0.5]}
""")


def test_grid_is_the_cartesian_product_with_the_last_parameter_fastest():
    cases = make_design([parse_parameter("a=1,2,3"), parse_parameter("b=0:1:5")])
    assert len(cases) == 15
    assert [c["b"] for c in cases[:5]] == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])
    assert {c["a"] for c in cases[:5]} == {1}


def test_list_design_pairs_values_and_refuses_unequal_lengths():
    cases = make_design([parse_parameter("a=1,2"), parse_parameter("b=5,6")], "list")
    assert cases == [{"a": 1, "b": 5}, {"a": 2, "b": 6}]
    with pytest.raises(DesignError, match="same number of values"):
        make_design([parse_parameter("a=1,2"), parse_parameter("b=5,6,7")], "list")


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_latin_hypercube_puts_one_sample_in_every_stratum_of_every_parameter(seed):
    n = 16
    cases = make_design([parse_parameter("a=0:2"), parse_parameter("b=-1:1")], "lhs", samples=n, seed=seed)
    for path, (lo, hi) in (("a", (0, 2)), ("b", (-1, 1))):
        strata = np.floor((np.array([c[path] for c in cases]) - lo) / (hi - lo) * n).astype(int)
        assert sorted(strata) == list(range(n))


def test_random_design_is_reproducible_from_its_seed_and_stays_in_range():
    params = [parse_parameter("a=0.2:0.9")]
    one, two = (make_design(params, "random", samples=50, seed=3) for _ in range(2))
    assert one == two
    assert all(0.2 <= c["a"] <= 0.9 for c in one)


@pytest.mark.parametrize("spec, message", [("a", "PATH=VALUES"), ("a=1:2:0", "whole number"),
                                           ("a=1:x:3", "needs numbers"), ("a=1:2:3:4", "LOW:HIGH"),
                                           ("a=nan", "finite")])
def test_bad_parameters_are_one_line_errors(spec, message):
    with pytest.raises(DesignError, match=message) as err:
        parse_parameter(spec)
    assert "\n" not in str(err.value)


def test_a_path_sets_named_list_items_and_follows_a_material_name():
    text = case_text(BASE, {"bodies.ball.position.2": 1.5, "bodies.ball.material.restitution": 0.9,
                            "settings.eps_d": 1e-7})
    doc = yaml.safe_load(text)
    assert doc["bodies"][1]["position"] == [0, 0, 1.5]
    assert doc["materials"]["rubber"]["restitution"] == 0.9
    assert doc["settings"]["eps_d"] == 1e-7
    assert BASE["materials"]["rubber"]["restitution"] == 0.5      # the base document is untouched


@pytest.mark.parametrize("path, message", [("bodies.bal.mass", "no item 'bal'"),
                                           ("settingz.h", "no key 'settingz'"),
                                           ("bodies.ball.mass.x", "is a value")])
def test_paths_that_lead_nowhere_are_named(path, message):
    with pytest.raises(CaseError, match=message):
        set_path(yaml.safe_load(yaml.safe_dump(BASE)), path, 1.0)
