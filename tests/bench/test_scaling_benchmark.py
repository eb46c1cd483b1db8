"""benchmarks/scaling.py on its two smallest models with two short rounds: the records carry every column, the
impulse method holds its joints to eps_d over every step it took, its run loop and its step loop reach the
same states bit for bit, MuJoCo starts from the impulse method's state, and a ratio against an unstable
MuJoCo run is flagged. Also: a chain nested deeper than MuJoCo's XML parser allows is converted all the same."""
import os
import sys

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install mujoco, the bench extra)")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
import scaling  # noqa: E402

from impulsim.bench import mujoco_peer  # noqa: E402
from impulsim.experiments import bender as scenes  # noqa: E402

EPS_D = EPS_V = 1e-6
"""The impulse method's default tolerances [m], [m/s], which the benchmark uses."""
ROUNDING = 1e-12
"""[m] The joint error is recomputed by impulsim.dynamics.diagnostics from the poses, not taken from the solver:
the two evaluations of the same anchor distance differ by rounding of coordinates of a few metres (~1e-15 m),
far below this."""
SMALLEST = ("chain10", "tree63")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scaling, "BLOCK_S", 0.002)      # short blocks: the test checks physics, not speed
        return {key: scaling.measure(key, rounds=2) for key in SMALLEST}


def depth(key):
    """Joints between the fixed point and the farthest body."""
    scene, n, _ = scaling.MODELS[key]
    return n if scene == "chain" else scenes.tree_size_levels(n)


@pytest.mark.parametrize("key", SMALLEST)
def test_records_have_every_column(records, key):
    rec = records[key]
    assert rec["rounds"] == 2
    assert set(rec["us"]) == set(scaling.CONTENDERS) and all(v > 0 for v in rec["us"].values())
    assert {"run/euler", "run/rk4", "step/euler", "step/rk4", "run/step"} <= set(rec["ratios"])
    # a ratio of medians of the same rounds: the median ratio lies between the extremes of the per-round ones,
    # so it is within a factor of the ratio of medians that no load change on a shared machine explains
    assert 0.2 < rec["ratios"]["run/euler"] / (rec["us"]["run"] / rec["us"]["euler"]) < 5
    assert set(rec["mujoco_stable"]) == {"euler", "rk4"}
    assert rec["solves_pos"] >= 1 and rec["solves_vel"] >= 1
    assert all(n > 0 for n in rec["steps"].values())
    assert scaling.row(rec).count("|") == scaling.HEADER.count("|")


@pytest.mark.parametrize("key", SMALLEST)
def test_impulse_holds_every_joint_to_eps_d_over_the_measured_steps(records, key):
    rec = records[key]
    assert rec["converged"]
    assert rec["max_joint_error"] <= EPS_D + ROUNDING
    # the compiled loop and the Python loop are the same arithmetic: the checked re-run reaches both states exactly
    assert rec["replay_identical"] == {"run": True, "step": True}


@pytest.mark.parametrize("key", SMALLEST)
def test_mujoco_starts_from_the_impulse_state(records, key):
    """MuJoCo takes our angular velocities as they are and rebuilds every centre velocity through the joints
    above the body; ours satisfy each joint's velocity constraint to eps_v, so a body's centre velocity may
    differ by eps_v per joint on its path, and the momentum by the total mass times that."""
    rec = records[key]
    model, _ = scaling.build(key)
    mass = float(model.body_mass[1:].sum())
    assert rec["start_velocity_gap"] <= depth(key) * EPS_V
    assert rec["start_momentum_gap"] <= mass * depth(key) * EPS_V
    # and the start moves (the chain's links at 2 m/s, the tree's kick): the bound is below 1e-3 of the momentum
    assert rec["start_momentum"] > 1e3 * mass * depth(key) * EPS_V


def test_a_ratio_against_an_unstable_mujoco_run_is_flagged(records):
    rec = dict(records["chain10"])
    rec["mujoco_stable"] = {"euler": False, "rk4": True}
    rec["mujoco_warnings"] = {"euler": {"mjWARN_BADQACC": 3}, "rk4": {}}
    assert scaling.ratio(rec, "run/euler").endswith("(unstable)")
    assert not scaling.ratio(rec, "run/rk4").endswith("(unstable)")
    assert "mjWARN_BADQACC 3" in scaling.stability(rec)


def test_a_chain_deeper_than_the_xml_parser_allows_is_the_same_model():
    """MuJoCo's XML reader refuses more than 500 nested elements; the MjSpec built from the same MJCF must be
    the model the XML reader builds (checked on a chain it can still read), and a deeper one must build."""
    model, state = scenes.chain(40)
    xml, _, _ = mujoco_peer.to_mjcf(model, state, 0.01, "RK4")
    a, b = mujoco.MjModel.from_xml_string(xml), mujoco_peer._spec_of(xml).compile()
    for f in ("body_mass", "body_inertia", "body_pos", "body_quat", "body_ipos", "jnt_pos", "jnt_axis", "jnt_type",
              "body_parentid", "dof_armature", "dof_damping"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert (a.opt.timestep, a.opt.integrator, a.opt.disableflags, a.opt.enableflags) == \
           (b.opt.timestep, b.opt.integrator, b.opt.disableflags, b.opt.enableflags)
    da, db = mujoco_peer.initial_data(mujoco_peer.PeerModel(a, {}, {}, []), model, state), mujoco.MjData(b)
    db.qpos[:], db.qvel[:] = da.qpos, np.random.default_rng(3).normal(size=b.nv)
    da.qvel[:] = db.qvel
    for _ in range(20):
        mujoco.mj_step(a, da)
        mujoco.mj_step(b, db)
    assert np.array_equal(da.qpos, db.qpos)
    loops, loops_state = scenes.three_loops()        # hinges and the connect equalities that close the loops
    xml, _, _ = mujoco_peer.to_mjcf(loops, loops_state, 1 / 30)
    a, b = mujoco.MjModel.from_xml_string(xml), mujoco_peer._spec_of(xml).compile()
    for f in ("jnt_axis", "jnt_type", "eq_type", "eq_obj1id", "eq_obj2id", "eq_data", "eq_solref", "eq_solimp"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    deep, deep_state = scenes.chain(520)
    peer = mujoco_peer.build(deep, deep_state, 0.01)
    assert peer.mj_model.nbody == 521 and peer.mj_model.nv == 3 * 520
