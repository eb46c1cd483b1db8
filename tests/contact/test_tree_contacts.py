"""The ball-joint tree of the examples with contacts on: siblings hang from one point of their parent, so
their boxes overlap there from the start (94 contacts up to 4.5 cm deep). Left out of collision detection as
pairs sharing a pivot, they swing exactly as without contacts until branches meet."""
import numpy as np

import impulsim as ims
from impulsim.dynamics.diagnostics import total_energy
from impulsim.methods import make
from impulsim.experiments import bender, wagner


def _tree_over_floor(levels, floor_z):
    b = ims.ModelBuilder("tree over a floor")
    for name, parent, _, top, d, length in bender.tree_bodies(levels, wagner.SPREAD_DEG):
        b.add_body(name, shapes=[ims.Box(size=(bender.TREE_SECTION, bender.TREE_SECTION, length))],
                   density=bender.TREE_DENSITY, position=top + 0.5 * length * d,
                   orientation=bender.quat_z_to(d))
        b.add_ball(f"j_{name}", parent, name, anchor=top)
    b.add_body("floor", shapes=[ims.Box(size=(10, 10, 0.2))], position=(0, 0, floor_z - 0.1), static=True)
    return b.build()


def test_tree_with_contacts_swings_like_the_tree_without_them_until_branches_meet():
    model, state = _tree_over_floor(4, floor_z=-50.0)       # the floor is out of reach
    free_model, free_state = _tree_over_floor(4, floor_z=-50.0)
    with_c = make("impulse", model, contacts=True)
    without = make("impulse", free_model, contacts=False)   # the same bodies
    for s in (state, free_state):
        s.body_torque[1] = (10.0, 0.0, 0.0)                  # the example's kick: one step of 10 N m
    steps = 0
    while with_c.step(state, 1 / 100).n_contacts == 0:
        without.step(free_state, 1 / 100)
        state.body_torque[1] = free_state.body_torque[1] = 0.0
        steps += 1
        assert np.array_equal(state.body_pos, free_state.body_pos)
    assert steps >= 5       # the first branches meet after 0.1 s (before, the first step found 94 contacts)


def test_tree_with_contacts_stays_bounded_under_random_swinging():
    """Random joint motion makes cousins hit each other: many contacts, and energy only lost, never gained
    (restitution ≤ 1; the joints' corrections change it by far less than the 10 mJ allowed, 0.1 % of |E|).
    Before pairs sharing a pivot were left out, this run diverged within 7 steps."""
    model, state = _tree_over_floor(4, floor_z=-50.0)
    state.body_omega[1:16] += np.random.default_rng(7).normal(scale=0.5, size=(15, 3))
    method = make("impulse", model, contacts=True)
    method.step(state, 0.01)
    e0 = total_energy(model, state)
    contacts = sum(method.step(state, 0.01).n_contacts for _ in range(300))
    assert contacts > 1000
    assert total_energy(model, state) <= e0 + 1e-2
