"""A diverging joint correction is refused also where joints are corrected together with contacts and limits.

With contacts or joint limits, the impulse step alternates joint passes (one LGS solve per chain, one sweep
over the other joints) with contact and limit sweeps. Bender's chain of 200 links at h = 10 ms with the
iterative solver diverges in its second step (see test_iterative_divergence.py); with contacts switched on
(its links are boxes) the same step used to end silently with the joints open by 2.29 m and bodies at
1.3e3 m/s. The coupled correction now applies the rule of the joint correction alone (DIVERGENCE_FACTOR) and
fails the step with the state as it was.
"""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.experiments import bender as B
from impulsim.methods.impulse.lgs import CorrectionDiverged
from impulsim.methods.impulse.lgs_correct import DIVERGENCE_FACTOR

from tests.contact.test_lgs_coupling import chain_on_box
from tests.impulse.test_iterative_divergence import EPS, H, LINKS, assert_unchanged, every_array


def started_chain(contacts: bool, coupled: bool = True):
    """Chain 200 (iterative solver, contacts on or off) after its first step, which does not diverge. No contact
    is found in these steps; with ``coupled`` the steps take the coupled correction all the same, as a step
    with a contact would (a step that finds none otherwise finishes as without contacts, contact_step)."""
    model, state = B.chain(LINKS)
    method = ims.make_method("impulse", model, solver="iterative", eps_d=EPS, eps_v=EPS, contacts=contacts)
    assert (method.contacts is not None) == contacts
    if contacts and coupled:
        method._joints_alone_when_untouched = False
    method.step(state, H)
    return model, state, method


def test_coupled_step_raises_with_every_array_unchanged():
    _, state, method = started_chain(contacts=True)
    before = every_array(state)
    with pytest.raises(CorrectionDiverged) as caught:
        method.step(state, H)
    assert_unchanged(state, before)
    message = str(caught.value)
    assert "\n" not in message and "joint correction with contacts and limits diverged" in message
    assert f"after {caught.value.solves} passes" in message and "smaller h" in message


def test_coupled_refusal_is_the_plain_corrections_when_no_contact_acts():
    """No contact acts in that step, so each coupled pass is one sweep of the plain iterative correction: the
    refusal comes at the same sweep with the same opening, long before the 2.29 m it used to reach."""
    _, coupled_state, coupled = started_chain(contacts=True)
    _, plain_state, plain = started_chain(contacts=False)
    with pytest.raises(CorrectionDiverged) as with_contacts:
        coupled.step(coupled_state, H)
    with pytest.raises(CorrectionDiverged) as without:
        plain.step(plain_state, H)
    assert with_contacts.value.solves == without.value.solves
    assert with_contacts.value.residual == pytest.approx(without.value.residual, rel=1e-9)
    assert with_contacts.value.residual < 1e-3 * DIVERGENCE_FACTOR


def test_a_step_that_finds_no_contact_is_refused_as_without_contacts():
    """By default the diverging step, which finds no contact, is the plain correction's: the same refusal, with
    the state unchanged."""
    _, state, method = started_chain(contacts=True, coupled=False)
    _, plain_state, plain = started_chain(contacts=False)
    before = every_array(state)
    with pytest.raises(CorrectionDiverged) as caught:
        method.step(state, H)
    assert_unchanged(state, before)
    with pytest.raises(CorrectionDiverged) as without:
        plain.step(plain_state, H)
    assert str(caught.value) == str(without.value)


@pytest.mark.parametrize("solver", ["lgs", "iterative"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_chain_hitting_a_box_is_not_refused(solver, seed):
    """Contact impulses open the joints between passes; that is no divergence. A chain of five hinged rods
    spun at random rates (σ = 3 rad/s about the hinge axis) swings into a table: every step is taken and the
    joints end closed to the tolerance."""
    model, state = chain_on_box(5)
    rng = np.random.default_rng(seed)
    state.body_omega[1:, 1] += rng.normal(scale=3.0, size=state.body_omega.shape[0] - 1)
    method = ims.make_method("impulse", model, solver=solver, eps_d=1e-8, eps_v=1e-8, eps_vc=1e-8)
    contacts = 0
    for _ in range(400):
        contacts += method.step(state, 2e-3).n_contacts
    assert contacts > 0
    assert diagnostics.constraint_errors(model, state).max() < 1e-6
