"""State.assign and State.assign_motion name their fields one by one (a step calls them twice, and on small
models the calls are the cost); these tests hold them to the dataclass's fields, so a field added to State
is copied or consciously left out."""
import dataclasses

import numpy as np
import pytest

from impulsim.model.state import State, _INPUT_FIELDS


def _random_state(rng, n_bodies, n_motors, n_servos) -> State:
    shapes = dict(body_pos=(n_bodies, 3), body_quat=(n_bodies, 4), body_vel=(n_bodies, 3),
                  body_omega=(n_bodies, 3), body_force=(n_bodies, 3), body_torque=(n_bodies, 3),
                  motor_effort=(n_motors,), servo_integral=(n_servos,), servo_prev_error=(n_servos,),
                  servo_effort=(n_servos,))
    arrays = {name: rng.normal(size=shape) for name, shape in shapes.items()}
    return State(t=float(rng.uniform(0, 10)), step_count=int(rng.integers(0, 1000)), **arrays)


def _fields():
    return [f.name for f in dataclasses.fields(State)]


@pytest.mark.parametrize("n_motors, n_servos", [(0, 0), (2, 0), (0, 3), (1, 4)])
def test_assign_copies_every_field_and_keeps_the_arrays(n_motors, n_servos):
    rng = np.random.default_rng(n_motors * 10 + n_servos)
    dst, src = _random_state(rng, 5, n_motors, n_servos), _random_state(rng, 5, n_motors, n_servos)
    arrays_before = {name: getattr(dst, name) for name in _fields() if name not in ("t", "step_count")}
    dst.assign(src)
    for name in _fields():
        assert np.array_equal(getattr(dst, name), getattr(src, name)), name
    for name, arr in arrays_before.items():
        assert getattr(dst, name) is arr, f"{name} lost its identity"


@pytest.mark.parametrize("n_motors, n_servos", [(0, 0), (1, 4)])
def test_assign_motion_copies_all_but_the_user_inputs(n_motors, n_servos):
    rng = np.random.default_rng(7 + n_servos)
    dst, src = _random_state(rng, 4, n_motors, n_servos), _random_state(rng, 4, n_motors, n_servos)
    inputs = {name: getattr(dst, name).copy() for name in _INPUT_FIELDS}
    dst.assign_motion(src)
    for name in _fields():
        expected = inputs[name] if name in _INPUT_FIELDS else getattr(src, name)
        assert np.array_equal(getattr(dst, name), expected), name
