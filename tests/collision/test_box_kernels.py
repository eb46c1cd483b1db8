"""The dedicated box–box and box–half-space kernels give the contacts of the general path.

``Detector.detect`` sends box pairs to boxes.py; ``pairs.collide`` is the general path (load the cores,
SAT, GJK when apart, contact region of the features). Random heaps, stacks with gaps around 0 and eps_c,
and tilted boxes are run through both, pair by pair: same pairs, same normals, same point pairs,
distances and feature ids.
"""
import numpy as np
import pytest

import impulsim as ims
from impulsim.collision import Detector
from impulsim.collision.contacts import make_buffers
from impulsim.collision.pairs import collide
from impulsim.geometry import HalfSpace
from tests.collision.reference import random_quat

EPS_C = 1e-3
POINT_TOL = 1e-9
"""Both paths intersect the same features along normals that agree to rounding (GJK's normal of two
boxes apart by less than eps_c is the SAT axis up to ~1e-15): points agree far below 1e-9 m."""


def _heap(seed, n=40):
    """n boxes of random sizes and orientations crowded into a small volume over the ground."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("boxes", gravity=(0, 0, 0))
    b.add_body("ground", shapes=[HalfSpace()], static=True)
    for i in range(n):
        b.add_body(f"b{i}", shapes=[ims.Box(size=rng.uniform(0.1, 0.4, 3))],
                   position=rng.uniform((-0.6, -0.6, 0.0), (0.6, 0.6, 0.8)), orientation=random_quat(rng))
    return b.build()


def _stacks(seed, n=30):
    """Columns of two boxes, the upper one turned about z, tilted a little and lowered to a gap in
    [−2 eps_c, 2 eps_c] above the lower one's top (face–face, edge–face and corner contacts, some apart
    by less than eps_c); the lower boxes rest on the ground with the same kind of gap."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("stacks", gravity=(0, 0, 0))
    b.add_body("ground", shapes=[HalfSpace()], static=True)
    for i in range(n):
        size = rng.uniform(0.1, 0.4, 3)
        x, y = 1.0 * (i % 6), 1.0 * (i // 6)
        gap0 = rng.uniform(-2, 2) * EPS_C
        b.add_body(f"low{i}", shapes=[ims.Box(size=size)], position=(x, y, 0.5 * size[2] + gap0))
        tilt = rng.choice([0.0, 1e-3, 0.05, 0.2])
        axis = np.array([*rng.normal(size=2), 0.0])
        axis /= np.linalg.norm(axis)
        turn = rng.uniform(0, np.pi)
        qz = np.array([np.cos(turn / 2), 0, 0, np.sin(turn / 2)])
        qt = np.array([np.cos(tilt / 2), *(np.sin(tilt / 2) * axis)])
        q = ims.math.quat_mul(qt, qz)
        size_b = rng.uniform(0.1, 0.4, 3)
        # lowest point of the turned, tilted upper box below its centre
        from impulsim.math import quat_to_matrix
        R = quat_to_matrix(q)
        depth_b = 0.5 * np.abs(R[2]) @ size_b
        gap = rng.uniform(-2, 2) * EPS_C
        b.add_body(f"up{i}", shapes=[ims.Box(size=size_b)],
                   position=(x + rng.uniform(-0.1, 0.1), y + rng.uniform(-0.1, 0.1),
                             size[2] + gap0 + depth_b + gap), orientation=q)
    return b.build()


def _corners(seed, n=24, gaps=None):
    """Pairs of randomly turned boxes corner to corner, a gap in (0, 1.5 eps_c] apart: the corner of A
    along the diagonal direction u faces the corner of B supporting −u. Then no SAT axis gives the
    distance (GJK decides), and the box kernel must hand the pair to the general path."""
    from impulsim.math import quat_to_matrix
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("corners", gravity=(0, 0, 0))
    for i in range(n):
        ha, hb = rng.uniform(0.05, 0.2, 3), rng.uniform(0.05, 0.2, 3)
        qa, qb = random_quat(rng), random_quat(rng)
        Ra, Rb = quat_to_matrix(qa), quat_to_matrix(qb)
        pa = np.array([2.0 * i, 0.0, 0.0])
        signs = rng.choice([-1.0, 1.0], 3)
        corner_a = pa + Ra @ (signs * ha)
        u = Ra @ signs
        u /= np.linalg.norm(u)          # inside the corner's normal cone: A's closest point to B
        corner_b = Rb @ (np.sign(Rb.T @ -u) * hb)         # B's corner supporting −u, from B's centre
        gap = rng.uniform(0.05, 1.5) * EPS_C
        pb = corner_a + gap * u - corner_b
        if gaps is not None:
            gaps.append(gap)
        b.add_body(f"a{i}", shapes=[ims.Box(size=2 * ha)], position=pa, orientation=qa)
        b.add_body(f"b{i}", shapes=[ims.Box(size=2 * hb)], position=pb, orientation=qb)
    return b.build()


def _general_contacts(det, region):
    """Contacts of the detector's current broad-phase pairs through the general path, per pair."""
    out = make_buffers(16 * max(1, det.n_pairs))
    count, n_hit = 0, 0
    per_pair = {}
    for i in range(det.n_pairs):
        sa, sb = int(det.pairs[i, 0]), int(det.pairs[i, 1])
        before = count
        count, n_hit = collide(det.geo, sa, sb, det.xpos, det.xmat, det.ws, det.eps_c, region, out, count,
                               n_hit, det._meshes)
        if count > before:
            per_pair[(sa, sb)] = _rows(out, range(before, count))
    return per_pair


def _rows(c, rows):
    return [dict(point_a=c.point_a[i].copy(), point_b=c.point_b[i].copy(), normal=c.normal[i].copy(),
                 distance=float(c.distance[i]), feature_a=int(c.feature_a[i]), feature_b=int(c.feature_b[i]))
            for i in rows]


def _fast_contacts(contacts):
    per_pair = {}
    for i in range(contacts.count):
        key = (int(contacts.shape_a[i]), int(contacts.shape_b[i]))
        per_pair.setdefault(key, []).append(i)
    return {k: _rows(contacts, v) for k, v in per_pair.items()}


def _same(fast, general, region):
    assert fast.keys() == general.keys()
    for key in fast:
        f, g = fast[key], general[key]
        assert len(f) == len(g), key
        np.testing.assert_allclose(f[0]["normal"], g[0]["normal"], atol=POINT_TOL)
        if not region:
            # the closest pair only: when the closest points are not unique (parallel faces) the two paths
            # may pick different ones; the distance is unique
            assert abs(f[0]["distance"] - g[0]["distance"]) < POINT_TOL, key
            continue
        for rf, rg in zip(sorted(f, key=_order), sorted(g, key=_order)):
            np.testing.assert_allclose(rf["point_a"], rg["point_a"], atol=POINT_TOL)
            np.testing.assert_allclose(rf["point_b"], rg["point_b"], atol=POINT_TOL)
            assert abs(rf["distance"] - rg["distance"]) < POINT_TOL
            assert (rf["feature_a"], rf["feature_b"]) == (rg["feature_a"], rg["feature_b"])


def _order(row):
    return tuple(np.round(row["point_a"], 6))


SCENES = {"heap": _heap, "stacks": _stacks, "corners": _corners}


@pytest.mark.parametrize("scene", sorted(SCENES))
@pytest.mark.parametrize("region", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_box_kernels_match_the_general_path(scene, region, seed):
    model, state = SCENES[scene](seed)
    det = Detector(model, eps_c=EPS_C)
    contacts = det.detect(state, region=region)
    assert contacts.n_pairs > 5           # the scenes are crowded: many pairs in contact
    _same(_fast_contacts(contacts), _general_contacts(det, region), region)


def test_corner_to_corner_boxes_get_their_exact_gap():
    """No SAT axis gives the distance of two corners: the pairs within eps_c must come out at the gap the
    scene was built with (through GJK), the others not at all."""
    gaps = []
    model, state = _corners(0, gaps=gaps)
    c = Detector(model, eps_c=EPS_C).detect(state)
    for i, gap in enumerate(gaps):
        rows = c.shape_a == 2 * i
        if gap > EPS_C:
            assert not np.any(rows)
        else:
            assert abs(c.distance[rows].min() - gap) < POINT_TOL


def test_stacks_include_boxes_apart_by_less_than_eps_c():
    """The stacks exercise the delicate case: boxes apart by 0 < d <= eps_c (SAT gives only a bound)."""
    model, state = _stacks(0)
    c = Detector(model, eps_c=EPS_C).detect(state)
    box_pairs = c.shape_a[c.shape_b > 0] > 0
    d = c.distance[c.shape_b > 0][box_pairs]
    assert np.any((d > 0) & (d <= EPS_C))
    assert np.any(d < 0)
