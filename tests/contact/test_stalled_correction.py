"""The coupled position correction stops when its passes repeat themselves (contact_step.STALL_PASSES) instead of
running to its cap, and keeps going while they change anything, however slowly.

A straight chain hanging from a fixed pivot with its tip pushed into the ground is the case: the contact can
only be separated by stretching the chain, the joints pull the tip back, and no pass gains anything."""
import warnings

import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.experiments import bender_contacts
from impulsim.experiments.idle import swinging_chain
from impulsim.methods.impulse.contact_step import STALL_PASSES

H = 0.01
CHAIN_LENGTH = 1.5          # three links of 0.5 m from the pivot to the tip (capsule ends included)


def still_chain(depth):
    """The three-link chain of experiments.idle at rest, straight down, its tip ``depth`` [m] in the ground."""
    model, state = swinging_chain(height=CHAIN_LENGTH - depth)
    state.body_vel[:] = 0.0
    state.body_omega[:] = 0.0
    return model, state


@pytest.mark.parametrize("solver", ["lgs", "iterative"])
def test_a_straight_chain_pressed_along_its_axis_stops_at_the_stall_and_stays_at_rest(solver):
    depth = 1e-3
    model, state = still_chain(depth)
    start = state.body_pos.copy()
    method = ims.make_method("impulse", model, solver=solver)
    for _ in range(100):
        info = method.step(state, H)
        # the passes undo each other: stopped STALL_PASSES after they began to repeat (the cap is 10 000; the
        # iterative solver's sweeps take some 20 passes to spread the error over the joints), not converged, the
        # error the contact's after the joints are closed: about the penetration
        assert info.iters_pos <= 2 * STALL_PASSES
        assert not info.converged_pos
        assert depth / 2 <= info.residual_pos <= 1.01 * depth
    # nothing can move the chain: gravity and the contact act along it; the step leaves it at rest and ends with
    # the joints closed, so that they hold and the tip keeps its penetration (as in the methods of reduced
    # coordinates): no link further from where it started than the three joints above it may be open
    assert np.abs(state.body_vel).max() < 1e-9 and np.abs(state.body_omega).max() < 1e-9
    assert diagnostics.constraint_errors(model, state).max() <= method.eps_d
    assert np.abs(state.body_pos - start).max() <= 3 * method.eps_d


def test_a_simulation_warns_once_that_contacts_push_against_the_joints():
    model, state = still_chain(5e-3)
    sim = ims.Simulation(model, state=state, method=ims.make_method("impulse", model), h=H)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim.run(0.1)
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1
    assert "contact(s) acting: contacts that push against the joints cannot be separated" in messages[0]
    assert "start inside each other" in messages[0]


def test_a_swinging_chain_stalls_only_while_it_is_straight_and_then_lifts_its_tip_out():
    """The chain swinging at 3 rad/s with its tip 5 cm in the ground: straight down at the start, its first step
    stalls with the joints held; from then on the swing lifts the tip, and every step converges."""
    model, state = swinging_chain(height=CHAIN_LENGTH - 0.05)
    method = ims.make_method("impulse", model, solver="lgs")
    first = method.step(state, H)
    assert not first.converged_pos and first.iters_pos <= 2 * STALL_PASSES
    assert diagnostics.constraint_errors(model, state).max() <= method.eps_d
    for _ in range(20):
        info = method.step(state, H)
        assert info.converged_pos and info.residual_pos <= method.eps_d
    assert diagnostics.constraint_errors(model, state).max() <= method.eps_d


def test_the_pyramids_slow_sweeps_are_not_taken_for_a_stall():
    """Bender's pyramid of 55 boxes without shock propagation: its contact sweeps converge in hundreds of passes a
    step, their error flat to 4e-5 over 50 of them at times, and rising at others; every step converges."""
    model, state = bender_contacts.pyramid()
    method = ims.make_method("impulse", model)
    infos = [method.step(state, H) for _ in range(80)]
    assert all(i.converged_pos for i in infos)
    assert max(i.iters_pos for i in infos) > 10 * STALL_PASSES
