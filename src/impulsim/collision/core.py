"""Convex cores of shapes in the world frame: loading, support mapping and projection.

Every convex shape is handled as a *core* plus a radius: a sphere is a point with radius r, a capsule a
segment with radius r; boxes, cylinders, hulls and mesh triangles have radius 0. The narrow phase works
on the cores (GJK, EPA, SAT) and subtracts the radii. A pair's two cores live in the workspace slots
0 (shape A) and 1 (shape B), so kernels pass ``(geo, ws, slot)`` instead of long argument lists.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

from impulsim.collision.vec import (KERNEL, add, column, cross, dot, mat_t_vec, mat_vec, madd, normalize, row,
                                    scale, slots, store, sub)
from impulsim.geometry.shapes import ShapeKind
from impulsim.kernel import njit

CORE_POINT, CORE_SEGMENT, CORE_BOX, CORE_CYLINDER, CORE_HULL, CORE_TRIANGLE, CORE_ELLIPSOID = 0, 1, 2, 3, 4, 5, 6

SPHERE, BOX, CYLINDER, CAPSULE, CONVEX, ELLIPSOID, HALFSPACE, MESH = (
    int(ShapeKind.SPHERE), int(ShapeKind.BOX), int(ShapeKind.CYLINDER), int(ShapeKind.CAPSULE),
    int(ShapeKind.CONVEX), int(ShapeKind.ELLIPSOID), int(ShapeKind.HALFSPACE), int(ShapeKind.MESH))
N_KINDS = 8


class Geometry(NamedTuple):
    """Static collision geometry of all shapes (built once by the Detector), in shape frames.

    For CONVEX and MESH shapes the shape frame is the body's principal frame (vertices are stored there);
    hull faces/edges and BVH node indices are local to each shape's ranges.
    """
    kind: np.ndarray          # [ns] int64
    body: np.ndarray          # [ns] int64
    local_pos: np.ndarray     # [ns, 3] shape origin in the body frame [m]
    local_mat: np.ndarray     # [ns, 3, 3] shape axes in the body frame
    params: np.ndarray        # [ns, 3]: radius / half sizes / (radius, half length)
    vert_start: np.ndarray    # [ns + 1]
    verts: np.ndarray         # [nv, 3] shape frame [m]
    face_range: np.ndarray    # [ns + 1] faces of shape s: face_range[s] .. face_range[s+1]-1
    face_start: np.ndarray    # [nf + 1] polygon of face f: face_verts[face_start[f] .. face_start[f+1]-1]
    face_verts: np.ndarray    # [..] vertex indices local to the shape, CCW seen from outside
    face_normal: np.ndarray   # [nf, 3] outward unit normals, shape frame
    edge_range: np.ndarray    # [ns + 1]
    edges: np.ndarray         # [ne, 2] local vertex indices
    tri_start: np.ndarray     # [ns + 1]
    tris: np.ndarray          # [nt, 3] local vertex indices, CCW from outside
    node_range: np.ndarray    # [ns + 1] BVH nodes of mesh shape s
    node_min: np.ndarray      # [nn, 3]
    node_max: np.ndarray      # [nn, 3]
    node_left: np.ndarray     # [nn] local node index or -1 for a leaf
    node_right: np.ndarray    # [nn]
    node_first: np.ndarray    # [nn] first entry of the leaf in tri_order (local)
    node_count: np.ndarray    # [nn]
    tri_order: np.ndarray     # [nt] local triangle indices in leaf order


class Workspace(NamedTuple):
    """Scratch memory of the narrow phase, two core slots (0 = A, 1 = B) plus buffers."""
    ctype: np.ndarray     # [2] core type
    cshape: np.ndarray    # [2] shape index
    cfeat: np.ndarray     # [2] triangle index for mesh triangles, else -1
    crad: np.ndarray      # [2] radius [m]
    cpos: np.ndarray      # [2, 3] core centre, world [m]
    cmat: np.ndarray      # [2, 3, 3] core axes, world
    cpar: np.ndarray      # [2, 3] half sizes / (radius, half length)
    cverts: np.ndarray    # [2, maxv, 3] world vertices (point, segment ends, box corners, hull, triangle)
    cnv: np.ndarray       # [2]
    cfn: np.ndarray       # [2, maxf, 3] face normals (SAT axes)
    cnf: np.ndarray       # [2]
    cedge: np.ndarray     # [2, maxe, 3] edge directions (SAT cross axes)
    cne: np.ndarray       # [2]
    simplex: np.ndarray   # [3, 4, 3] GJK simplex: w = a - b, a, b
    epa_v: np.ndarray     # [3, maxev, 3] EPA vertices: w, a, b
    epa_face: np.ndarray  # [maxef, 3] int64 vertex indices
    epa_fn: np.ndarray    # [maxef, 4] unit normal and distance
    epa_alive: np.ndarray  # [maxef] int8
    epa_edge: np.ndarray  # [maxef * 3, 2] horizon scratch
    fpts: np.ndarray      # [2, maxp, 3] contact features (polygon / segment / point), world
    fcode: np.ndarray     # [2, maxp] feature vertex ids
    clip: np.ndarray      # [3, maxc, 2] 2-D clipping: two ping-pong buffers and the clipper polygon
    clipcode: np.ndarray  # [3, maxc, 2] (id on A, id on B) of clipped points
    region: np.ndarray    # [maxc, 7] region points: point on A (3), point on B (3), distance
    regcode: np.ndarray   # [maxc, 2]
    tri_buf: np.ndarray   # [maxt] mesh triangle candidates
    stack: np.ndarray     # [128] BVH traversal stack
    stats: np.ndarray     # [4] int64 counters: 0 = mesh triangle candidates dropped (buffer full)
    # None when the model's shapes are all of BASIC_KINDS, else True. It is part of the workspace's compiled
    # type, and the guarded functions compile the code of the other kinds only for True (see guarded): a
    # scene of boxes, spheres and capsules never compiles GJK + EPA for curved pairs or the cylinder, hull
    # and triangle features. Two values, not one per kind: two compiled narrow phases serve every model
    # (impulsim warmup compiles both).
    all_kinds: object = True


CYL_CAP_POINTS = 8
"""A cylinder's cap is represented in contact regions by this many rim points (a regular octagon)."""
EPA_MAX_VERTS = 256
EPA_MAX_FACES = 1024


def make_workspace(max_verts: int, max_faces: int, max_edges: int, max_tris: int = 4096,
                   kinds=None) -> Workspace:
    """Workspace for hulls of up to ``max_verts`` vertices, ``max_faces`` faces and ``max_edges`` edges;
    ``kinds`` the shape kinds that may meet in it (None: any), see ``all_kinds``."""
    maxv = max(8, max_verts)
    maxf = max(4, max_faces)
    maxe = max(3, max_edges)
    maxp = max(maxv, CYL_CAP_POINTS, 8)
    maxc = 2 * maxp + 8
    return Workspace(
        np.zeros(2, np.int64), np.zeros(2, np.int64), np.zeros(2, np.int64), np.zeros(2),
        np.zeros((2, 3)), np.zeros((2, 3, 3)), np.zeros((2, 3)), np.zeros((2, maxv, 3)),
        np.zeros(2, np.int64), np.zeros((2, maxf, 3)), np.zeros(2, np.int64), np.zeros((2, maxe, 3)),
        np.zeros(2, np.int64), np.zeros((3, 4, 3)),
        np.zeros((3, EPA_MAX_VERTS, 3)), np.zeros((EPA_MAX_FACES, 3), np.int64),
        np.zeros((EPA_MAX_FACES, 4)), np.zeros(EPA_MAX_FACES, np.int8),
        np.zeros((EPA_MAX_FACES * 3, 2), np.int64),
        np.zeros((2, maxp, 3)), np.zeros((2, maxp), np.int64), np.zeros((3, maxc, 2)),
        np.zeros((3, maxc, 2), np.int64), np.zeros((maxc, 7)), np.zeros((maxc, 2), np.int64),
        np.zeros(max_tris, np.int64), np.zeros(128, np.int64), np.zeros(4, np.int64),
        None if kinds is not None and set(kinds) <= BASIC_KINDS else True)


NOT_COMPILED = "collision: a shape kind the workspace was made without (make_workspace's kinds) met another shape"
"""What a guarded kernel raises if it meets a kind its workspace was made without (a bug in the caller)."""

BASIC_KINDS = frozenset((SPHERE, BOX, CAPSULE, HALFSPACE))
"""Shape kinds whose pairs need neither GJK + EPA for curved shapes nor the cylinder, hull or triangle
features (``all_kinds`` None)."""


def guarded(fn, absent):
    """A function ``g(ws, *args)`` that is ``fn(*args)`` where the workspace's ``all_kinds`` is True and,
    for a workspace of BASIC_KINDS only, raises NOT_COMPILED instead (``absent(*args)``, which must return
    what fn returns, only gives the types): Numba then compiles neither fn nor its callees."""
    from numba.extending import overload

    def g(ws, *args):
        raise NotImplementedError("compiled code only")

    @overload(g)
    def g_impl(ws, *args):
        if not isinstance(ws.types[ws.fields.index("all_kinds")], types.NoneType):
            return lambda ws, *args: fn(*args)

        def refuse(ws, *args):
            if ws.stats[3] >= 0:           # always: a run-time condition keeps the types of absent
                raise RuntimeError(NOT_COMPILED)
            return absent(*args)
        return refuse
    return g


@njit(**KERNEL)
def load_shape(geo, s, xpos, xmat, ws, slot):
    """Put shape ``s`` (any kind but HALFSPACE and MESH) into core slot ``slot`` at its world pose."""
    k = geo.kind[s]
    ws.cshape[slot] = s
    ws.cfeat[slot] = -1
    for i in range(3):
        ws.cpos[slot, i] = xpos[s, i]
        for j in range(3):
            ws.cmat[slot, i, j] = xmat[s, i, j]
        ws.cpar[slot, i] = geo.params[s, i]
    m = xmat[s]
    c = row(xpos, s)
    ws.crad[slot] = 0.0
    ws.cnf[slot] = 0
    ws.cne[slot] = 0
    if k == SPHERE:
        ws.ctype[slot] = CORE_POINT
        ws.crad[slot] = geo.params[s, 0]
        store(ws.cverts[slot], 0, c)
        ws.cnv[slot] = 1
    elif k == CAPSULE:
        ws.ctype[slot] = CORE_SEGMENT
        ws.crad[slot] = geo.params[s, 0]
        axis = column(m, 2)
        store(ws.cverts[slot], 0, madd(c, axis, -geo.params[s, 1]))
        store(ws.cverts[slot], 1, madd(c, axis, geo.params[s, 1]))
        ws.cnv[slot] = 2
        store(ws.cedge[slot], 0, axis)
        ws.cne[slot] = 1
    elif k == BOX:
        _load_box(geo, s, c, m, ws, slot)
    elif k == CYLINDER:
        ws.ctype[slot] = CORE_CYLINDER
        ws.cnv[slot] = 0
    elif k == ELLIPSOID:
        ws.ctype[slot] = CORE_ELLIPSOID
        ws.cnv[slot] = 0
    else:
        _load_hull(geo, s, c, m, ws, slot)


@njit(**KERNEL)
def _load_box(geo, s, c, m, ws, slot):
    ws.ctype[slot] = CORE_BOX
    h = geo.params[s]
    for corner in range(8):
        p = c
        for j in range(3):
            sign = 1.0 if (corner >> j) & 1 else -1.0
            p = madd(p, column(m, j), sign * h[j])
        store(ws.cverts[slot], corner, p)
    ws.cnv[slot] = 8
    for j in range(3):
        store(ws.cfn[slot], j, column(m, j))
        store(ws.cedge[slot], j, column(m, j))
    ws.cnf[slot] = 3
    ws.cne[slot] = 3


@njit(**KERNEL)
def _load_hull(geo, s, c, m, ws, slot):
    ws.ctype[slot] = CORE_HULL
    v0 = geo.vert_start[s]
    nv = geo.vert_start[s + 1] - v0
    for i in range(nv):
        store(ws.cverts[slot], i, add(c, mat_vec(m, row(geo.verts, v0 + i))))
    ws.cnv[slot] = nv
    f0 = geo.face_range[s]
    nf = geo.face_range[s + 1] - f0
    for f in range(nf):
        store(ws.cfn[slot], f, mat_vec(m, row(geo.face_normal, f0 + f)))
    ws.cnf[slot] = nf
    e0 = geo.edge_range[s]
    ne = geo.edge_range[s + 1] - e0
    for e in range(ne):
        a = row(ws.cverts[slot], geo.edges[e0 + e, 0])
        b = row(ws.cverts[slot], geo.edges[e0 + e, 1])
        store(ws.cedge[slot], e, normalize(sub(b, a)))
    ws.cne[slot] = ne


@njit(**KERNEL)
def load_triangle(geo, s, t, xpos, xmat, ws, slot):
    """Put triangle ``t`` (local index) of mesh shape ``s`` into core slot ``slot``, world frame."""
    ws.ctype[slot] = CORE_TRIANGLE
    ws.cshape[slot] = s
    ws.cfeat[slot] = t
    ws.crad[slot] = 0.0
    v0 = geo.vert_start[s]
    tri = geo.tris[geo.tri_start[s] + t]
    m = xmat[s]
    c = row(xpos, s)
    for i in range(3):
        store(ws.cverts[slot], i, add(c, mat_vec(m, row(geo.verts, v0 + tri[i]))))
    ws.cnv[slot] = 3
    p0, p1, p2 = row(ws.cverts[slot], 0), row(ws.cverts[slot], 1), row(ws.cverts[slot], 2)
    n = normalize(cross(sub(p1, p0), sub(p2, p0)))
    store(ws.cfn[slot], 0, n)
    for i in range(3):
        e = normalize(sub(row(ws.cverts[slot], (i + 1) % 3), row(ws.cverts[slot], i)))
        store(ws.cedge[slot], i, e)
        store(ws.cfn[slot], i + 1, cross(e, n))   # in-plane outward edge normals
    ws.cnf[slot] = 4
    ws.cne[slot] = 3
    for i in range(3):
        ws.cpos[slot, i] = (p0[i] + p1[i] + p2[i]) / 3.0


@njit(**KERNEL)
def triangle_normal(ws, slot):
    """Outward unit normal of the triangle in ``slot`` (the mesh side bodies rest on)."""
    return row(ws.cfn[slot], 0)


@njit(**KERNEL)
def ellipsoid_reach(m, semi, d):
    """|A Mᵀ d| for an ellipsoid with axes M (columns, world) and semi-axes A = diag(semi): how far it
    reaches along the unit direction d from its centre [m]."""
    dl = mat_t_vec(m, d)
    x, y, z = semi[0] * dl[0], semi[1] * dl[1], semi[2] * dl[2]
    return np.sqrt(x * x + y * y + z * z)


@njit(**KERNEL)
def ellipsoid_support(c, m, semi, d):
    """Point of the ellipsoid (centre c, axes M, semi-axes A) farthest along d: c + M A² u / |A u| with
    u = Mᵀ d, where the outward normal is parallel to d. The centre for d = 0."""
    dl = mat_t_vec(m, d)
    x, y, z = semi[0] * dl[0], semi[1] * dl[1], semi[2] * dl[2]
    r = np.sqrt(x * x + y * y + z * z)
    if not r > 0.0:
        return c
    return add(c, mat_vec(m, (semi[0] * x / r, semi[1] * y / r, semi[2] * z / r)))


@njit(**KERNEL)
def support(ws, slot, d):
    """Point of the core in ``slot`` farthest along direction ``d`` (world; need not be unit)."""
    t = ws.ctype[slot]
    if t == CORE_BOX:
        p = row(ws.cpos, slot)
        m = ws.cmat[slot]
        for j in range(3):
            a = column(m, j)
            p = madd(p, a, ws.cpar[slot, j] if dot(a, d) >= 0.0 else -ws.cpar[slot, j])
        return p
    if t == CORE_CYLINDER:
        m = ws.cmat[slot]
        dl = mat_t_vec(m, d)
        r, hl = ws.cpar[slot, 0], ws.cpar[slot, 1]
        rho = np.sqrt(dl[0] * dl[0] + dl[1] * dl[1])
        x, y = (r * dl[0] / rho, r * dl[1] / rho) if rho > 1e-300 else (0.0, 0.0)
        z = hl if dl[2] >= 0.0 else -hl
        return add(row(ws.cpos, slot), mat_vec(m, (x, y, z)))
    if t == CORE_ELLIPSOID:
        return ellipsoid_support(row(ws.cpos, slot), ws.cmat[slot], row(ws.cpar, slot), d)
    best = -np.inf
    ib = 0
    v = ws.cverts[slot]
    for i in range(ws.cnv[slot]):
        h = v[i, 0] * d[0] + v[i, 1] * d[1] + v[i, 2] * d[2]
        if h > best:
            best = h
            ib = i
    return row(v, ib)


@njit(**KERNEL)
def project(ws, slot, axis):
    """Interval (lo, hi) of the core in ``slot`` projected on the unit ``axis``."""
    t = ws.ctype[slot]
    c = dot(row(ws.cpos, slot), axis)
    if t == CORE_BOX:
        m = ws.cmat[slot]
        r = 0.0
        for j in range(3):
            r += ws.cpar[slot, j] * abs(dot(column(m, j), axis))
        return c - r, c + r
    if t == CORE_CYLINDER:
        a = dot(column(ws.cmat[slot], 2), axis)
        r = ws.cpar[slot, 1] * abs(a) + ws.cpar[slot, 0] * np.sqrt(max(0.0, 1.0 - a * a))
        return c - r, c + r
    if t == CORE_ELLIPSOID:
        r = ellipsoid_reach(ws.cmat[slot], row(ws.cpar, slot), axis)
        return c - r, c + r
    lo, hi = np.inf, -np.inf
    v = ws.cverts[slot]
    for i in range(ws.cnv[slot]):
        h = v[i, 0] * axis[0] + v[i, 1] * axis[1] + v[i, 2] * axis[2]
        lo = min(lo, h)
        hi = max(hi, h)
    return lo, hi


@njit(**KERNEL)
def minkowski_support(ws, d):
    """(w, a, b): support of A − B along d, with a = support_A(d), b = support_B(−d)."""
    slot_a, slot_b = slots()
    a = support(ws, slot_a, d)
    b = support(ws, slot_b, scale(d, -1.0))
    return sub(a, b), a, b
