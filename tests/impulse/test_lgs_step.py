"""The fused LGS step (methods/impulse/lgs_step.py) is the staged step in one kernel: same results bit for bit."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.experiments import bender as scenes
from tests.impulse.random_models import random_model


def run(model, state, steps, h, fused, torque=None, **options):
    method = ims.make_method("impulse", model, solver="lgs", fused=fused, **options)
    st = state.copy()
    infos = []
    for k in range(steps):
        if torque is not None:
            st.body_torque[1] = torque if k == 0 else 0.0
        infos.append(method.step(st, h))
    return method, st, infos


@pytest.mark.parametrize("scene, steps, h, torque", [
    (lambda: scenes.tree(5), 25, 1 / 30, scenes.TREE_TORQUE),
    (lambda: scenes.chain(10), 50, 0.01, None),
    (lambda: random_model(3, 12, loops=1), 40, 0.01, None),
], ids=["tree31", "chain10", "random_loop"])
def test_fused_step_equals_the_staged_step_bit_for_bit(scene, steps, h, torque):
    # the fused kernel calls the same compiled stages in the same order on the same arrays, so nothing
    # may differ, not even in the last bit; the step reports the same iterations and residuals
    model, state = scene()
    fused, a, info_a = run(model, state, steps, h, True, torque)
    staged, b, info_b = run(model, state, steps, h, False, torque)
    assert fused._fused and not staged._fused
    for name in ("body_pos", "body_quat", "body_vel", "body_omega"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for x, y in zip(info_a, info_b):
        assert (x.iters_pos, x.iters_vel, x.residual_pos, x.residual_vel, x.clamped) == \
               (y.iters_pos, y.iters_vel, y.residual_pos, y.residual_vel, y.clamped)
    assert fused.factorizations == staged.factorizations
    assert fused.dropped_rows == staged.dropped_rows


def test_fused_and_staged_steps_fail_alike_when_the_correction_diverges():
    # Bender's printed tree 31 turns by radians a step after its kick; the joint correction of its step 25
    # diverges: both steps raise the same error and leave the same state (that after step 24)
    from impulsim.methods.impulse.lgs import CorrectionDiverged
    model, state = scenes.tree(5)
    outcomes = []
    for fused in (True, False):
        with pytest.raises(CorrectionDiverged) as raised:
            run(model, state, 30, 1 / 30, fused, scenes.TREE_TORQUE)
        outcomes.append(str(raised.value))
    assert outcomes[0] == outcomes[1] and "step 25 " in outcomes[0]
    _, a, _ = run(model, state, 25, 1 / 30, True, scenes.TREE_TORQUE)
    _, b, _ = run(model, state, 25, 1 / 30, False, scenes.TREE_TORQUE)
    for fused, st in ((True, a), (False, b)):
        method = ims.make_method("impulse", model, solver="lgs", fused=fused)
        before = st.copy()
        with pytest.raises(CorrectionDiverged):
            method.step(st, 1 / 30)
        for name in ("body_pos", "body_quat", "body_vel", "body_omega"):
            assert np.array_equal(getattr(st, name), getattr(before, name)), name


def test_staged_step_reports_every_stage_and_fused_one():
    model, state = scenes.tree(5)
    _, _, staged = run(model, state, 2, 1 / 30, False)
    _, _, fused = run(model, state, 2, 1 / 30, True)
    assert {"rows", "joint_correction", "free_step", "velocity_correction"} <= set(staged[-1].timings)
    assert set(fused[-1].timings) == {"lgs_step"}


@pytest.mark.parametrize("options", [dict(solver="iterative"), dict(scheme="order2"),
                                     dict(velocity_correction=False), dict(loops="cut")])
def test_models_outside_the_fixed_sequence_take_the_staged_step(options):
    model, _ = random_model(3, 12, loops=1)
    method = ims.make_method("impulse", model, **dict(dict(solver="lgs"), **options))
    assert not method._fused
