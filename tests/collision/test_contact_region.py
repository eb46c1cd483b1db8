"""Contact regions: box on box face to face (clipped polygon's corners, the 45° octagon), a box on the
ground (four corners), a cylinder on its side (the segment's ends), a tilted box (only what is within
eps_c), and a box on a triangle mesh."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.collision import Detector
from impulsim.geometry import HalfSpace, TriangleMesh

EPS_C = 1e-3
POINT_TOL = 1e-9
"""Region points are intersections of lines computed in double precision at O(1) m: 1e-9 m is far above
rounding and far below any geometric difference the tests look for."""


def _scene(*bodies):
    b = ims.ModelBuilder("region", gravity=(0, 0, 0))
    b.add_body("ground", shapes=[HalfSpace()], static=True)
    for name, shape, pos, quat in bodies:
        b.add_body(name, shapes=[shape], position=pos, orientation=quat)
    return b.build()


def _points_of(contacts, body_a, body_b):
    rows = [i for i in range(contacts.count)
            if {contacts.body_a[i], contacts.body_b[i]} == {body_a, body_b}]
    return rows


def _same_point_sets(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got, want)
    for w in want:
        assert np.min(np.linalg.norm(got - w, axis=1)) < POINT_TOL, (w, got)


def test_box_on_box_gives_the_clipped_rectangle_corners():
    gap = -2e-4
    model, state = _scene(("low", ims.Box(size=(1, 1, 1)), (0, 0, 0.5 + 3 * EPS_C), (1, 0, 0, 0)),
                          ("top", ims.Box(size=(1, 1, 1)), (0.3, 0.2, 1.5 + 3 * EPS_C + gap), (1, 0, 0, 0)))
    c = Detector(model, eps_c=EPS_C).detect(state)
    rows = _points_of(c, 2, 3)
    z = 1.0 + 3 * EPS_C
    want = [(x, y, z) for x in (-0.2, 0.5) for y in (-0.3, 0.5)]
    pts = [c.point_a[i] if c.body_a[i] == 2 else c.point_b[i] for i in rows]
    _same_point_sets(pts, want)
    for i in rows:
        assert abs(c.distance[i] - gap) < POINT_TOL
        np.testing.assert_allclose(c.normal[i] * (1 if c.body_a[i] == 3 else -1), (0, 0, 1), atol=1e-12)


def test_box_turned_45_degrees_on_box_gives_the_octagon():
    s = np.sin(np.pi / 8)
    model, state = _scene(("low", ims.Box(size=(1, 1, 1)), (0, 0, 0.5 + 3 * EPS_C), (1, 0, 0, 0)),
                          ("top", ims.Box(size=(1, 1, 1)), (0, 0, 1.5 + 3 * EPS_C), (np.cos(np.pi / 8), 0, 0, s)))
    c = Detector(model, eps_c=EPS_C).detect(state)
    rows = _points_of(c, 2, 3)
    z = 1.0 + 3 * EPS_C
    e = np.sqrt(0.5) - 0.5          # where the turned square's edges cross x = ±0.5
    want = [(sx * 0.5, sy * e, z) for sx in (-1, 1) for sy in (-1, 1)] + \
           [(sx * e, sy * 0.5, z) for sx in (-1, 1) for sy in (-1, 1)]
    _same_point_sets([c.point_a[i] if c.body_a[i] == 2 else c.point_b[i] for i in rows], want)


def test_box_resting_on_the_ground_gives_its_four_corners():
    model, state = _scene(("box", ims.Box(size=(0.4, 0.6, 0.2)), (1, 2, 0.1 - 1e-4), (1, 0, 0, 0)))
    c = Detector(model, eps_c=EPS_C).detect(state)
    assert c.count == 4 and c.n_pairs == 1
    want = [(1 + x, 2 + y, -1e-4) for x in (-0.2, 0.2) for y in (-0.3, 0.3)]
    box_pts = [c.point_a[i] if c.body_a[i] == 2 else c.point_b[i] for i in range(4)]
    _same_point_sets(box_pts, want)
    np.testing.assert_allclose(c.distance, -1e-4, atol=POINT_TOL)


def test_cylinder_on_its_side_gives_the_segment_ends():
    q = (np.cos(np.pi / 4), np.sin(np.pi / 4), 0, 0)        # axis along y
    model, state = _scene(("cyl", ims.Cylinder(radius=0.3, length=1.0), (0, 0, 0.3), q))
    c = Detector(model, eps_c=EPS_C).detect(state)
    assert c.count == 2
    pts = [c.point_a[i] if c.body_a[i] == 2 else c.point_b[i] for i in range(2)]
    _same_point_sets(pts, [(0, -0.5, 0), (0, 0.5, 0)])


def test_tilted_box_keeps_only_points_within_eps_c():
    # tilted 2° about y: one edge touches, the other is 2 sin(2°) * 0.5 ≈ 3.5 cm up
    a = np.radians(2.0)
    h = 0.5 * np.cos(a) + 0.5 * np.sin(a)
    model, state = _scene(("box", ims.Box(size=(1, 1, 1)), (0, 0, h), (np.cos(a / 2), 0, np.sin(a / 2), 0)))
    c = Detector(model, eps_c=EPS_C).detect(state)
    assert c.count == 2
    assert np.all(np.abs(c.distance) < POINT_TOL)
    assert np.all(c.distance <= EPS_C)


def test_box_on_two_triangle_mesh_floor():
    verts = np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float)
    tris = np.array([[0, 1, 2], [0, 2, 3]])
    b = ims.ModelBuilder("mesh floor", gravity=(0, 0, 0))
    b.add_body("floor", shapes=[TriangleMesh(vertices=verts, triangles=tris)], static=True)
    b.add_body("box", shapes=[ims.Box(size=(1, 1, 1))], position=(0.2, 0.1, 0.5 - 2e-4))
    model, state = b.build()
    c = Detector(model, eps_c=EPS_C).detect(state)
    pts = np.array([c.point_a[i] if c.body_a[i] == 2 else c.point_b[i] for i in range(c.count)])
    # the square's corners, the diagonal split adds the points where y = x crosses the square's edges
    want = [(0.2 + x, 0.1 + y, -2e-4) for x in (-0.5, 0.5) for y in (-0.5, 0.5)]
    for w in want:
        assert np.min(np.linalg.norm(pts - w, axis=1)) < POINT_TOL
    np.testing.assert_allclose(c.distance, -2e-4, atol=POINT_TOL)
    normals = c.normal * np.where(c.body_a == 2, 1.0, -1.0)[:, None]
    np.testing.assert_allclose(normals, np.tile((0, 0, 1.0), (c.count, 1)), atol=1e-12)


def test_sphere_rolling_over_mesh_sees_the_surface_height():
    # a tilted plane z = 0.2 x as a mesh; a sphere of radius 0.5 at height h above it
    xs = np.linspace(-3, 3, 7)
    verts = np.array([(x, y, 0.2 * x) for y in xs for x in xs])
    n = len(xs)
    tris = []
    for j in range(n - 1):
        for i in range(n - 1):
            v = j * n + i
            tris += [[v, v + 1, v + n + 1], [v, v + n + 1, v + n]]
    b = ims.ModelBuilder("slope", gravity=(0, 0, 0))
    b.add_body("slope", shapes=[TriangleMesh(vertices=verts, triangles=np.array(tris))], static=True)
    b.add_body("ball", shapes=[ims.Sphere(radius=0.5)], position=(0.37, -0.41, 0.2 * 0.37 + 0.6))
    model, state = b.build()
    det = Detector(model, eps_c=EPS_C)
    prox = det.distance(state, 1, 0)
    normal = np.array([-0.2, 0, 1]) / np.hypot(0.2, 1)
    expected = 0.6 * normal[2] - 0.5          # vertical offset 0.6 projected on the normal, minus r
    assert abs(prox.distance - expected) < POINT_TOL
    np.testing.assert_allclose(prox.normal, normal, atol=1e-12)


def test_corners_of_a_small_box_on_a_large_one_carry_the_small_box_corner_ids():
    """Regression: a vertex of B's face that survives clipping was reported as a feature of A. The small
    box's four bottom corners lie inside the large box's top face: each contact names the small box's
    corner (id = sign bits, no edge bit) on its side and no vertex (−1) on the large box's side."""
    model, state = _scene(("large", ims.Box(size=(2, 2, 1)), (0, 0, 0.5 + 3 * EPS_C), (1, 0, 0, 0)),
                          ("small", ims.Box(size=(0.5, 0.5, 0.5)), (0.1, 0.2, 1.25 + 3 * EPS_C - 1e-4),
                           (1, 0, 0, 0)))
    c = Detector(model, eps_c=EPS_C).detect(state)
    rows = _points_of(c, 2, 3)
    assert len(rows) == 4
    small_ids, large_ids = set(), set()
    for i in rows:
        small_first = c.body_a[i] == 3
        small_ids.add(int(c.feature_a[i] if small_first else c.feature_b[i]))
        large_ids.add(int(c.feature_b[i] if small_first else c.feature_a[i]))
    assert small_ids == {0b000, 0b001, 0b010, 0b011}      # the corners with −z (bit 2 clear)
    assert large_ids == {-1}


@pytest.mark.parametrize("angle", [1e-6, -3e-7, 2e-5])
def test_equal_boxes_face_to_face_give_their_four_corners_only(angle):
    """Two equal boxes, the upper one turned by a few µrad about z (a stack at rest is never exactly
    aligned): their edges nearly coincide, and clipping crosses them at arbitrary places along the edges
    and twice near each corner. The region keeps the four corners, each within the turn's reach
    (0.71 m · angle) of where the corner would be unturned."""
    half = 0.5 * angle
    model, state = _scene(("low", ims.Box(size=(1, 1, 1)), (0, 0, 0.5 + 3 * EPS_C), (1, 0, 0, 0)),
                          ("top", ims.Box(size=(1, 1, 1)), (0, 0, 1.5 + 3 * EPS_C - 1e-5),
                           (np.cos(half), 0, 0, np.sin(half))))
    c = Detector(model, eps_c=EPS_C).detect(state)
    rows = _points_of(c, 2, 3)
    assert len(rows) == 4
    pts = np.array([c.point_a[i] if c.body_a[i] == 2 else c.point_b[i] for i in rows])[:, :2]
    reach = np.sqrt(0.5) * abs(angle) + POINT_TOL
    for corner in [(x, y) for x in (-0.5, 0.5) for y in (-0.5, 0.5)]:
        assert np.min(np.linalg.norm(pts - corner, axis=1)) <= reach, (corner, pts)


def test_stone_on_two_stones_gives_four_corners_per_support():
    """Running bond: a stone (1 m × 0.4 m × 0.3 m) on two stones that abut under its middle. Each support
    is a 0.5 m × 0.4 m rectangle whose corners at the joint are edge crossings of three faces' edges;
    each patch has its four corners and nothing else."""
    size = (1.0, 0.4, 0.3)
    z0 = 0.15 + 3 * EPS_C
    model, state = _scene(("left", ims.Box(size=size), (-0.5, 0, z0), (1, 0, 0, 0)),
                          ("right", ims.Box(size=size), (0.5, 0, z0), (1, 0, 0, 0)),
                          ("top", ims.Box(size=size), (0, 0, z0 + 0.3 - 1e-5), (1, 0, 0, 0)))
    c = Detector(model, eps_c=EPS_C).detect(state)
    z = 0.3 + 3 * EPS_C
    for low, xs in ((2, (-0.5, 0.0)), (3, (0.0, 0.5))):
        rows = _points_of(c, low, 4)
        pts = [c.point_a[i] if c.body_a[i] == low else c.point_b[i] for i in rows]
        _same_point_sets(pts, [(x, y, z) for x in xs for y in (-0.2, 0.2)])
