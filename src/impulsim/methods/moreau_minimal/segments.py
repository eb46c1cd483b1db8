"""Segment contacts against a static triangle mesh (Rempfler 2015, Table 2.4, ch. 2.5).

A segment contact is a body-fixed line segment from the predefined contact point D (``origin``, body frame,
relative to the centre of mass) along ``direction`` (body frame, pointing into the body; its length is the
segment's length). The contact is closed when the segment pierces a triangle from behind: D lies behind the
triangle's plane (against its normal) and the far end in front of it, and the crossing point D′ lies inside
the triangle. The triangle's normal n (from its winding, pointing out of the solid into free space) and D′
are the contact's normal and point. If several triangles are pierced, the crossing nearest the segment's far
end is kept (the outermost surface). Candidates come from the mesh's BVH with the segment's bounding box.
"""
from typing import NamedTuple

import numpy as np

from impulsim.geometry.bvh import build_bvh, bvh_query_box
from impulsim.kernel import njit


class Mesh(NamedTuple):
    """A static triangle mesh with its normals and BVH (world frame)."""
    verts: np.ndarray       # [V, 3] m
    tris: np.ndarray        # [T, 3] int64
    normal: np.ndarray      # [T, 3] unit normals from the winding
    node_min: np.ndarray
    node_max: np.ndarray
    node_left: np.ndarray
    node_right: np.ndarray
    node_start: np.ndarray
    node_count: np.ndarray
    order: np.ndarray


def make_mesh(vertices, triangles) -> Mesh:
    """Mesh with BVH; normals n = (v1 − v0) × (v2 − v0) / ‖·‖ (the winding gives the free side)."""
    v = np.ascontiguousarray(vertices, float)
    t = np.ascontiguousarray(triangles, np.int64)
    if v.ndim != 2 or v.shape[1] != 3 or t.ndim != 2 or t.shape[1] != 3 or len(t) == 0:
        raise ValueError("mesh: need vertices [V, 3] and at least one triangle [T, 3]")
    if t.min() < 0 or t.max() >= len(v):
        raise ValueError(f"mesh: triangle indices must lie in [0, {len(v) - 1}]")
    n = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    norm = np.linalg.norm(n, axis=1)
    if not (norm > 0).all():
        raise ValueError(f"mesh: triangle {int(np.argmin(norm))} is degenerate (zero area)")
    bvh = build_bvh(v, t)
    return Mesh(v, t, n / norm[:, None], *bvh)


class Segments(NamedTuple):
    """Segment contacts (one row each)."""
    body: np.ndarray        # [ns] int64
    origin: np.ndarray      # D relative to the centre of mass, body frame [m], [ns, 3]
    direction: np.ndarray   # segment D → far end, body frame [m], [ns, 3]
    law: np.ndarray         # FrictionLaw of methods.moreau.laws, [ns] int64
    par: np.ndarray         # law parameters [ns, 5] (runner: μ_t, μ_r, μ_b,min, μ_b,max, λ_n,max [N])
    eps: np.ndarray         # (ε_n, ε_f) extended Newton impact coefficients, [ns, 2]
    axis: np.ndarray        # body-frame longitudinal axis of an anisotropic law, [ns, 3]


class Contacts(NamedTuple):
    """What detection and the solver leave per segment (world frame)."""
    closed: np.ndarray      # [ns] int64, 1 if closed this step
    was_closed: np.ndarray  # [ns] int64, closed in the step before (warm start)
    point: np.ndarray       # D′ [m], [ns, 3]
    normal: np.ndarray      # n, [ns, 3]
    tangent: np.ndarray     # t, [ns, 3]
    bitangent: np.ndarray   # b = n × t, [ns, 3]
    P: np.ndarray           # percussions (P_n, P_t, P_b) of the step [N s], [ns, 3]
    tri: np.ndarray         # triangle index, [ns] int64
    stack: np.ndarray       # BVH scratch
    cand: np.ndarray        # candidate triangles scratch


def make_contacts(ns, capacity=512) -> Contacts:
    return Contacts(np.zeros(ns, np.int64), np.zeros(ns, np.int64), np.zeros((ns, 3)), np.zeros((ns, 3)),
                    np.zeros((ns, 3)), np.zeros((ns, 3)), np.zeros((ns, 3)), np.full(ns, -1, np.int64),
                    np.zeros(128, np.int64), np.zeros(capacity, np.int64))


@njit(cache=True)
def _pierce(mesh, t, p0, p1):
    """Parameter λ ∈ [0, 1] where p0 → p1 crosses triangle t from behind, or −1 (scalar indexing only:
    array views cost reference counting in the inner loop)."""
    V, tri, N = mesh.verts, mesh.tris, mesh.normal
    i0 = tri[t, 0]
    n0, n1, n2 = N[t, 0], N[t, 1], N[t, 2]
    s0 = n0 * (p0[0] - V[i0, 0]) + n1 * (p0[1] - V[i0, 1]) + n2 * (p0[2] - V[i0, 2])
    s1 = n0 * (p1[0] - V[i0, 0]) + n1 * (p1[1] - V[i0, 1]) + n2 * (p1[2] - V[i0, 2])
    if not (s0 <= 0.0 and s1 > 0.0):
        return -1.0
    lam = s0 / (s0 - s1)
    x0 = p0[0] + lam * (p1[0] - p0[0])
    x1 = p0[1] + lam * (p1[1] - p0[1])
    x2 = p0[2] + lam * (p1[2] - p0[2])
    for e in range(3):
        ia, ib = tri[t, e], tri[t, (e + 1) % 3]
        ex, ey, ez = V[ib, 0] - V[ia, 0], V[ib, 1] - V[ia, 1], V[ib, 2] - V[ia, 2]
        dx, dy, dz = x0 - V[ia, 0], x1 - V[ia, 1], x2 - V[ia, 2]
        # (e × d)·n ≥ 0 inside (counter-clockwise about n); a small tolerance closes the seams
        side = (ey * dz - ez * dy) * n0 + (ez * dx - ex * dz) * n1 + (ex * dy - ey * dx) * n2
        if side < -1e-12:
            return -1.0
    return lam


@njit(cache=True)
def detect(S, mesh, R, x, C):
    """Close every segment that pierces the mesh (bodies at rotations R, centres x); returns the number of
    closed contacts, or −1 if a segment's candidate list overflowed its capacity."""
    n_closed = 0
    p0, p1, qmin, qmax = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for s in range(S.body.shape[0]):
        b = S.body[s]
        for r in range(3):
            p0[r] = x[b, r] + R[b, r, 0] * S.origin[s, 0] + R[b, r, 1] * S.origin[s, 1] + R[b, r, 2] * S.origin[s, 2]
            p1[r] = p0[r] + R[b, r, 0] * S.direction[s, 0] + R[b, r, 1] * S.direction[s, 1] + \
                R[b, r, 2] * S.direction[s, 2]
            qmin[r] = min(p0[r], p1[r]) - 1e-9
            qmax[r] = max(p0[r], p1[r]) + 1e-9
        C.was_closed[s] = C.closed[s]
        C.closed[s] = 0
        found = bvh_query_box(mesh.node_min, mesh.node_max, mesh.node_left, mesh.node_right, mesh.node_start,
                              mesh.node_count, mesh.order, qmin, qmax, C.stack, C.cand)
        if found > C.cand.shape[0]:
            return -1
        best = -1.0
        for j in range(found):
            t = C.cand[j]
            lam = _pierce(mesh, t, p0, p1)
            if lam > best:
                best = lam
                C.tri[s] = t
        if best < 0.0:
            continue
        C.closed[s] = 1
        n_closed += 1
        for r in range(3):
            C.point[s, r] = p0[r] + best * (p1[r] - p0[r])
            C.normal[s, r] = mesh.normal[C.tri[s], r]
    return n_closed


@njit(cache=True)
def tangents(S, R, C, s):
    """t and b = n × t of closed contact s: along the body's axis projected on the contact plane for an
    anisotropic law (Alg. 4.2), any orthonormal pair otherwise (Alg. 4.1)."""
    n = C.normal[s]
    b = S.body[s]
    if S.law[s] == 1 or S.law[s] == 3:
        a = np.empty(3)
        for r in range(3):
            a[r] = R[b, r, 0] * S.axis[s, 0] + R[b, r, 1] * S.axis[s, 1] + R[b, r, 2] * S.axis[s, 2]
    else:
        a = np.zeros(3)
        a[0 if abs(n[0]) < 0.6 else 1] = 1.0
    an = a[0] * n[0] + a[1] * n[1] + a[2] * n[2]
    t = C.tangent[s]
    for r in range(3):
        t[r] = a[r] - an * n[r]
    tn = np.sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2])
    for r in range(3):
        t[r] /= tn
    bt = C.bitangent[s]
    bt[0] = n[1] * t[2] - n[2] * t[1]
    bt[1] = n[2] * t[0] - n[0] * t[2]
    bt[2] = n[0] * t[1] - n[1] * t[0]
