"""Long hanging chains at a step too large for them: the LGS joint correction fails early and says so.

Bender's ball-joint chain of 200 links (1 m, 1 kg each, hanging from the origin, every link at 2 m/s in a
seeded direction) at h = 10 ms: every step converges in a few solves until t ≈ 0.5 s, when one step's
correction diverges (its error falls from ~5e-4 m to ~4e-5 m and then grows by a factor ~2 a solve). The
tension near the top (~200 · 9.81 N) makes each link rock about its centre at ω ≈ sqrt(12 T / (m L)) ≈ 150
rad/s, ωh ≈ 1.5: the correction's system loses its solution there (see docs/lgs.md, "Long hanging chains").
Before, such a step went on solving until a body passed 1e5 m/s; now the step raises CorrectionDiverged
as soon as the joints are open ten times more than before the correction, and leaves the state as it was.
Step halving holds the same run with every joint within eps_d.
"""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.experiments import bender as B
from impulsim.methods.impulse.lgs import CorrectionDiverged
from impulsim.methods.impulse.lgs_correct import DIVERGENCE_FACTOR
from impulsim.methods.impulse.lgs_halving import HalvingStepper

EPS = 1e-6
H = 0.01
LINKS = 200
FAILS_BY = 60
"""Steps within which the plain run fails (measured: the 53rd after the first step)."""


def started_chain():
    """Chain 200 after one first step (which projects the random initial velocities onto the joints)."""
    model, state = B.chain(LINKS)
    method = ims.make_method("impulse", model, solver="lgs", eps_d=EPS, eps_v=EPS)
    method.step(state, H)
    return model, state, method


def test_long_chain_step_fails_early_with_the_state_unchanged():
    model, state, method = started_chain()
    for _ in range(FAILS_BY):
        before = state.copy()
        try:
            method.step(state, H)
        except CorrectionDiverged as exc:
            # the error names the step and the remedy, and is raised while the joints are still nearly closed
            assert f"step {before.step_count} " in str(exc) and "HalvingStepper" in str(exc)
            first = exc.residual / DIVERGENCE_FACTOR
            assert 0.0 < first < 1e-2 and exc.solves < 100
            for name in ("body_pos", "body_quat", "body_vel", "body_omega"):
                assert np.array_equal(getattr(state, name), getattr(before, name))
            assert state.t == before.t and state.step_count == before.step_count
            break
        # every step before the failing one converged: no step returns with its joints open
        assert np.max(diagnostics.constraint_errors(model, state)) <= EPS
        assert np.linalg.norm(state.body_vel, axis=1).max() < 10.0
    else:
        pytest.fail(f"chain {LINKS} at h = {H} s did not fail within {FAILS_BY} steps")


def test_compiled_run_fails_at_the_same_step_with_the_same_error():
    model, state, method = started_chain()
    a = state.copy()
    with pytest.raises(CorrectionDiverged) as by_step:
        for _ in range(FAILS_BY):
            method.step(a, H)
    model, b, method = started_chain()
    with pytest.raises(CorrectionDiverged) as by_run:
        method.run(b, H, FAILS_BY)
    assert str(by_run.value) == str(by_step.value)
    assert b.step_count == a.step_count
    for name in ("body_pos", "body_quat", "body_vel", "body_omega"):
        assert np.array_equal(getattr(a, name), getattr(b, name))


def test_halving_holds_the_long_chain_with_every_joint_closed():
    """HalvingStepper takes the steps that diverge as two half steps: over 150 steps (past the failing one)
    every joint stays within eps_d and the energy within 2 % of the initial kinetic energy (measured: total
    energy within −2.3 … +3.7 J of its start, kinetic 519 J; 1.37 substeps a step on average, at most 2)."""
    model, state, method = started_chain()
    stepper = HalvingStepper(method)
    e0 = diagnostics.total_energy(model, state)
    k0 = diagnostics.kinetic_energy(model, state)
    halved = 0
    for _ in range(150):
        info = stepper.step(state, H)
        assert info.converged_pos
        assert np.max(diagnostics.constraint_errors(model, state)) <= EPS
        assert abs(diagnostics.total_energy(model, state) - e0) <= 0.02 * k0
        halved += info.substeps > 1
    assert halved > 0           # the run does need the halving
    assert state.t == pytest.approx(1.51, rel=1e-12)
