"""Collision laws on free bodies: momentum conservation, restitution, Newton = Poisson for a single
frictionless contact, and no pulling impulses."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.methods.impulse.method import ContactImpulseMethod

H = 1e-3


def two_spheres(e, offset=0.3):
    """Two spheres in space (no gravity) flying at each other, off-centre by ``offset`` [m]."""
    b = ims.ModelBuilder("spheres", gravity=(0, 0, 0))
    b.add_material("m", restitution=e)       # both bodies of one material: e as given
    b.add_body("a", shapes=[ims.Sphere(radius=0.5, material="m")], mass=1.0, position=(-0.6, 0, 0),
               velocity=(1.0, 0, 0))
    b.add_body("b", shapes=[ims.Sphere(radius=0.5, material="m")], mass=3.0, position=(0.6, offset, 0),
               velocity=(-0.5, 0, 0))
    return b.build()


def run(model, state, **opts):
    method = ContactImpulseMethod(model, **opts)
    sim = ims.Simulation(model, state, method=method, h=H)
    sim.run(0.5)
    return method


@pytest.mark.parametrize("e", [1.0, 0.5, 0.0])
def test_free_collision_conserves_momentum(e):
    model, state = two_spheres(e)
    p0 = diagnostics.linear_momentum(model, state)
    l0 = diagnostics.angular_momentum(model, state)
    run(model, state)
    # impulses act in equal and opposite pairs at one point: momentum is conserved to rounding
    assert np.allclose(diagnostics.linear_momentum(model, state), p0, atol=1e-12)
    assert np.allclose(diagnostics.angular_momentum(model, state), l0, atol=1e-12)


def normal_speeds(model, state):
    """Relative velocity of the sphere centres along the line joining them [m/s] (> 0: separating)."""
    d = state.body_pos[2] - state.body_pos[1]
    n = d / np.linalg.norm(d)
    return float(np.dot(state.body_vel[2] - state.body_vel[1], n))


@pytest.mark.parametrize("e", [1.0, 0.5])
def test_restitution_scales_the_normal_speed(e):
    """Head-on (offset 0): the separation speed is e times the approach speed 1.5 m/s (Newton's law)."""
    model, state = two_spheres(e, offset=0.0)
    run(model, state)
    # the contact is resolved to eps_vc = 1e-3 m/s (the stop criterion of the iteration)
    assert normal_speeds(model, state) == pytest.approx(e * 1.5, abs=1e-3)


def test_newton_and_poisson_agree_for_a_single_frictionless_contact():
    results = []
    for law in ("newton", "poisson", "stronge"):
        model, state = two_spheres(0.64, offset=0.2)
        run(model, state, restitution=law, eps_vc=1e-9)
        results.append(np.concatenate([state.body_vel[1:].ravel(), state.body_omega[1:].ravel()]))
    # one frictionless contact: all three laws give p = (1 + e) p_compression (tolerance: eps_vc)
    assert np.allclose(results[0], results[1], atol=1e-8)
    assert np.allclose(results[0], results[2], atol=1e-8)


def test_no_pulling_impulse_when_separating():
    """Spheres that touch while flying apart get no impulse at all."""
    b = ims.ModelBuilder("apart", gravity=(0, 0, 0))
    b.add_body("a", shapes=[ims.Sphere(radius=0.5)], mass=1.0, position=(-0.5, 0, 0), velocity=(-1.0, 0, 0))
    b.add_body("b", shapes=[ims.Sphere(radius=0.5)], mass=1.0, position=(0.5, 0, 0), velocity=(1.0, 0, 0))
    model, state = b.build()
    v0 = state.body_vel.copy()
    method = ContactImpulseMethod(model)
    method.step(state, H)
    assert method.contacts.count >= 1 and method.contacts.n_collisions == 0
    assert np.array_equal(state.body_vel, v0)
