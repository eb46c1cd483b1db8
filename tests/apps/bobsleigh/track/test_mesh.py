"""The triangulated ice channel: watertight between its borders, wound inwards, of the expected size,
with bounded triangle shapes; and a ball dropped into it rests on the floor through the contact pipeline."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.apps.bobsleigh.track import load_track
from impulsim.apps.bobsleigh.track import surface


@pytest.fixture(scope="module")
def chute():
    return load_track("test_chute")


def _edges(tris):
    return np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])


def _normals(v, t):
    n = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    return n / np.linalg.norm(n, axis=1)[:, None]


def _angles(v, t):
    p = v[t]
    out = []
    for i in range(3):
        a, b = p[:, (i + 1) % 3] - p[:, i], p[:, (i + 2) % 3] - p[:, i]
        cos = np.einsum("ij,ij->i", a, b) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
        out.append(np.degrees(np.arccos(np.clip(cos, -1, 1))))
    return np.min(out, axis=0)


@pytest.mark.parametrize("name", ["test_chute", "whistler"])
def test_running_surface_has_no_holes_no_duplicates_and_one_orientation(name):
    m = load_track(name).surface_mesh()
    v, t = m.vertices, m.triangles
    n = len(v)
    assert np.unique(t).size == n                                       # every vertex in use
    st = np.sort(t, axis=1)
    assert np.unique((st[:, 0] * n + st[:, 1]) * n + st[:, 2]).size == len(t)   # no duplicate triangles
    directed = _edges(t)
    assert np.unique(directed[:, 0] * n + directed[:, 1]).size == len(directed)  # each directed edge once
    lo, hi = directed.min(axis=1), directed.max(axis=1)
    keys, count = np.unique(lo * n + hi, return_counts=True)
    assert set(count) <= {1, 2}
    border = np.stack([keys[count == 1] // n, keys[count == 1] % n], axis=1)
    n_rings = len(m.ring_s)
    col, ring = border % surface.RING, border // surface.RING
    on_side = np.all(col == 0, axis=1) | np.all(col == surface.RING - 1, axis=1)
    on_end = np.all(ring == 0, axis=1) | np.all(ring == n_rings - 1, axis=1)
    assert np.all(on_side | on_end)                                      # holes would leave other edges
    assert len(border) == 2 * (n_rings - 1) + 2 * (surface.RING - 1)


def test_vertex_count_is_5_by_3_per_span(chute):
    m = chute.surface_mesh()
    n_sections = len(chute.stations())
    n_spans, n_flips = n_sections - 1, len(m.flips)
    assert n_flips == 1                                                  # left curve → right curve, once
    n_rings = n_sections + (surface.PIECES_ALONG - 1) * (n_spans - n_flips)
    assert len(m.vertices) == surface.RING * n_rings
    assert len(m.triangles) == 2 * (surface.RING - 1) * (n_rings - 1 - n_flips) + \
        sum(2 * (surface.RING - 1) for _ in m.flips)                    # a stitched span: one triangle per vertex advance


@pytest.mark.parametrize("name", ["test_chute", "whistler"])
def test_normals_point_into_the_channel(name):
    track = load_track(name)
    v, t = track.mesh()
    n = _normals(v, t)
    centroid = v[t].mean(axis=1)
    s, _, _ = track.project(centroid)
    origin, _, lat, up = track.frame(s)
    inside = origin + 0.5 * up                                          # half a metre above the centre line
    assert np.all(np.einsum("ij,ij->i", n, inside - centroid) > 0)


def test_smallest_angle_bounded(chute):
    m = chute.surface_mesh()
    v, t = m.vertices, m.triangles
    angles = _angles(v, t)
    n_grid = 2 * (surface.RING - 1) * (len(m.ring_s) - 1 - len(m.flips))
    rings = v.reshape(-1, surface.RING, 3)
    across = np.linalg.norm(np.diff(rings, axis=1), axis=2).min()
    along = np.linalg.norm(np.diff(rings, axis=0), axis=2).max()
    # a quad of sides across × along splits into triangles with smallest angle atan(across/along); skew
    # from curvature and twist costs a little of it
    assert angles[:n_grid].min() >= 0.8 * np.degrees(np.arctan(across / along))
    assert angles.min() >= 2.0                                          # the stitched span as well


def test_boundary_strips_stand_on_the_top_edge_without_gap_and_face_inwards(chute):
    v, t = chute.mesh()
    run = chute.surface_mesh()
    vb, tb = v[len(run.vertices):], t[len(run.triangles):] - len(run.vertices)
    assert len(tb) > 0
    bottom, top = vb[0::2], vb[1::2]
    np.testing.assert_allclose(top[:, :2], bottom[:, :2], atol=1e-12)
    # each strip vertex at the bottom is a vertex of the running surface's top edge: no gap between them
    edge = run.vertices.reshape(-1, surface.RING, 3)[:, [0, -1]].reshape(-1, 3)
    dist = np.min(np.linalg.norm(bottom[:, None, :] - edge[None, :, :], axis=2), axis=1)
    assert np.max(dist) < 1e-9
    n = _normals(vb, tb)
    centroid = vb[tb].mean(axis=1)
    s, _, _ = chute.project(centroid)
    towards = chute.centerline(s) - centroid
    assert np.all(np.einsum("ij,ij->i", n[:, :2], towards[:, :2]) > 0)


EPS_C = 1e-3
"""The impulse method's contact tolerance [m]: a resting contact ends with a gap in [0, eps_c]."""


def test_ball_dropped_into_the_straight_rests_on_the_floor(chute):
    """Gravity is turned to be normal to the floor at s = 10 m (a plane there: straight in plan, constant
    slope from s = 3 to 30 m), so the ball must come to rest where it landed, one radius above the floor."""
    s0, b0, r = 10.0, 0.3, 0.1
    origin, t3, lat, _ = chute.frame([s0])
    floor_normal = np.cross(t3[0], lat[0])
    floor_normal /= np.linalg.norm(floor_normal)
    start = origin[0] + b0 * lat[0] + 0.4 * floor_normal
    b = ims.ModelBuilder("drop", gravity=tuple(-9.81 * floor_normal))
    b.add_body("track", shapes=[chute.triangle_mesh()], static=True)
    b.add_body("ball", shapes=[ims.Sphere(radius=r)], position=start, mass=1.0)
    model, state = b.build()
    sim = ims.Simulation(model, state, method="impulse", h=1e-3)
    sim.run(1.0)
    ball = model.body("ball")
    p, vel = sim.state.body_pos[ball], sim.state.body_vel[ball]
    gap = (p - origin[0]) @ floor_normal - r
    assert -1e-6 <= gap <= EPS_C
    assert np.linalg.norm(vel) < 1e-3
    # straight down the (turned) gravity from where it started: no sideways drift on the floor
    landed = origin[0] + b0 * lat[0] + (r + gap) * floor_normal
    assert np.linalg.norm(p - landed) < 1e-6


@pytest.mark.slow
def test_ball_runs_through_both_curves_on_their_outer_walls(chute):
    """A 50 kg ball started at 12 m/s at s = 0 runs the chute through the contact pipeline: it stays
    inside the channel (between the walls, below their tops), climbs the outer wall of each curve —
    the right wall in the left curve C1, the left wall in the right curve C2 — and reaches the finish."""
    origin, tangent, _, _ = chute.frame([0.0])
    b = ims.ModelBuilder("run")
    b.add_body("track", shapes=[chute.triangle_mesh()], static=True)
    b.add_body("ball", shapes=[ims.Sphere(radius=0.15)], position=origin[0] + [0, 0, 0.16], mass=50.0,
               velocity=12.0 * tangent[0])
    model, state = b.build()
    sim = ims.Simulation(model, state, method="impulse", h=2e-3)
    ball = model.body("ball")
    path = []
    while sim.state.t < 15.0:
        sim.run(0.02)
        path.append(sim.state.body_pos[ball].copy())
        if chute.project(path[-1][None])[0][0] > chute.finish_s:
            break
    s, bb, h = chute.project(np.array(path))
    assert s[-1] > chute.finish_s
    left, right = chute.top_edge(s, "left"), chute.top_edge(s, "right")
    top = np.where(bb > 0, left[:, 2], right[:, 2]) - chute.centerline(s)[:, 2]    # the wall on its side
    assert np.all(h < top)
    ctrl, _, _ = chute.sections.at(s)          # a section lies in the hull of its control points
    assert np.all((bb < ctrl[:, :, 0].max(axis=1)) & (bb > ctrl[:, :, 0].min(axis=1)))
    k = chute.curve_index(s)
    for curve, outer_sign in ((0, -1), (1, 1)):
        sel = k == curve
        i = np.argmax(h[sel])
        assert h[sel][i] > 0.8 and np.sign(bb[sel][i]) == outer_sign
