"""Sweep-and-prune: the pairs equal a brute-force AABB overlap test under the collision filter, step after
step of motion (so the insertion sort from the last step's order does the work), with bodies leaving the
scene and coming back, big shapes, compound bodies and static ones; and its sorts on their own."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import impulsim as ims
from impulsim.collision import Detector
from impulsim.collision import sap

EXAMPLES = settings(max_examples=30, derandomize=True, deadline=None)
FAR = 500.0
"""Distance [m] to which a leaving body jumps: far outside the scene, so it passes every other box."""


def _random_shape(rng, big):
    if big:
        return ims.Box(size=rng.uniform(0.1, 4.0, 3))
    kind = rng.integers(4)
    if kind == 0:
        return ims.Sphere(radius=rng.uniform(0.02, 0.3))
    if kind == 1:
        return ims.Box(size=rng.uniform(0.02, 0.6, 3))
    if kind == 2:
        return ims.Capsule(radius=rng.uniform(0.02, 0.15), length=rng.uniform(0.02, 0.4))
    return ims.Cylinder(radius=rng.uniform(0.02, 0.25), length=rng.uniform(0.02, 0.4))


def _random_scene(seed, n, side, p_big):
    """n bodies in a cube of ``side`` [m]: some big, some with two shapes, some static, random groups and
    masks, a few excluded pairs and a few joints."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("sap", gravity=(0, 0, 0))
    static = rng.random(n) < 0.15
    for i in range(n):
        shapes = [_random_shape(rng, rng.random() < p_big) for _ in range(1 + (rng.random() < 0.2))]
        b.add_body(f"b{i}", shapes=shapes, position=rng.uniform(0, side, 3), orientation=rng.normal(size=4),
                   static=bool(static[i]), collision_group=int(rng.choice([1, 2, 3])),
                   collision_mask=int(rng.choice([-1, -1, 1, 2])))
    for _ in range(n // 10):
        i, j = rng.choice(n, 2, replace=False)
        b.exclude_collision(f"b{i}", f"b{j}")
    for k in range(n // 10):
        i, j = rng.choice(n, 2, replace=False)
        if not (static[i] and static[j]):
            b.add_ball(f"j{k}", f"b{i}", f"b{j}", anchor=rng.uniform(0, side, 3))
    return b.build()


def _filtered_brute_force(model, det):
    """All shape pairs whose boxes overlap (closed intervals) and whose bodies the filter admits,
    written from the filter's rules, not from the detector's kernel."""
    fixed = (model.body_static + model.body_kinematic) > 0
    excluded = {tuple(sorted(map(int, p))) for p in model.collision_exclude}
    body = model.shape_body
    lo, hi = det.lo, det.hi
    overlap = np.all(lo[:, None, :] <= hi[None, :, :], axis=2) & np.all(lo[None, :, :] <= hi[:, None, :], axis=2)
    pairs = set()
    for i, j in zip(*np.nonzero(np.triu(overlap, 1))):
        a, c = int(body[i]), int(body[j])
        if a == c or (fixed[a] and fixed[c]) or (min(a, c), max(a, c)) in excluded:
            continue
        if (model.body_group[a] & model.body_mask[c]) == 0 or (model.body_group[c] & model.body_mask[a]) == 0:
            continue
        pairs.add((int(i), int(j)))
    return pairs


def _pairs(det, n):
    got = [tuple(map(int, p)) for p in det.pairs[:n]]
    assert len(got) == len(set(got)), "a pair was reported twice"
    assert all(a < b for a, b in got)
    return set(got)


def _move(state, moving, rng, scale, away):
    """Small random motion and turn of the ``moving`` bodies; the ``away`` bodies jump FAR off along x
    (or back, if they are already away)."""
    state.body_pos[moving] += rng.normal(scale=scale, size=(len(moving), 3))
    q = state.body_quat[moving] + rng.normal(scale=0.1, size=(len(moving), 4))
    state.body_quat[moving] = q / np.linalg.norm(q, axis=1, keepdims=True)
    for b in away:
        state.body_pos[b, 0] += -FAR if state.body_pos[b, 0] > FAR / 2 else FAR


@EXAMPLES
@given(seed=st.integers(0, 2 ** 31), n=st.integers(1, 70), side=st.floats(0.5, 6.0), p_big=st.floats(0.0, 0.2),
       scale=st.floats(0.0, 0.1))
def test_sap_pairs_equal_brute_force_over_steps_of_motion(seed, n, side, p_big, scale):
    model, state = _random_scene(seed, n, side, p_big)
    det, grid = Detector(model, broad_phase="sap"), Detector(model, broad_phase="grid")
    moving = np.nonzero((model.body_static + model.body_kinematic) == 0)[0]
    rng = np.random.default_rng(seed + 1)
    for step in range(8):
        found = _pairs(det, det.broad_phase(state))
        assert found == _filtered_brute_force(model, det), f"step {step}"
        assert found == _pairs(grid, grid.broad_phase(state))
        away = rng.choice(moving, min(len(moving), 2), replace=False) if step % 3 == 1 and len(moving) else []
        _move(state, moving, rng, scale, away)


def _inversions(keys):
    """Pairs i < j with keys[i] > keys[j]."""
    return int(np.triu(keys[:, None] > keys[None, :], 1).sum())


def test_steps_after_the_first_reuse_the_sorted_order():
    """Coherence: after the first step's full sort, each step's insertion sort starts from the last order
    and moves rows exactly as often as that order has inversions under the new boxes, and the pairs stay
    exact."""
    model, state = _random_scene(11, 300, 4.0, 0.0)
    det = Detector(model, broad_phase="sap")
    det.broad_phase(state)
    assert det.sap.full_sorts == 1
    rng = np.random.default_rng(0)
    moving = np.nonzero(model.body_static == 0)[0]
    for _ in range(5):
        before = det.sap.order.copy()
        _move(state, moving, rng, 0.01, [])
        det.update_poses(state)
        expected_moves = _inversions(det.lo[before, det.sap.axis])
        assert _pairs(det, det.broad_phase(state)) == _filtered_brute_force(model, det)
        assert det.sap.last_moves == expected_moves > 0
    assert det.sap.full_sorts == 1


def test_a_scrambled_order_falls_back_to_a_full_sort():
    """Teleporting every body costs the insertion sort more than its budget: the merge sort finishes."""
    model, state = _random_scene(12, 400, 4.0, 0.0)
    det = Detector(model, broad_phase="sap")
    det.broad_phase(state)
    moving = np.nonzero(model.body_static == 0)[0]
    state.body_pos[moving] = np.random.default_rng(1).permutation(state.body_pos[moving])
    assert _pairs(det, det.broad_phase(state)) == _filtered_brute_force(model, det)
    assert det.sap.last_moves == -1 and det.sap.full_sorts == 2


def test_sweep_axis_is_the_widest_spread_and_does_not_flip_on_small_changes():
    b = ims.ModelBuilder("row", gravity=(0, 0, 0))
    for i in range(40):
        b.add_body(f"s{i}", shapes=[ims.Sphere(radius=0.1)], position=(0.05 * (i % 3), 0.3 * i, 0.1 * (i % 5)))
    model, state = b.build()
    det = Detector(model, broad_phase="sap")
    det.broad_phase(state)
    assert det.sap.axis == 1
    y = state.body_pos[1:, 1].copy()
    state.body_pos[1:, 2] = 1.1 * y[::-1]        # z spreads a little wider than y: keep y
    det.broad_phase(state)
    assert det.sap.axis == 1 and det.sap.full_sorts == 1
    state.body_pos[1:, 2] *= 1.5                  # z clearly wider: switch, with a full sort
    assert _pairs(det, det.broad_phase(state)) == _filtered_brute_force(model, det)
    assert det.sap.axis == 2 and det.sap.full_sorts == 2


@pytest.mark.parametrize("n", [0, 1, 2, 7, 64, 1000])
def test_merge_sort_equals_a_stable_argsort(n):
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(n // 3, 1), n).astype(float)        # many ties: stability matters
    vals = np.arange(n, dtype=np.int64)
    expect = np.argsort(keys, kind="stable")
    sap.merge_sort(keys, vals, np.zeros(n), np.zeros(n, np.int64))
    np.testing.assert_array_equal(vals, expect)
    assert np.all(np.diff(keys) >= 0)


def test_insertion_sort_stops_at_its_budget_with_rows_and_order_in_agreement():
    rng = np.random.default_rng(3)
    n = 200
    box = rng.uniform(0, 1, (n, 6))
    order = np.arange(n, dtype=np.int64)
    first = box[:, 0].copy()
    assert sap.insertion_sort(box, order, np.int64(50)) == -1
    np.testing.assert_array_equal(box[:, 0], first[order])
    assert sorted(order) == list(range(n))
    moves = sap.insertion_sort(box, order, np.int64(n * n))
    assert moves > 0 and np.all(np.diff(box[:, 0]) >= 0)
    np.testing.assert_array_equal(box[:, 0], first[order])


def test_pair_order_depends_on_the_poses_not_on_the_history():
    """A detector that followed the motion and a fresh one at the final poses, sweeping the same axis, list
    the same pairs in the same order (no two boxes share a lower bound here)."""
    model, state = _random_scene(13, 200, 3.0, 0.1)
    moving = np.nonzero(model.body_static == 0)[0]
    followed = Detector(model, broad_phase="sap")
    rng = np.random.default_rng(4)
    for _ in range(6):
        followed.broad_phase(state)
        _move(state, moving, rng, 0.05, rng.choice(moving, 3, replace=False))
    n = followed.broad_phase(state)
    fresh = Detector(model, broad_phase="sap")
    assert fresh.broad_phase(state) == n > 0
    assert fresh.sap.axis == followed.sap.axis
    np.testing.assert_array_equal(followed.pairs[:n], fresh.pairs[:n])
