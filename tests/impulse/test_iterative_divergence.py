"""The iterative joint solver refuses a diverging step, as the LGS solver does (see test_long_chains.py).

Bender's ball-joint chain of 200 links (1 m, 1 kg each, every link at 2 m/s in a seeded direction) at
h = 10 ms with the iterative solver: the first step stops at the 10,000-sweep cap with the joints open by
2.4e-4 m; in the second the joints are open by 6.3e-4 m at the free prediction, the sweeps bring that down to
2.2e-4 m by sweep 1,000 and then open them again (3.7e-4 m at 2,000 sweeps, 4.6e-3 m at 2,900). Before, the
step swept on to its cap, returned with the joints open by 2.7 m and bodies at 1.1e4 m/s, and the following
steps carried on with the chain in pieces. Now the sweeps stop once the error is ten times
(DIVERGENCE_FACTOR) that of the free prediction (sweep 2,946, 6.4e-3 m) and the step raises
CorrectionDiverged with the state as it was.
"""
import warnings

import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.experiments import bender as B
from impulsim.methods.impulse import run_path
from impulsim.methods.impulse.lgs import CorrectionDiverged
from impulsim.methods.impulse.lgs_correct import DIVERGENCE_FACTOR

EPS = 1e-6
H = 0.01
LINKS = 200
MOTION = ("body_pos", "body_quat", "body_vel", "body_omega")


def started_chain():
    """Chain 200 with the iterative solver after its first step (it ends at the sweep cap, not diverged)."""
    model, state = B.chain(LINKS)
    method = ims.make_method("impulse", model, solver="iterative", eps_d=EPS, eps_v=EPS)
    info = method.step(state, H)
    assert not info.converged_pos and info.residual_pos < 1e-3
    return model, state, method


def every_array(state):
    """Every array of a State, and its time and step count."""
    out = {k: v.copy() for k, v in vars(state).items() if isinstance(v, np.ndarray)}
    assert set(MOTION) <= set(out)
    return out, state.t, state.step_count


def assert_unchanged(state, before):
    arrays, t, count = before
    for name, value in arrays.items():
        assert np.array_equal(getattr(state, name), value), name
    assert state.t == t and state.step_count == count


def test_long_chain_step_raises_with_every_array_unchanged():
    model, state, method = started_chain()
    before = every_array(state)
    with pytest.raises(CorrectionDiverged) as caught:
        method.step(state, H)
    assert_unchanged(state, before)
    exc = caught.value
    # raised while the joints are still nearly closed (before: 2.7 m), long before the cap
    assert 0.0 < exc.residual / DIVERGENCE_FACTOR < 1e-3 and 0 < exc.solves < method.max_iter_pos
    # the method can go on from the unchanged state: a step a quarter as long ends with the joints closer than
    # the refused step's free prediction had them (at most residual / DIVERGENCE_FACTOR)
    info = method.step(state, H / 4)
    assert state.step_count == before[2] + 1
    assert np.max(diagnostics.constraint_errors(model, state)) < exc.residual / DIVERGENCE_FACTOR
    assert np.isfinite(info.residual_pos)


def test_error_message_names_step_time_step_size_and_remedy():
    _, state, method = started_chain()
    with pytest.raises(CorrectionDiverged) as caught:
        method.step(state, H)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"step {state.step_count} (t = {state.t:.6g} s): the iterative joint correction")
    assert f"after {caught.value.solves} sweeps" in message and f"h = {H:g} s" in message
    assert "smaller h" in message and "state was left at the last good step" in message


def test_compiled_run_fails_at_the_same_step_with_the_same_error(monkeypatch):
    """Method.run in its compiled loop (taken here however short the run) stops at the same step with the same
    error as single steps, the state at the last good step in both."""
    monkeypatch.setattr(run_path, "loop_ready", lambda path, n, elements=False: True)
    _, a, method = started_chain()
    assert method.run_path == "iterative"
    before = every_array(a)
    with pytest.raises(CorrectionDiverged) as by_step:
        for _ in range(5):
            method.step(a, H)
    assert_unchanged(a, before)
    _, b, method = started_chain()
    with pytest.raises(CorrectionDiverged) as by_run:
        method.run(b, H, 5)
    assert str(by_run.value) == str(by_step.value)
    assert_unchanged(b, before)


def test_converging_chain_never_raises_over_two_seconds(monkeypatch):
    """Chain 50 at h = 10 ms from seeded random link velocities (2 m/s each) converges at every step (up to
    5,556 sweeps a step): over 2 s no step may be refused and every joint ends within eps_d, by single steps
    and in the compiled run alike."""
    model, state = B.chain(50)
    method = ims.make_method("impulse", model, solver="iterative", eps_d=EPS, eps_v=EPS)
    for _ in range(100):
        info = method.step(state, H)
        assert info.converged_pos and info.residual_pos <= EPS
        assert np.max(diagnostics.constraint_errors(model, state)) <= EPS
    monkeypatch.setattr(run_path, "loop_ready", lambda path, n, elements=False: True)
    info = method.run(state, H, 100)
    assert info.converged_pos and info.steps == 100 and info.residual_pos <= EPS
    assert np.max(diagnostics.constraint_errors(model, state)) <= EPS
    assert state.t == pytest.approx(2.0, rel=1e-12)


def test_a_correction_stopped_at_its_cap_still_returns_and_warns():
    """The anytime cap is unchanged: chain 20 capped at 7 sweeps a step does not converge but does not
    diverge either; its steps return with the joints open (reported), and Simulation warns once that the
    joint correction stopped at its cap (as for the LGS solver)."""
    model, state = B.chain(20)
    sim = ims.Simulation(model, state, "impulse", h=H, solver="iterative", eps_d=EPS, eps_v=EPS, max_iter_pos=7)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim.run(1.0)
    assert sim.state.step_count == 100
    assert not sim.last_info.converged_pos and sim.last_info.iters_pos == 7
    opened = [w for w in caught if issubclass(w.category, RuntimeWarning)
              and "joint correction stopped at its cap" in str(w.message)]
    assert len(opened) == 1


def test_spinning_chain_refused_where_it_diverges_and_held_by_halving():
    """Chain 50 with every ball joint spinning (σ = 1 rad/s, seed 5; 835 kJ of kinetic energy) at h = 2.5 ms:
    the iterative correction converges for 60 steps and diverges in the 61st (step 60; before, that step
    returned with the joints open by 3 cm and the chain flew apart, a body reaching 1.5e6 m/s by step 724).
    The step is refused with the state unchanged, and HalvingStepper (whose budget for an iterative method
    is the method's own sweep cap) goes on from there with every joint within eps_d after every step."""
    from impulsim.experiments.fast_motion import spin_joints
    from impulsim.methods.impulse.lgs_halving import HalvingStepper
    model, state = B.chain(50)
    spin_joints(model, state, 1.0, 5)
    method = ims.make_method("impulse", model, solver="iterative", eps_d=EPS, eps_v=EPS)
    h = 0.0025
    with pytest.raises(CorrectionDiverged):
        for _ in range(70):
            before = every_array(state)
            info = method.step(state, h)
            assert info.converged_pos and np.max(diagnostics.constraint_errors(model, state)) <= EPS
    assert_unchanged(state, before)
    assert state.step_count == 60
    stepper = HalvingStepper(method)
    assert stepper.budget == method.max_iter_pos
    k0 = diagnostics.kinetic_energy(model, state)
    e0 = diagnostics.total_energy(model, state)
    halved = 0
    for _ in range(20):
        info = stepper.step(state, h)
        assert info.converged_pos
        assert np.max(diagnostics.constraint_errors(model, state)) <= EPS
        halved += info.substeps > 1
        # the joints hold the motion: the total energy stays within 1e-4 of the kinetic energy (measured:
        # within ±15.5 J of 830 kJ, 1.9e-5, over these 20 steps)
        assert abs(diagnostics.total_energy(model, state) - e0) <= 1e-4 * k0
    assert halved > 0
