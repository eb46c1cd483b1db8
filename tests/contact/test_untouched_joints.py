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


def test_a_chain_that_touches_nothing_moves_as_with_contacts_off():
    """10 m above the ground the chain never touches it: the same states bit for bit as contacts=False, every
    step on the joints-alone path."""
    model, state = swinging_chain(10.0, sigma=2.0)
    with_contacts, infos = _run(ims.make_method("impulse", model, solver="lgs"), state.copy(), 400)
    without, _ = _run(ims.make_method("impulse", model, solver="lgs", contacts=False), state.copy(), 400)
    assert all(i.n_contacts == 0 and "joints_alone" in i.timings for i in infos)
    assert np.array_equal(with_contacts, without)


def test_the_chain_takes_the_contact_path_when_it_touches_and_holds_its_joints():
    """With a post in its way the swinging chain strikes it: those steps take the full contact step, the others
    the joints-alone one, and the joints hold within eps_d throughout."""
    model, state = swinging_chain(2.0, post=True, sigma=2.0)
    method = ims.make_method("impulse", model, solver="lgs")
    _, infos = _run(method, state, 600)
    touching = [i for i in infos if i.n_contacts]
    assert touching and all("joints_alone" not in i.timings for i in touching)
    assert any("joints_alone" in i.timings for i in infos)
    assert all(i.converged_pos for i in infos)
    assert max(i.residual_pos for i in infos) <= method.eps_d


@pytest.mark.parametrize("options", [dict(solver="iterative"), dict(solver="lgs", fused=False)])
def test_other_joint_solvers_keep_the_contact_path(options):
    """The shortcut is the LGS fused step's: the iterative solver and the staged step stay on the contact path."""
    model, state = swinging_chain(10.0, sigma=2.0)
    _, infos = _run(ims.make_method("impulse", model, **options), state, 5)
    assert all("joints_alone" not in i.timings for i in infos)
