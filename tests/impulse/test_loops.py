"""Closed loops with the LGS solver, without touching the joints: every joint stays within eps_d.

Bender (3.3.2.3) had to replace one hinge per loop by a cardan joint by hand, because the hinges of a loop
remove more freedoms than the loop has. Here the redundant rows are dropped during the factorization
("drop") or the loop-closing joints are corrected one impulse at a time after each solve ("cut").
"""
import numpy as np
import pytest

import impulsim as ims
from impulsim.experiments import bender as scenes
from impulsim.dynamics import diagnostics
from tests.impulse.random_models import four_bar

EPS_D = 1e-6        # Bender's tolerance in Table 3.6
H = 1.0 / 30.0      # Bender's step for the loop model
STEPS = 1000
# the motion is a gentle swing (energy 69 J, kinetic at most ~0.5 J): 1000 steps of the standard scheme keep
# the total energy within 0.1 J (measured 0.05 J); a blow-up would show as a jump of joules
ENERGY_BAND = 0.1


@pytest.mark.slow
@pytest.mark.parametrize("loops", ["drop", "cut"])
def test_three_loops_keep_every_joint_within_eps_d_for_1000_steps(loops):
    model, state = scenes.three_loops()
    method = ims.make_method("impulse", model, solver="lgs", loops=loops, eps_d=EPS_D, eps_v=EPS_D)
    chain, = method.describe_chains()
    assert len(chain["cut_joints"]) == 3                # one loop-closing hinge per loop
    energies = []
    for _ in range(STEPS):
        info = method.step(state, H)
        assert info.converged_pos and info.converged_vel
        assert diagnostics.constraint_errors(model, state).max() <= EPS_D
        energies.append(diagnostics.total_energy(model, state))
    assert np.ptp(energies) <= ENERGY_BAND
    # 3 loops × 3 redundant rows (the out-of-plane rows of one hinge per loop)
    assert method.dropped_rows == (9 if loops == "drop" else 0)


def test_four_bar_through_the_ground_is_a_loop():
    """The world closes the four-bar: found as a loop although the moving bodies form a path. The traversal
    starts at the ground, which reaches "left" and "right" directly; "bottom_right" then reaches a marked
    body and closes the loop."""
    model, state = four_bar()
    method = ims.make_method("impulse", model, solver="lgs", eps_d=EPS_D, eps_v=EPS_D)
    chain, = method.describe_chains()
    assert chain["cut_joints"] == ["bottom_right"]
    for _ in range(300):
        info = method.step(state, H)
        assert info.converged_pos
        assert diagnostics.constraint_errors(model, state).max() <= EPS_D
    assert method.dropped_rows == 3
