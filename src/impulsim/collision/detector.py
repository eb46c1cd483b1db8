"""The collision detector: built once from a Model, then ``detect(state) -> Contacts`` every step.

Three phases (Bender 4.3): broad phase (uniform grid or sweep-and-prune over AABBs, and the collision
filter), narrow
phase (signed distance, normal and closest points per pair) and contact region (all points within eps_c).
The detector owns its workspace: collision geometry (hull topology, BVHs), the broad phase's tables, pair and
contact buffers; nothing is allocated per step unless a buffer has to grow.
"""
from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from impulsim.collision import broadphase as bp
from impulsim.collision import groups as G
from impulsim.collision import sap
from impulsim.collision.contacts import Contacts, make_buffers
from impulsim.collision.core import (BOX, CAPSULE, CONVEX, CYLINDER, ELLIPSOID, HALFSPACE, MESH, SPHERE,
                                     Geometry, make_workspace)
from impulsim.collision.pairs import narrow_phase, pair_distance
from impulsim.errors import ModelError
from impulsim.kernel import call_sites
from impulsim.geometry.bvh import build_bvh
from impulsim.geometry.hull import convex_hull
from impulsim.math import quat_to_matrix
from impulsim.math.plain import plain

# called once per shape: run as Python (compiling it would cost seconds on an empty cache)
quat_to_matrix = plain(quat_to_matrix)

DEFAULT_EPS_C = 1e-3
"""Contact tolerance eps_c [m]: pairs and points closer than this are in contact (Bender's ε_c)."""
BROAD_PHASES = ("grid", "sap")
"""Broad-phase methods: hashed uniform grid (broadphase.py) and sweep-and-prune (sap.py)."""
DEFAULT_BROAD_PHASE = "grid"
"""The faster of the two on the benchmark's heap and scattered scenes (docs/collision.md, Broad phase)."""


class Proximity(NamedTuple):
    """Result of a distance query: signed distance [m] (negative = penetration depth), unit normal from
    shape B towards shape A, and the closest points on A and B (world frame [m])."""
    distance: float
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray


class Detector:
    """Collision detection for one Model.

    Parameters: ``eps_c`` contact tolerance [m]; ``capacity`` initial number of contact points (grown on
    demand, counted in ``grow_count``); ``collision_matrix`` optional [n_bodies, n_bodies] array of 0/1
    (Bender's collision matrix): when given it alone decides which body pairs are tested (apart from
    same-body and fixed–fixed pairs), instead of the model's groups, masks and exclusions;
    ``broad_phase`` one of BROAD_PHASES (both find the same pairs; they differ in speed and pair order).
    """

    _scratch_attrs = frozenset((
        "ws", "buffers", "geo", "local_lo", "local_hi", "xpos", "xmat", "lo", "hi", "cell", "keys", "order",
        "tmp_keys", "tmp_order", "counts", "ptr", "box", "pairs", "timings", "model", "_full_ws",
        "_kernels", "_fixed_groups", "body_fixed", "group", "mask", "exclude_keys", "matrix", "planes", "bounded",
        "small", "big", "cell_size"))
    """Workspace written in every detection before it is read, and geometry and collision filters fixed with the
    model (see impulsim.methods.memory): a snapshot before each step need not copy them. (``body_fixed`` gains
    the sleeping bodies during a detection and is put back before it returns.)"""

    def __init__(self, model, eps_c: float = DEFAULT_EPS_C, capacity: int | None = None,
                 collision_matrix=None, broad_phase: str = DEFAULT_BROAD_PHASE):
        if not (np.isfinite(eps_c) and eps_c >= 0):
            raise ModelError(f"Detector: eps_c must be a non-negative distance, got {eps_c!r}")
        if broad_phase not in BROAD_PHASES:
            raise ModelError(f"Detector: broad_phase must be one of {BROAD_PHASES}, got {broad_phase!r}")
        self.broad_phase_method = broad_phase
        self.model = model
        self.eps_c = float(eps_c)
        self.geo, self.local_lo, self.local_hi = _build_geometry(model)
        self.ws = _workspace_for(self.geo)
        self._full_ws = None                 # the workspace of distance queries, made at the first (see there)
        # None: no triangle mesh, and narrow_phase compiles without its mesh path (see there)
        self._meshes = True if bool(np.any(self.geo.kind == MESH)) else None
        n_bodies = model.n_bodies
        self.body_fixed = ((model.body_static + model.body_kinematic) > 0).astype(np.int8)
        self.group = model.body_group.astype(np.int64)
        self.mask = model.body_mask.astype(np.int64)
        ex = model.collision_exclude.astype(np.int64)
        self.exclude_keys = np.sort(ex[:, 0] * n_bodies + ex[:, 1]) if len(ex) else np.zeros(0, np.int64)
        self.matrix = _collision_matrix(collision_matrix, n_bodies)
        _check_supported(self)
        ns = len(self.geo.kind)
        self.xpos, self.xmat = np.zeros((ns, 3)), np.zeros((ns, 3, 3))
        self.lo, self.hi = np.zeros((ns, 3)), np.zeros((ns, 3))
        self.planes = np.nonzero(self.geo.kind == HALFSPACE)[0].astype(np.int64)
        self.bounded = np.nonzero(self.geo.kind != HALFSPACE)[0].astype(np.int64)
        if broad_phase == "grid":
            self._make_grid()
        else:
            self.sap = sap.SweepState(self.bounded)
        self.pairs = np.zeros((max(64, 8 * ns), 2), np.int64)
        self.buffers = make_buffers(capacity or max(256, 8 * ns))
        self.grow_count = 0
        self.n_pairs = 0
        self.timings = {"broad": 0.0, "narrow": 0.0}
        self._kernels = call_sites(narrow_phase, bp.broad_phase, sap.sap_broad_phase)
        """The kernels of every detection, with the detector's arrays (see impulsim.kernel.CallSite)."""
        self._fixed_groups = (G.shapes_of(self), G.grid_of(self) if broad_phase == "grid" else None,
                              G.boxes_of(self))
        """The broad phase's shapes, grid and boxes (collision.groups): arrays made here for the detector's life,
        so one tuple of each serves every detection (and its call site sees the same tuples again)."""

    def _make_grid(self) -> None:
        """Grid layout (small and big shapes, cell size) and the grid's tables."""
        ext = bp.extent_bound(self.geo.kind, self.geo.params, self.local_lo, self.local_hi)
        self.small, self.big, self.cell_size = bp.grid_layout(ext, self.bounded, 0.5 * self.eps_c)
        n_small = len(self.small)
        self.cell = np.zeros((n_small, 3), np.int64)
        self.keys, self.order, self.tmp_keys, self.tmp_order = (np.zeros(n_small, np.int64) for _ in range(4))
        self.counts = np.zeros((1 << bp.RADIX_BITS) + 1, np.int64)
        self.ptr = np.zeros(len(bp.ROWS), np.int64)
        self.box = np.zeros((n_small, 6))

    # phases --------------------------------------------------------------------------------------
    def update_poses(self, state) -> None:
        """World poses and AABBs of all shapes from the state's body poses."""
        geo = self.geo
        bp.shape_poses(geo.kind, geo.body, geo.local_pos, geo.local_mat, state.body_pos, state.body_quat,
                       self.xpos, self.xmat)
        bp.shape_boxes(geo.kind, geo.params, self.xpos, self.xmat, self.local_lo, self.local_hi,
                       0.5 * self.eps_c, self.lo, self.hi)

    def broad_phase(self, state) -> int:
        """Shape poses and boxes, then the candidate shape pairs into ``self.pairs``; returns their number."""
        find = self._grid_pairs if self.broad_phase_method == "grid" else self._sap_pairs
        while True:
            n = find(state)
            if n <= len(self.pairs):
                self.n_pairs = n
                return n
            self.pairs = np.zeros((2 * n, 2), np.int64)

    def _grid_pairs(self, state) -> int:
        shapes, grid, boxes = self._fixed_groups
        return self._kernels.broad_phase(shapes, state.body_pos, state.body_quat, 0.5 * self.eps_c,
                                         G.filter_of(self), grid, boxes, self.pairs)

    def _sap_pairs(self, state) -> int:
        shapes, _, boxes = self._fixed_groups
        return self._kernels.sap_broad_phase(shapes, state.body_pos, state.body_quat, 0.5 * self.eps_c,
                                             G.filter_of(self), G.sweep_of(self), 0, boxes, self.pairs)

    def narrow_phase(self, region: bool = True) -> Contacts:
        """Contacts of the current broad-phase pairs (call :meth:`broad_phase` first)."""
        while True:
            count, n_hit = self._kernels.narrow_phase(self.geo, self.pairs, self.n_pairs, self.xpos, self.xmat,
                                                      self.ws, self.eps_c, region, self.buffers, self._meshes)
            if count <= len(self.buffers.distance):
                return Contacts(self.buffers, count, n_hit)
            self.buffers = make_buffers(2 * count)
            self.grow_count += 1

    def detect(self, state, region: bool = True) -> Contacts:
        """All contacts of ``state`` within eps_c. ``region=False`` keeps one point per convex pair (the
        closest), which is all the contact-time search needs. Times per phase go to ``self.timings``."""
        t0 = time.perf_counter()
        self.broad_phase(state)
        t1 = time.perf_counter()
        contacts = self.narrow_phase(region)
        self.timings["broad"] = t1 - t0
        self.timings["narrow"] = time.perf_counter() - t1
        return contacts

    # queries ---------------------------------------------------------------------------------------
    def penetration(self, state) -> float:
        """Smallest signed distance over all pairs in contact [m] (+inf if none is within eps_c)."""
        contacts = self.detect(state, region=False)
        return float(contacts.distance.min()) if contacts.count else np.inf

    def distance(self, state, shape_a: int, shape_b: int, max_distance: float = 1.0) -> Proximity:
        """Signed distance, normal (towards ``shape_a``) and closest points of two shapes (Model shape
        indices) at ``state``. Meshes are searched within ``max_distance`` [m]; beyond, distance is inf."""
        ns = len(self.geo.kind)
        for s in (shape_a, shape_b):
            if not 0 <= int(s) < ns:
                raise ModelError(f"Detector.distance: shape index {s} is not in 0..{ns - 1}")
        self.update_poses(state)
        found, d, n, pa, pb = pair_distance(self.geo, int(shape_a), int(shape_b), self.xpos, self.xmat,
                                            self._query_workspace(), float(max_distance))
        if not found:
            return Proximity(np.inf, np.full(3, np.nan), np.full(3, np.nan), np.full(3, np.nan))
        return Proximity(float(d), np.array(n), np.array(pa), np.array(pb))

    def _query_workspace(self):
        """The workspace of :meth:`distance`: one made for every shape kind, so that distance queries compile
        ``pair_distance`` once (about 20 s of CPU on an empty cache) whatever kinds the model has. The
        narrow phase of a model of basic kinds keeps its own lighter workspace (``make_workspace``)."""
        if self.ws.all_kinds is not None:
            return self.ws
        if self._full_ws is None:
            self._full_ws = _workspace_for(self.geo, all_kinds=True)
        return self._full_ws

    @property
    def mesh_candidates_dropped(self) -> int:
        """Mesh triangles skipped since construction because a query found more than the buffer holds."""
        return int(self.ws.stats[0])


def _collision_matrix(matrix, n_bodies: int) -> np.ndarray:
    if matrix is None:
        return np.zeros((0, 0), np.int8)
    m = np.asarray(matrix)
    if m.shape != (n_bodies, n_bodies):
        raise ModelError(f"Detector: collision_matrix must have shape ({n_bodies}, {n_bodies}) "
                         f"(bodies incl. world), got {m.shape}")
    m = (m != 0).astype(np.int8)
    if not np.array_equal(m, m.T):
        raise ModelError("Detector: collision_matrix must be symmetric")
    return m


def _check_supported(det: Detector) -> None:
    """Half-spaces must not move; two meshes must never be asked to collide."""
    model, geo = det.model, det.geo
    names = model.body_names
    for s in np.nonzero(geo.kind == HALFSPACE)[0]:
        b = geo.body[s]
        if not det.body_fixed[b]:
            raise ModelError(f'bodies "{names[b]}": shape {s} is a half-space, which only a static or '
                             "kinematic body may carry")
    meshes = np.nonzero(geo.kind == MESH)[0]
    for i, s in enumerate(meshes):
        for t in meshes[i + 1:]:
            ba, bb = geo.body[s], geo.body[t]
            if bp.may_collide(ba, bb, G.filter_of(det)):
                raise ModelError(f'bodies "{names[ba]}" and "{names[bb]}": two triangle meshes cannot '
                                 "collide with each other; build one of them from convex parts "
                                 "(ConvexHull shapes) or exclude the pair")


def _workspace_for(geo: Geometry, all_kinds: bool = False):
    """A narrow-phase workspace sized for the model's hulls; for its shape kinds only unless ``all_kinds``."""
    nv = np.diff(geo.vert_start)[geo.kind == CONVEX]
    nf = np.diff(geo.face_range)[geo.kind == CONVEX]
    ne = np.diff(geo.edge_range)[geo.kind == CONVEX]
    return make_workspace(int(nv.max(initial=0)), int(nf.max(initial=0)), int(ne.max(initial=0)),
                          kinds=None if all_kinds else set(int(k) for k in geo.kind))


def _params(kind: int, p: np.ndarray) -> np.ndarray:
    """Model parameters -> collision parameters (half sizes, half lengths)."""
    if kind == BOX:
        return 0.5 * p
    if kind in (CYLINDER, CAPSULE):
        return np.array([p[0], 0.5 * p[1], 0.0])
    if kind == SPHERE:
        return np.array([p[0], 0.0, 0.0])
    if kind == ELLIPSOID:
        return np.array(p, dtype=float)         # semi-axes
    return np.zeros(3)


def _build_geometry(model):
    """Collision geometry from the model's shape table (see core.Geometry), and local boxes of point sets."""
    ns = len(model.shape_kind)
    cols = {k: [] for k in ("kind", "body", "pos", "mat", "params")}
    verts, vstart, faces_r, fstart, fverts, fnormal, edges_r, edges = [], [0], [0], [0], [], [], [0], []
    tris, tstart, nodes_r, order = [], [0], [0], []
    nodes = {k: [] for k in ("min", "max", "left", "right", "first", "count")}
    local_lo, local_hi = np.zeros((ns, 3)), np.zeros((ns, 3))
    for s in range(ns):
        k = int(model.shape_kind[s])
        v = model.shape_verts[model.shape_vert_start[s]:model.shape_vert_start[s + 1]]
        point_set = k in (CONVEX, MESH)
        cols["kind"].append(k)
        cols["body"].append(int(model.shape_body[s]))
        cols["pos"].append(np.zeros(3) if point_set else model.shape_pos[s])
        cols["mat"].append(np.eye(3) if point_set else quat_to_matrix(np.ascontiguousarray(model.shape_quat[s])))
        cols["params"].append(_params(k, model.shape_params[s]))
        if k == CONVEX:
            hull = convex_hull(v, f"shapes[{s}] (convex hull)")
            v = hull.vertices
            for f in range(len(hull.face_start) - 1):
                fverts.extend(hull.face_verts[hull.face_start[f]:hull.face_start[f + 1]])
                fstart.append(len(fverts))
            fnormal.extend(hull.face_normal)
            edges.extend(hull.edges)
        elif k == MESH:
            t = model.shape_tris[model.shape_tri_start[s]:model.shape_tri_start[s + 1]]
            bvh = build_bvh(v, t)
            tris.extend(t)
            order.extend(bvh.order)
            for key, arr in zip(("min", "max", "left", "right", "first", "count"), bvh[:6]):
                nodes[key].extend(arr)
        if point_set:
            local_lo[s], local_hi[s] = v.min(axis=0), v.max(axis=0)
        verts.extend(v)
        vstart.append(len(verts))
        faces_r.append(len(fnormal))
        edges_r.append(len(edges))
        tstart.append(len(tris))
        nodes_r.append(len(nodes["min"]))
    i64 = lambda x, w=None: np.array(x, np.int64).reshape((-1, w) if w else (-1,))  # noqa: E731
    f64 = lambda x, w: np.array(x, float).reshape(-1, w)  # noqa: E731
    geo = Geometry(
        kind=i64(cols["kind"]), body=i64(cols["body"]), local_pos=f64(cols["pos"], 3),
        local_mat=np.array(cols["mat"], float).reshape(-1, 3, 3), params=f64(cols["params"], 3),
        vert_start=i64(vstart), verts=f64(verts, 3), face_range=i64(faces_r), face_start=i64(fstart),
        face_verts=i64(fverts), face_normal=f64(fnormal, 3), edge_range=i64(edges_r), edges=i64(edges, 2),
        tri_start=i64(tstart), tris=i64(tris, 3), node_range=i64(nodes_r), node_min=f64(nodes["min"], 3),
        node_max=f64(nodes["max"], 3), node_left=i64(nodes["left"]), node_right=i64(nodes["right"]),
        node_first=i64(nodes["first"]), node_count=i64(nodes["count"]), tri_order=i64(order))
    return geo, local_lo, local_hi
