"""Bender's tree of 31 bodies at h = 1/30 s with the thesis's kick (10 N m on the root for one step).

As printed (lengths 1.5^(maxDepth − depth) · 0.1 m with maxDepth = 4) the kick spins the 4.7 kg tree so
fast that bodies turn by radians in a step, and both impulse solvers lose the joints within 60 steps (measured:
the LGS correction diverges at step 25 and the step raises CorrectionDiverged; the iterative solver stops
converging at step 52). Built with the lengths of the 127-body tree (its top five
levels: root 1.14 m, 10.5 kg) the same kick turns bodies by 0.1 rad a step and both solvers hold every joint
to eps_d for the thesis's 500 steps; the thesis's tree-31 timings fit that model, not the printed one."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.experiments import bender as B
from impulsim.methods.impulse.lgs import CorrectionDiverged

H = 1.0 / 30.0


def run(solver, lengths_of, steps):
    model, state = B.tree(5, lengths_of=lengths_of)
    method = ims.make_method("impulse", model, solver=solver, eps_d=1e-6, eps_v=1e-6, max_iter_pos=1000,
                             max_iter_vel=1000)
    fastest, worst = 0.0, 0.0
    for i in range(steps):
        state.body_torque[1] = np.array(B.TREE_TORQUE) if i == 0 else 0.0
        try:
            info = method.step(state, H)
        except CorrectionDiverged:
            return i + 1, fastest, worst
        worst = max(worst, float(np.max(diagnostics.constraint_errors(model, state))))
        fastest = max(fastest, float(np.linalg.norm(state.body_omega, axis=1).max()))
        if not (info.converged_pos and info.converged_vel):
            return i + 1, fastest, worst
    return None, fastest, worst


@pytest.mark.parametrize("solver", ["lgs", "iterative"])
def test_tree31_with_the_lengths_of_tree127_runs_the_thesis_500_steps(solver):
    failed, fastest, worst = run(solver, 7, 500)
    assert failed is None and worst <= 1e-6
    assert fastest * H < 0.15           # measured 3.04 rad/s: 0.10 rad per step


@pytest.mark.parametrize("solver", ["lgs", "iterative"])
def test_tree31_as_printed_turns_its_bodies_by_radians_per_step(solver):
    failed, fastest, _ = run(solver, None, 60)
    assert failed is not None            # measured: step 26 (LGS, diverged), 52 (iterative)
    # measured: 0.64 rad per step (19 rad/s) in the 25 steps before the LGS correction diverged; 6.6 rad per
    # step under the iterative solver (whose unconverged steps go on)
    assert fastest * H > 0.5
