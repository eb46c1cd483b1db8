"""A contact step that finds no contact finishes as the step of a model without contacts: a jointed model whose
shapes touch nothing moves exactly as with contacts off, and takes the shorter path."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.experiments.idle import swinging_chain

H = 2e-3


def _run(method, state, steps):
    out, infos = [], []
    for _ in range(steps):
        infos.append(method.step(state, H))
        out.append(np.concatenate([state.body_pos.ravel(), state.body_quat.ravel(), state.body_vel.ravel(),
                                   state.body_omega.ravel()]))
    return np.array(out), infos


SOLVERS = [dict(solver="lgs"), dict(solver="lgs", fused=False), dict(solver="iterative")]


def _untouched(info):
    """Whether the step finished as without contacts (a contact step times its collisions stage)."""
    return "collisions" not in info.timings


@pytest.mark.parametrize("options", SOLVERS, ids=["lgs", "lgs staged", "iterative"])
def test_a_chain_that_touches_nothing_moves_as_with_contacts_off(options):
    """10 m above the ground the chain never touches it: the same states bit for bit as contacts=False with
    the same solver, every step on the short path."""
    model, state = swinging_chain(10.0, sigma=2.0)
    with_contacts, infos = _run(ims.make_method("impulse", model, **options), state.copy(), 400)
    without, _ = _run(ims.make_method("impulse", model, contacts=False, **options), state.copy(), 400)
    assert all(i.n_contacts == 0 and _untouched(i) for i in infos)
    assert np.array_equal(with_contacts, without)


@pytest.mark.parametrize("options", SOLVERS, ids=["lgs", "lgs staged", "iterative"])
def test_the_chain_takes_the_contact_path_when_it_touches_and_holds_its_joints(options):
    """With a post in its way the swinging chain strikes it: those steps take the full contact step, the others
    the short one, and the joints hold within eps_d throughout."""
    model, state = swinging_chain(2.0, post=True, sigma=2.0)
    method = ims.make_method("impulse", model, **options)
    _, infos = _run(method, state, 600)
    touching = [i for i in infos if i.n_contacts]
    assert touching and not any(_untouched(i) for i in touching)
    assert any(_untouched(i) for i in infos)
    assert all(i.converged_pos for i in infos)
    assert max(i.residual_pos for i in infos) <= method.eps_d


@pytest.mark.parametrize("options", SOLVERS, ids=["lgs", "lgs staged", "iterative"])
def test_sleeping_bodies_stay_in_place_while_a_pendulum_swings_untouched(options):
    """The pyramid of 21 asleep and a pendulum swinging apart: steps that find no contact (the sleepers' pairs
    are not detected) leave every sleeping box exactly where it fell asleep."""
    from impulsim.experiments import bender_contacts as S
    from impulsim.experiments.idle import pyramid_and_pendulum
    model, state = pyramid_and_pendulum(n_base=6)
    method = ims.make_method("impulse", model, sleep=True, shock_propagation=1, **options)
    boxes = slice(2, 23)
    assert all(name.startswith("box") for name in model.body_names[boxes])
    asleep_at = None
    for k in range(150):
        info = method.step(state, S.STACK_H)
        if asleep_at is None and info.n_asleep == 21:
            asleep_at, pose = k, (state.body_pos[boxes].copy(), state.body_quat[boxes].copy())
    assert asleep_at is not None and asleep_at < 100
    assert info.n_contacts == 0 and _untouched(info)
    assert np.array_equal(state.body_pos[boxes], pose[0]) and np.array_equal(state.body_quat[boxes], pose[1])
