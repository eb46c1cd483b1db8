"""A failed step is a transaction that did not happen: the State and everything the method keeps between
steps (warm start, friction anchors, sleep clocks, caches) are as before, so the run continues exactly as
if the failed step had never been tried."""
import numpy as np
import pytest

from impulsim.errors import SimulationError
from tests.reliability.helpers import (CHAIN_SCENE, CONTACT_METHODS, CONTACT_SCENE, JOINT_METHODS, memory_copy,
                                       same_bits, same_memory, scene_sim)

OVERFLOW = 1e308
"""A finite force [N] whose acceleration overflows to inf inside the step: the failure is in the middle of
the step, after the method has begun to update its memory (a NaN input is refused before the step)."""


def _fail_then_continue(path, method, options, steps_before, steps_after, bodies=(1, 2)):
    _, victim = scene_sim(path, method, **options)
    _, reference = scene_sim(path, method, **options)
    for _ in range(steps_before):
        victim.step()
        reference.step()
    memory = memory_copy(victim.method)
    state = victim.state.copy()
    for k, sign in zip(bodies, (1, -1)):
        victim.state.body_force[k] = (0.0, 0.0, sign * OVERFLOW)
        victim.state.body_torque[k] = (sign * OVERFLOW, 0.0, 0.0)
    with pytest.raises(SimulationError):
        victim.step()
    victim.state.body_force[:] = reference.state.body_force
    victim.state.body_torque[:] = reference.state.body_torque
    assert same_bits(victim.state, state)
    assert same_memory(memory, memory_copy(victim.method)) == []
    for _ in range(steps_after):
        victim.step()
        reference.step()
    assert same_bits(victim.state, reference.state)


@pytest.mark.parametrize("method", CONTACT_METHODS)
def test_failed_step_in_a_contact_scene_leaves_no_trace(method):
    # 300 steps: the pile is landing (collisions, resting contacts, warm start and anchors in use)
    _fail_then_continue(CONTACT_SCENE, method, {}, 300, 150)


@pytest.mark.parametrize("name", sorted(JOINT_METHODS))
def test_failed_step_on_a_chain_leaves_no_trace(name):
    method, options = JOINT_METHODS[name]
    _fail_then_continue(CHAIN_SCENE, method, options, 50, 100)


def test_failed_step_of_the_mass_point_method_leaves_no_trace():
    from impulsim.experiments import schmitt
    from impulsim.methods.masspoint import MassPointMethod
    model, state = schmitt.pendulum()
    victim, reference = MassPointMethod(model), MassPointMethod(model)
    s_victim, s_reference = state.copy(), state.copy()
    for _ in range(20):
        victim.step(s_victim, 0.01)
        reference.step(s_reference, 0.01)
    memory, before = memory_copy(victim), s_victim.copy()
    s_victim.body_force[-1] = (0.0, 0.0, OVERFLOW)
    with pytest.raises(SimulationError):
        victim.step(s_victim, 0.01)
    s_victim.body_force[-1] = 0.0
    assert s_victim.body_pos.tobytes() == before.body_pos.tobytes()
    assert same_memory(memory, memory_copy(victim)) == []
    for _ in range(50):
        victim.step(s_victim, 0.01)
        reference.step(s_reference, 0.01)
    assert s_victim.body_pos.tobytes() == s_reference.body_pos.tobytes()


def test_a_non_finite_input_is_refused_before_the_step():
    _, sim = scene_sim(CHAIN_SCENE, "impulse")
    sim.step()
    before = sim.state.copy()
    for field, value in (("t", np.nan), ("body_force", np.nan), ("body_vel", np.inf)):
        s = sim.state
        if field == "t":
            s.t = value
        else:
            getattr(s, field)[1, 0] = value
        with pytest.raises(SimulationError, match="not finite|non-finite"):
            sim.step()
        sim.state = before.copy()
