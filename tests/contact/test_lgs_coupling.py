"""Contacts with the LGS joint solver: one system solve per chain, then contact impulses, per iteration
(Bender 5.4). The joints hold to eps_d with contacts acting, and the result is the iterative method's."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.methods import make

H = 1e-3
EPS = 1e-8


def chain_on_box(n=4):
    """A chain of n rods hanging from the world, swinging down onto a static box."""
    b = ims.ModelBuilder("chain on box")
    b.add_body("table", shapes=[ims.Box(size=(1.0, 1.0, 0.2))], static=True, position=(1.3, 0, -1.3))
    for i in range(n):
        b.add_body(f"rod{i}", shapes=[ims.Box(size=(0.5, 0.08, 0.08))], mass=1.0, position=(0.25 + 0.5 * i, 0, 0))
        b.add_hinge(f"h{i}", "world" if i == 0 else f"rod{i - 1}", f"rod{i}", anchor=(0.5 * i, 0, 0),
                    axis=(0, 1, 0))
    return b.build()


def run(solver, seconds=1.2):
    model, state = chain_on_box()
    method = make("impulse", model, solver=solver, eps_d=EPS, eps_v=EPS, eps_vc=1e-8)
    contacts, worst = 0, 0.0
    for _ in range(int(round(seconds / H))):
        contacts += method.step(state, H).n_contacts
        worst = max(worst, diagnostics.constraint_errors(model, state).max())
    return state, contacts, worst


def test_lgs_with_contacts_keeps_the_joints_and_agrees_with_the_iterative_method():
    s_lgs, contacts, worst = run("lgs")
    assert contacts > 50                        # the chain hit the box and slid along it for many steps
    assert worst <= 10 * EPS                   # joint errors: eps_d per step (rounding of the prediction)
    s_it, _, _ = run("iterative")
    # both solve the same conditions to 1e-8; the contact sequence differs in order only
    assert np.abs(s_lgs.body_pos - s_it.body_pos).max() < 1e-4
