"""A contact step that finds no contact finishes as the step of a model without contacts: a jointed model whose
shapes touch nothing moves exactly as with contacts off, and takes the shorter path."""
import numpy as np
import pytest

import impulsim as ims

H = 2e-3


def swinging_chain(height, post=False):
    """Three capsule links on ball joints hanging from a pivot ``height`` [m] above the ground, released at
    random rates (σ = 2 rad/s) about a swing of 3 rad/s about y; the lowest link's end hangs 1.5 m below the
    pivot. With ``post``, a static post stands 0.8 m aside in the swing's way."""
    b = ims.ModelBuilder("chain over the ground")
    b.add_body("ground", shapes=[ims.HalfSpace()], static=True)
    if post:
        b.add_body("post", shapes=[ims.Box(size=(0.2, 1.0, 2.0))], static=True, position=(-0.8, 0.0, 1.0))
    parent, top = "world", np.array([0.0, 0.0, height])
    pivot = top.copy()
    for k in range(3):
        b.add_body(f"link{k}", shapes=[ims.Capsule(radius=0.05, length=0.4)], mass=1.0,
                   position=top - (0, 0, 0.25 + 0.5 * k))
        b.add_ball(f"joint{k}", parent, f"link{k}", anchor=top - (0, 0, 0.5 * k))
        parent = f"link{k}"
    model, state = b.build()
    rng = np.random.default_rng(3)
    swing = np.array([0.0, 3.0, 0.0])
    state.body_omega[-3:] = rng.normal(0.0, 2.0, (3, 3)) + swing
    state.body_vel[-3:] = np.cross(swing, state.body_pos[-3:] - pivot)
    return model, state


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
    model, state = swinging_chain(10.0)
    with_contacts, infos = _run(ims.make_method("impulse", model, solver="lgs"), state.copy(), 400)
    without, _ = _run(ims.make_method("impulse", model, solver="lgs", contacts=False), state.copy(), 400)
    assert all(i.n_contacts == 0 and "joints_alone" in i.timings for i in infos)
    assert np.array_equal(with_contacts, without)


def test_the_chain_takes_the_contact_path_when_it_touches_and_holds_its_joints():
    """With a post in its way the swinging chain strikes it: those steps take the full contact step, the others
    the joints-alone one, and the joints hold within eps_d throughout."""
    model, state = swinging_chain(2.0, post=True)
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
    model, state = swinging_chain(10.0)
    _, infos = _run(ims.make_method("impulse", model, **options), state, 5)
    assert all("joints_alone" not in i.timings for i in infos)
