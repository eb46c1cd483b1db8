"""MassPointBuilder (a convenience over ModelBuilder) and the mass-point view of the shared Model: what it
builds, and that every bad input gets a ModelError naming the element."""
import math

import numpy as np
import pytest

from impulsim.errors import ModelError
from impulsim.experiments import schmitt as scenes
from impulsim.methods.masspoint import MassPointBuilder, point_system
from impulsim.methods.masspoint.kernels import DISTANCE


def _pendulum_builder():
    b = MassPointBuilder("t")
    b.add_point("pivot", (0, 0, 0), fixed=True)
    b.add_point("bob", (1, 0, 0), mass=1.0)
    return b


def test_rigid_body_links_every_pair_once():
    system = point_system(*scenes.cube())
    assert system.n_constraints == 28  # 8·7/2 pairs, the report's cube (§2)
    pairs = {tuple(sorted(p)) for p in zip(system.con_i.tolist(), system.con_j.tolist())}
    assert len(pairs) == 28


def test_default_length_is_the_initial_distance():
    b = _pendulum_builder()
    b.add_distance("pivot", "bob")
    system = point_system(*b.build())
    assert system.con_length[0] == 1.0
    assert system.con_kind[0] == DISTANCE


def test_suspension_point_has_zero_inverse_mass_and_projector():
    model, state = _pendulum_builder().build()
    system = point_system(model, state)
    pivot, bob = model.body("pivot"), model.body("bob")
    assert model.body_static[pivot] and model.body_point[bob]
    assert system.point_inv_mass[pivot] == 0.0 and not system.point_proj[pivot].any()
    assert np.array_equal(system.point_proj[bob], np.eye(3))


def test_rail_projectors():
    b = MassPointBuilder()
    b.add_point("on_line", (0, 0, 0), mass=2.0, line=(2, 0, 0))
    b.add_point("on_plane", (0, 0, 5), mass=1.0, plane=(0, 0, 3))
    model, state = b.build()
    system = point_system(model, state)
    assert np.array_equal(system.point_proj[model.body("on_line")], np.diag([1.0, 0.0, 0.0]))
    assert np.array_equal(system.point_proj[model.body("on_plane")], np.diag([1.0, 1.0, 0.0]))


def test_model_arrays_are_read_only():
    model, _ = scenes.pendulum()
    with pytest.raises(ValueError):
        model.prim_target[0] = 2.0


def _error(build) -> str:
    with pytest.raises(ModelError) as exc:
        build()
    return str(exc.value)


def _point(**kwargs):
    b = MassPointBuilder()
    b.add_point("p", (0, 0, 0), **kwargs)
    return b.build()


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(mass=-1.0), 'bodies[0] "p": a point mass needs a positive mass'),
    (dict(mass=float("nan")), 'bodies[0] "p": a point mass needs a positive mass'),
    (dict(), 'bodies[0] "p": a point mass needs a positive mass'),
    (dict(mass=1.0, fixed=True, line=(1, 0, 0)), 'bodies[0] "p": give at most one of fixed, line'),
    (dict(mass=1.0, line=(0, 0, 0)), 'joints[0] "p:rail": axis has zero length'),
    (dict(mass=1.0, line=(1, 0, 0), velocity=(0, 1, 0)), 'joints[0] "p:rail": the velocity [0.0, 1.0, 0.0] of '
                                                          'point "p" leaves its rail'),
    (dict(mass=1.0, plane=(0, 0, 1), velocity=(0, 0, 1)), 'joints[0] "p:rail": the velocity'),
    (dict(fixed=True, velocity=(1, 0, 0)), 'bodies[0] "p": a fixed point cannot have the velocity [1, 0, 0]'),
    (dict(mass=1.0, velocity=(1, 0)), 'bodies[0] "p": velocity must be 3 finite numbers'),
])
def test_bad_point(kwargs, fragment):
    assert fragment in _error(lambda: _point(**kwargs))


def test_bad_position():
    msg = _error(lambda: MassPointBuilder().add_point("p", (0, math.inf, 0), mass=1.0))
    assert 'bodies[0] "p": position must be 3 finite numbers' in msg


def test_duplicate_point_name():
    b = _pendulum_builder()
    b.add_point("bob", (2, 0, 0), mass=1.0)
    assert 'bodies[2] "bob": the name is already used' in _error(b.build)


def test_empty_system():
    assert 'mass-point system "empty": has no point masses' in _error(MassPointBuilder("empty").build)


@pytest.mark.parametrize("link, fragment", [
    (lambda b: b.add_distance("pivot", "nowhere"), 'joints[0] "pivot-nowhere": body "nowhere" does not exist'),
    (lambda b: b.add_distance("bob", "bob"), 'joints[0] "bob-bob": joins body "bob" to itself'),
    (lambda b: b.add_distance("pivot", "bob", length=1.5),
     'joints[0] "pivot-bob": initial distance 1 m differs from the length 1.5 m'),
    (lambda b: b.add_thread("pivot", "bob", length=0.5),
     'joints[0] "pivot-bob": initial distance 1 m exceeds the thread length 0.5 m'),
    (lambda b: b.add_distance("pivot", "bob", length=-1.0), 'joints[0] "pivot-bob": length must be non-negative'),
    (lambda b: (b.add_distance("pivot", "bob"), b.add_thread("bob", "pivot", length=2.0)),
     'joints[1] "bob-pivot": its points are already linked by joints[0] "pivot-bob"'),
    (lambda b: (b.add_point("anchor", (0, 0, 1), fixed=True), b.add_distance("pivot", "anchor")),
     'joints[0] "pivot-anchor": both bodies are static'),
    (lambda b: (b.add_point("q", (2, 0, 0), mass=1.0), b.add_distance("pivot", "bob", name="x"),
                b.add_distance("bob", "q", name="x")),
     'joints[1] "x": the name is already used'),
])
def test_bad_constraint(link, fragment):
    b = _pendulum_builder()
    assert fragment in _error(lambda: (link(b), b.build()))


def test_link_perpendicular_to_a_rail_cannot_be_corrected():
    b = MassPointBuilder()
    b.add_point("anchor", (0, 0, 0), fixed=True)
    b.add_point("slider", (0, 1, 0), mass=1.0, line=(1, 0, 0))
    b.add_distance("anchor", "slider")
    assert 'joints[1] "anchor-slider": neither of its points can move along the link' in _error(b.build)


def test_coincident_points():
    b = MassPointBuilder()
    b.add_point("a", (0, 0, 0), mass=1.0)
    b.add_point("b", (0, 0, 0), mass=1.0)
    b.add_thread("a", "b", length=1.0)
    assert 'joints[0] "a-b": its two points coincide at the start' in _error(b.build)


@pytest.mark.parametrize("kick, fragment", [
    (lambda b: b.add_kick("ghost", (1, 0, 0)), 'loads[0]: body "ghost" does not exist'),
    (lambda b: b.add_kick("pivot", (1, 0, 0)), 'loads[0]: body "pivot" is static or kinematic and takes no loads'),
])
def test_bad_kick_target(kick, fragment):
    b = _pendulum_builder()
    kick(b)
    assert fragment in _error(b.build)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(force=(1, 0, math.nan)), 'loads[0]: force must be 3 finite numbers'),
    (dict(force=(1, 0, 0), duration=0.0), 'loads[0] on "bob": duration must be positive'),
    (dict(force=(1, 0, 0), start=math.inf), 'loads[0]: start must be a finite time'),
])
def test_bad_kick_values(kwargs, fragment):
    assert fragment in _error(lambda: _pendulum_builder().add_kick("bob", **kwargs))


def test_rigid_body_needs_two_points():
    assert 'rigid body "lonely": needs at least two points' in _error(
        lambda: _pendulum_builder().add_rigid_body("lonely", ["bob"]))
