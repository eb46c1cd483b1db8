"""Moreau's midpoint scheme in minimal coordinates on trees without contacts, against the Featherstone
method of this library (articulated-body algorithm, RK4) and against itself at smaller steps."""
import numpy as np
import pytest

from impulsim.errors import UnsupportedFeatureError
from impulsim.methods import make
from impulsim.methods.moreau_minimal import TreeBuilder
from tests.featherstone.random_trees import random_tree_model

KINDS = ("hinge", "slider", "fixed")


def _random_motion(model, state, seed, speed=2.0):
    """Random joint positions and rates (free bases: random pose and twist) written into ``state``."""
    method = make("moreau_minimal", model, contacts=False)
    q, u = method.coordinates(state)
    rng = np.random.default_rng(seed)
    t = method.tree
    for i in range(t.n):
        q0, v0 = t.q_start[i], t.v_start[i]
        if t.kind[i] == 5:
            r = rng.normal(size=4)
            q[q0 + 3:q0 + 7] = r / np.linalg.norm(r)
        else:
            q[q0:t.q_start[i + 1]] = rng.uniform(-1, 1, t.q_start[i + 1] - q0)
        u[v0:t.v_start[i + 1]] = speed * rng.uniform(-1, 1, t.v_start[i + 1] - v0)
    method._write(state, q, u)
    return state


def _simulate(model, state, name, h, duration):
    s = state.copy()
    method = make(name, model, contacts=False)
    for _ in range(int(round(duration / h))):
        method.step(s, h)
    return s


@pytest.mark.parametrize("seed,floating", [(3, False), (7, True), (11, True)])
def test_agrees_with_featherstone_and_converges_first_order(seed, floating):
    """Positions after 0.4 s: the error against Featherstone (RK4 at 0.05 ms, error < 1e-9 m) halves with
    the step (the scheme evaluates h(q^M, u^B) at the start velocity, so it is first order in general), and
    at h = 0.125 ms it is below 1 mm."""
    model, state = random_tree_model(seed, n_bodies=5, floating=floating, kinds=KINDS)
    state = _random_motion(model, state, seed)
    ref = _simulate(model, state, "featherstone", 5e-5, 0.4).body_pos
    errors = [np.abs(_simulate(model, state, "moreau_minimal", h, 0.4).body_pos - ref).max()
              for h in (1e-3, 5e-4, 2.5e-4, 1.25e-4)]
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 1.7) & (ratios < 2.3)), (errors, ratios)
    assert errors[-1] < 1e-3


def test_second_order_when_forces_do_not_depend_on_velocity():
    """A compound pendulum (one hinge, gravity): h = −m g l sin θ does not depend on u and M is constant,
    so the midpoint scheme is second order; reference: the same scheme at a 16 times smaller step."""
    def run(h):
        b = TreeBuilder()
        b.add_body("rod", joint="revolute", mass=2.0, inertia=(0.01, 0.2, 0.2), axis=(0, 1, 0),
                   child_point=(-0.5, 0, 0))
        s = b.build()
        s.q[0], s.u[0] = 0.3, 2.0
        s.step(h, int(round(1.0 / h)))
        return s.q[0]
    ref = run(1e-3 / 16)
    errors = [abs(run(h) - ref) for h in (4e-3, 2e-3, 1e-3)]
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 3.5) & (ratios < 4.5)), (errors, ratios)


def test_energy_of_a_free_tree_without_gravity_is_kept():
    """A floating random tree without gravity: no work is done, kinetic energy stays within 0.5 % over 2 s
    at 0.5 ms steps (a first-order scheme drifts; this bounds the drift)."""
    model, state = random_tree_model(5, n_bodies=6, floating=True, kinds=("hinge", "slider"),
                                     gravity=(0.0, 0.0, 0.0))
    state = _random_motion(model, state, 5, speed=1.0)
    method = make("moreau_minimal", model, contacts=False)
    s = state.copy()
    method.step(s, 5e-4)
    e0 = sum(method.system.energy())
    for _ in range(4000):
        method.step(s, 5e-4)
    e1 = sum(method.system.energy())
    assert abs(e1 - e0) < 5e-3 * abs(e0)


def test_refuses_what_it_cannot_model():
    model, _ = random_tree_model(2, n_bodies=3, kinds=("ball",))
    with pytest.raises(UnsupportedFeatureError, match="ball|spherical"):
        make("moreau_minimal", model, contacts=False)
