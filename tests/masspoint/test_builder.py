"""MassPointBuilder: what it builds, and that every bad input gets a ModelError naming the element."""
import math

import numpy as np
import pytest

from impulsim.errors import ModelError
from impulsim.experiments import schmitt as scenes
from impulsim.methods.masspoint import ConstraintKind, MassPointBuilder, PointKind


def _pendulum_builder():
    b = MassPointBuilder("t")
    b.add_point("pivot", (0, 0, 0), fixed=True)
    b.add_point("bob", (1, 0, 0), mass=1.0)
    return b


def test_rigid_body_links_every_pair_once():
    model, _ = scenes.cube()
    assert model.n_constraints == 28  # 8·7/2 pairs, the report's cube (§2)
    pairs = {tuple(sorted(p)) for p in zip(model.con_i.tolist(), model.con_j.tolist())}
    assert len(pairs) == 28


def test_default_length_is_the_initial_distance():
    b = _pendulum_builder()
    b.add_distance("pivot", "bob")
    model, state = b.build()
    assert model.con_length[0] == 1.0
    assert model.con_kind[0] == ConstraintKind.DISTANCE


def test_suspension_point_has_zero_inverse_mass_and_projector():
    model, _ = _pendulum_builder().build()
    assert model.point_kind[0] == PointKind.FIXED
    assert model.point_inv_mass[0] == 0.0 and not model.point_proj[0].any()
    assert np.array_equal(model.point_proj[1], np.eye(3))


def test_rail_projectors():
    b = MassPointBuilder()
    b.add_point("on_line", (0, 0, 0), mass=2.0, line=(2, 0, 0))
    b.add_point("on_plane", (0, 0, 5), mass=1.0, plane=(0, 0, 3))
    model, _ = b.build()
    assert np.array_equal(model.point_proj[0], np.diag([1.0, 0.0, 0.0]))
    assert np.array_equal(model.point_proj[1], np.diag([1.0, 1.0, 0.0]))


def test_model_arrays_are_read_only():
    model, _ = scenes.pendulum()
    with pytest.raises(ValueError):
        model.con_length[0] = 2.0


def _error(build) -> str:
    with pytest.raises(ModelError) as exc:
        build()
    return str(exc.value)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(mass=-1.0), 'points[0] "p": mass must be positive'),
    (dict(mass=float("nan")), 'points[0] "p": mass must be positive'),
    (dict(), 'points[0] "p": a movable point needs a mass'),
    (dict(mass=1.0, fixed=True, line=(1, 0, 0)), 'points[0] "p": give at most one of fixed, line'),
    (dict(mass=1.0, line=(0, 0, 0)), 'points[0] "p": line direction must not be the zero vector'),
    (dict(mass=1.0, line=(1, 0, 0), velocity=(0, 1, 0)), 'points[0] "p": velocity [0.0, 1.0, 0.0] leaves'),
    (dict(mass=1.0, plane=(0, 0, 1), velocity=(0, 0, 1)), 'points[0] "p": velocity'),
    (dict(fixed=True, velocity=(1, 0, 0)), 'points[0] "p": velocity [1.0, 0.0, 0.0] leaves a fixed point'),
    (dict(mass=1.0, velocity=(1, 0)), 'points[0] "p": velocity must be 3 finite numbers'),
])
def test_bad_point(kwargs, fragment):
    assert fragment in _error(lambda: MassPointBuilder().add_point("p", (0, 0, 0), **kwargs))


def test_bad_position():
    msg = _error(lambda: MassPointBuilder().add_point("p", (0, math.inf, 0), mass=1.0))
    assert 'points[0] "p": position must be 3 finite numbers' in msg


def test_duplicate_point_name():
    b = _pendulum_builder()
    b.add_point("bob", (2, 0, 0), mass=1.0)
    assert 'points[2] "bob": name already used by points[1]' in _error(b.build)


def test_empty_system():
    assert "has no points" in _error(MassPointBuilder("empty").build)


@pytest.mark.parametrize("link, fragment", [
    (lambda b: b.add_distance("pivot", "nowhere"), 'constraints[0] "pivot-nowhere": point "nowhere" does not exist'),
    (lambda b: b.add_distance("bob", "bob"), 'constraints[0] "bob-bob": links point "bob" to itself'),
    (lambda b: b.add_distance("pivot", "bob", length=1.5),
     'constraints[0] "pivot-bob": initial distance 1 m differs from the length 1.5 m'),
    (lambda b: b.add_thread("pivot", "bob", length=0.5),
     'constraints[0] "pivot-bob": initial distance 1 m exceeds the thread length 0.5 m'),
    (lambda b: b.add_distance("pivot", "bob", length=-1.0), 'constraints[0] "pivot-bob": length must be positive'),
    (lambda b: (b.add_distance("pivot", "bob"), b.add_thread("bob", "pivot", length=2.0)),
     'constraints[1] "bob-pivot": points "bob" and "pivot" are already linked by constraints[0]'),
    (lambda b: (b.add_point("anchor", (0, 0, 1), fixed=True), b.add_distance("pivot", "anchor")),
     'constraints[0] "pivot-anchor": neither "pivot" nor "anchor" can move along the link'),
    (lambda b: (b.add_point("q", (2, 0, 0), mass=1.0), b.add_distance("pivot", "bob", name="x"),
                b.add_distance("bob", "q", name="x")),
     'constraints[1] "x": name already used by constraints[0]'),
])
def test_bad_constraint(link, fragment):
    b = _pendulum_builder()
    assert fragment in _error(lambda: (link(b), b.build()))


def test_link_perpendicular_to_a_rail_cannot_be_corrected():
    b = MassPointBuilder()
    b.add_point("anchor", (0, 0, 0), fixed=True)
    b.add_point("slider", (0, 1, 0), mass=1.0, line=(1, 0, 0))
    b.add_distance("anchor", "slider")
    assert 'constraints[0] "anchor-slider": neither "anchor" nor "slider" can move along the link' in _error(b.build)


def test_coincident_points():
    b = MassPointBuilder()
    b.add_point("a", (0, 0, 0), mass=1.0)
    b.add_point("b", (0, 0, 0), mass=1.0)
    b.add_thread("a", "b", length=1.0)
    assert 'constraints[0] "a-b": points "a" and "b" coincide at t = 0' in _error(b.build)


@pytest.mark.parametrize("kick, fragment", [
    (lambda b: b.add_kick("ghost", (1, 0, 0)), 'kicks[0] on "ghost": point "ghost" does not exist'),
    (lambda b: b.add_kick("pivot", (1, 0, 0)), 'kicks[0] on "pivot": the point is fixed'),
])
def test_bad_kick_target(kick, fragment):
    b = _pendulum_builder()
    kick(b)
    assert fragment in _error(b.build)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(force=(1, 0, math.nan)), 'kicks[0] on "bob": force must be 3 finite numbers'),
    (dict(force=(1, 0, 0), duration=0.0), 'kicks[0] on "bob": duration must be positive'),
    (dict(force=(1, 0, 0), start=math.inf), 'kicks[0] on "bob": start must be a finite time'),
])
def test_bad_kick_values(kwargs, fragment):
    assert fragment in _error(lambda: _pendulum_builder().add_kick("bob", **kwargs))


def test_rigid_body_needs_two_points():
    assert 'rigid body "lonely": needs at least two points' in _error(
        lambda: _pendulum_builder().add_rigid_body("lonely", ["bob"]))
