"""Broad phase: the grid and sweep-and-prune find exactly the overlapping boxes a brute-force test finds,
step after step as bodies move, with shapes of mixed sizes (big ones outside the grid) and far-flung
coordinates (cells merged at the grid's edge); and the collision filter removes the right pairs in both."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.collision import Detector
from impulsim.collision import broadphase as bp
from impulsim.collision.detector import BROAD_PHASES
from impulsim.errors import ModelError
from impulsim.geometry import HalfSpace, TriangleMesh


def _cubes(n, side, seed, **kw):
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("cubes", gravity=(0, 0, 0))
    for i in range(n):
        b.add_body(f"c{i}", shapes=[ims.Box(size=(0.3, 0.3, 0.3))], position=rng.uniform(0, side, 3), **kw)
    return b


def _brute_force(det):
    lo, hi = det.lo, det.hi
    ns = len(lo)
    pairs = set()
    for i in range(ns):
        for j in range(i + 1, ns):
            if np.all(lo[i] <= hi[j]) and np.all(lo[j] <= hi[i]):
                pairs.add((i, j))
    return pairs


def _found(det, n):
    got = [tuple(p) for p in det.pairs[:n]]
    assert len(got) == len(set(got)), "a pair was reported twice"
    assert all(a < b for a, b in got)
    return set(got)


METHODS = pytest.mark.parametrize("method", BROAD_PHASES)


@METHODS
def test_pairs_match_brute_force_while_bodies_move(method):
    model, state = _cubes(150, 3.0, seed=1).build()
    det = Detector(model, broad_phase=method)
    rng = np.random.default_rng(2)
    for _ in range(10):
        n = det.broad_phase(state)
        assert _found(det, n) == _brute_force(det)
        state.body_pos[1:] += rng.normal(scale=0.05, size=(150, 3))


@METHODS
def test_mixed_sizes_and_far_coordinates_match_brute_force(method):
    """Spheres, capsules, cylinders and boxes of 0.05–0.5 m and two boxes 5 m wide (big: outside the grid),
    in three clusters up to 10 km apart in x (far more than GRID_DIM cells: the far ones share the last
    cell column)."""
    rng = np.random.default_rng(5)
    b = ims.ModelBuilder("mixed", gravity=(0, 0, 0))
    shapes = [lambda: ims.Sphere(radius=rng.uniform(0.05, 0.25)),
              lambda: ims.Box(size=rng.uniform(0.05, 0.5, 3)),
              lambda: ims.Capsule(radius=rng.uniform(0.03, 0.1), length=rng.uniform(0.05, 0.3)),
              lambda: ims.Cylinder(radius=rng.uniform(0.03, 0.2), length=rng.uniform(0.05, 0.3))]
    for i in range(200):
        centre = (rng.choice([-1e4, 0.0, 3.7e3]), 0.0, 0.0)
        b.add_body(f"s{i}", shapes=[shapes[i % 4]()], position=np.add(centre, rng.uniform(-1.5, 1.5, 3)),
                   orientation=rng.normal(size=4))
    b.add_body("slab1", shapes=[ims.Box(size=(5, 5, 0.2))], position=(0, 0, 0))
    b.add_body("slab2", shapes=[ims.Box(size=(5, 0.2, 5))], position=(1, 0, 0), static=True)
    model, state = b.build()
    det = Detector(model, broad_phase=method)
    slabs = {len(model.shape_kind) - 2, len(model.shape_kind) - 1}
    if method == "grid":
        assert set(det.big) == slabs
    rng = np.random.default_rng(6)
    for _ in range(3):
        n = det.broad_phase(state)
        found = _found(det, n)
        assert found == _brute_force(det)
        assert n > 50 and any(set(p) & slabs for p in found)
        if method == "grid":
            assert det.cell[:, 0].max() == bp.GRID_DIM - 1
        state.body_pos[1:] += rng.normal(scale=0.2, size=state.body_pos[1:].shape)


@METHODS
def test_collision_groups_masks_exclusions_and_joints_filter_pairs(method):
    b = ims.ModelBuilder("filter", gravity=(0, 0, 0))
    box = lambda: [ims.Box(size=(1, 1, 1))]  # noqa: E731
    b.add_body("a", shapes=box(), position=(0, 0, 0), collision_group=0b01, collision_mask=0b01)
    b.add_body("b", shapes=box(), position=(0.5, 0, 0), collision_group=0b10, collision_mask=0b10)
    b.add_body("c", shapes=box(), position=(0.2, 0.3, 0), collision_group=0b01, collision_mask=0b11)
    b.add_body("d", shapes=box(), position=(0.2, 0, 0.4))
    b.add_body("e", shapes=box(), position=(0.3, 0.1, 0.2))
    b.add_ball("j", "d", "e", anchor=(0.25, 0.05, 0.3))
    b.exclude_collision("a", "d")
    model, state = b.build()
    det = Detector(model, broad_phase=method)
    n = det.broad_phase(state)
    bodies = {tuple(sorted((int(model.shape_body[i]), int(model.shape_body[j])))) for i, j in det.pairs[:n]}
    a, bb, c, d, e = (model.body(x) for x in "abcde")
    assert (a, bb) not in bodies            # groups do not meet the masks
    assert (a, c) in bodies
    assert (bb, c) not in bodies            # c's group 01 is not in b's mask 10
    assert (a, d) not in bodies             # explicit exclusion
    assert (d, e) not in bodies             # joined by a joint
    assert (c, d) in bodies and (c, e) in bodies


@METHODS
def test_collision_matrix_decides_alone(method):
    model, state = _cubes(3, 0.01, seed=3).build()
    nb = model.n_bodies
    matrix = np.zeros((nb, nb), int)
    matrix[1, 3] = matrix[3, 1] = 1
    det = Detector(model, collision_matrix=matrix, broad_phase=method)
    n = det.broad_phase(state)
    assert {tuple(p) for p in det.pairs[:n]} == {(0, 2)}
    with pytest.raises(ModelError, match="collision_matrix must have shape"):
        Detector(model, collision_matrix=np.ones((2, 2)))


@METHODS
def test_static_and_fixed_pairs_are_never_tested(method):
    b = ims.ModelBuilder("static", gravity=(0, 0, 0))
    b.add_body("ground", shapes=[HalfSpace()], static=True)
    b.add_body("wall", shapes=[ims.Box(size=(1, 1, 1))], static=True, position=(0, 0, 0))
    b.add_body("box", shapes=[ims.Box(size=(1, 1, 1))], position=(0, 0, 0.45))   # reaches below z = 0
    model, state = b.build()
    det = Detector(model, broad_phase=method)
    n = det.broad_phase(state)
    pairs = {tuple(p) for p in det.pairs[:n]}
    assert pairs == {(0, 2), (1, 2)}


@METHODS
@pytest.mark.parametrize("gap_in_eps_c, found", [(0.9, True), (1.1, False)])
def test_box_within_eps_c_above_the_ground_is_a_pair(gap_in_eps_c, found, method):
    """Regression: the ground's side of eps_c was missing, so a box 0.5–1 eps_c above it was not tested."""
    eps_c = 1e-3
    b = ims.ModelBuilder("above", gravity=(0, 0, 0))
    b.add_body("ground", shapes=[HalfSpace()], static=True)
    b.add_body("box", shapes=[ims.Box(size=(1, 1, 1))], position=(0, 0, 0.5 + gap_in_eps_c * eps_c))
    model, state = b.build()
    det = Detector(model, eps_c=eps_c, broad_phase=method)
    assert (det.broad_phase(state) == 1) == found
    c = det.detect(state)
    assert (c.n_pairs == 1) == found
    if found:
        np.testing.assert_allclose(c.distance, gap_in_eps_c * eps_c, atol=1e-12)


def test_half_space_on_a_moving_body_is_refused_with_the_body_named():
    b = ims.ModelBuilder()
    b.add_body("floater", shapes=[HalfSpace()], mass=1.0, inertia=(1, 1, 1))
    model, _ = b.build()
    with pytest.raises(ModelError, match='"floater".*half-space'):
        Detector(model)


def test_two_meshes_that_could_collide_are_refused():
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    tris = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    b = ims.ModelBuilder()
    b.add_body("m1", shapes=[TriangleMesh(vertices=verts, triangles=tris)])
    b.add_body("m2", shapes=[TriangleMesh(vertices=verts, triangles=tris)], static=True)
    model, _ = b.build()
    with pytest.raises(ModelError, match='"m1" and "m2".*two triangle meshes'):
        Detector(model)


def test_unknown_broad_phase_is_refused_with_the_choices_named():
    model, _ = _cubes(2, 1.0, seed=0).build()
    with pytest.raises(ModelError, match="broad_phase must be one of.*'grid'.*'sap'.*got 'octree'"):
        Detector(model, broad_phase="octree")


def test_bodies_sharing_a_pivot_are_left_out_unless_allowed():
    """Two links pinned to one body at one point always overlap at the pin; they are not a collision pair,
    while links pinned at different points of it are (and allow_collision brings a pinned pair back)."""
    def build(allow):
        b = ims.ModelBuilder("pins", gravity=(0, 0, 0))
        b.add_body("p", shapes=[ims.Box(size=(0.1, 0.1, 1.0))], position=(0, 0, 0))
        for name, x, pin in (("l", -0.2, (0, 0, -0.5)), ("r", 0.2, (0, 0, -0.5)), ("s", 0.0, (0, 0, -0.42))):
            b.add_body(name, shapes=[ims.Box(size=(0.5, 0.1, 0.1))], position=(x, 0, pin[2]))
            b.add_ball(f"j{name}", "p", name, anchor=pin)
        if allow:
            b.allow_collision("l", "r")
        model, state = b.build()
        det = Detector(model)
        n = det.broad_phase(state)
        found = {tuple(sorted((int(model.shape_body[i]), int(model.shape_body[j])))) for i, j in det.pairs[:n]}
        return model, found

    model, found = build(False)
    l, r, s = (model.body(x) for x in "lrs")
    assert (min(l, r), max(l, r)) not in found          # same pin on p
    assert (min(l, s), max(l, s)) in found              # pins 8 cm apart: they may hit each other
    model, found = build(True)
    assert (min(l, r), max(l, r)) in found
