"""Pair functions chosen from a table keyed by the shape kinds in canonical order, and ``collide``.

The kinds of a pair are sorted (A = the lower ShapeKind) before the table is consulted; results are
flipped back to the caller's order on output. Each entry says which algorithm decides the pair:

=========  ======================================================================================
closed     sphere_sphere, sphere_box, sphere_cylinder, sphere_capsule, capsule_capsule
SAT + GJK  box_box, box_capsule, box_convex, capsule_convex, convex_convex, sphere_convex
GJK + EPA  box_cylinder, cylinder_cylinder, cylinder_capsule, cylinder_convex, *_ellipsoid
support    *_halfspace: the support point along the plane's normal
BVH        *_mesh: BVH traversal, then each triangle as a one-sided convex core
=========  ======================================================================================

``narrow_phase`` sends box_box and box_halfspace pairs to the dedicated kernels of boxes.py (same
contacts, over flat arrays); ``collide`` is the general path for every pair.
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.boxes import APART, TOUCHING, box_box, box_halfspace
from impulsim.collision.contacts import append_region
from impulsim.collision.core import (BOX, CAPSULE, CONVEX, CYLINDER, ELLIPSOID, HALFSPACE, MESH, N_KINDS,
                                     SPHERE, guarded, load_shape, load_triangle, support, triangle_normal)
from impulsim.collision.gjk import gjk
from impulsim.collision.primitives import (capsule_capsule, convex_pair, polytope_pair, sphere_box,
                                           sphere_capsule, sphere_cylinder, sphere_sphere)
from impulsim.collision.features import FEATURE_COS as REGION_COS, WITNESS_COS
from impulsim.collision.region import contact_region, plane_region
from impulsim.collision.vec import KERNEL, column, dot, madd, mat_t_vec, normalize, row, scale, slots, sub
from impulsim.geometry.bvh import bvh_query_box
from impulsim.kernel import njit

# pair ids, in canonical kind order
(SPHERE_SPHERE, SPHERE_BOX, SPHERE_CYLINDER, SPHERE_CAPSULE, POLYTOPE, CURVED, CAPSULE_CAPSULE,
 WITH_HALFSPACE, WITH_MESH, UNSUPPORTED) = range(10)

PAIR_ALGORITHM = {
    (SPHERE, SPHERE): ("sphere_sphere", SPHERE_SPHERE), (SPHERE, BOX): ("sphere_box", SPHERE_BOX),
    (SPHERE, CYLINDER): ("sphere_cylinder", SPHERE_CYLINDER),
    (SPHERE, CAPSULE): ("sphere_capsule", SPHERE_CAPSULE), (SPHERE, CONVEX): ("sphere_convex", POLYTOPE),
    (BOX, BOX): ("box_box", POLYTOPE), (BOX, CYLINDER): ("box_cylinder", CURVED),
    (BOX, CAPSULE): ("box_capsule", POLYTOPE), (BOX, CONVEX): ("box_convex", POLYTOPE),
    (CYLINDER, CYLINDER): ("cylinder_cylinder", CURVED), (CYLINDER, CAPSULE): ("cylinder_capsule", CURVED),
    (CYLINDER, CONVEX): ("cylinder_convex", CURVED), (CAPSULE, CAPSULE): ("capsule_capsule", CAPSULE_CAPSULE),
    (CAPSULE, CONVEX): ("capsule_convex", POLYTOPE), (CONVEX, CONVEX): ("convex_convex", POLYTOPE),
    (SPHERE, ELLIPSOID): ("sphere_ellipsoid", CURVED), (BOX, ELLIPSOID): ("box_ellipsoid", CURVED),
    (CYLINDER, ELLIPSOID): ("cylinder_ellipsoid", CURVED), (CAPSULE, ELLIPSOID): ("capsule_ellipsoid", CURVED),
    (CONVEX, ELLIPSOID): ("convex_ellipsoid", CURVED), (ELLIPSOID, ELLIPSOID): ("ellipsoid_ellipsoid", CURVED),
}
"""(kind_a, kind_b) with kind_a <= kind_b -> (pair function name, pair id)."""


def _pair_table() -> np.ndarray:
    table = np.full((N_KINDS, N_KINDS), UNSUPPORTED, np.int64)
    for (a, b), (_, pid) in PAIR_ALGORITHM.items():
        table[a, b] = pid
    for a in range(N_KINDS):
        if a not in (HALFSPACE, MESH):
            table[a, HALFSPACE] = WITH_HALFSPACE
            table[a, MESH] = WITH_MESH
    return table


PAIR_TABLE = _pair_table()
"""Pair id per (kind_a, kind_b), kind_a <= kind_b; UNSUPPORTED for halfspace/mesh with each other."""


def pair_name(kind_a: int, kind_b: int) -> str:
    """Name of the pair function for two shape kinds (any order), e.g. ``box_sphere`` -> 'sphere_box'."""
    a, b = sorted((int(kind_a), int(kind_b)))
    if (a, b) in PAIR_ALGORITHM:
        return PAIR_ALGORITHM[(a, b)][0]
    names = ["sphere", "box", "cylinder", "capsule", "convex", "ellipsoid", "halfspace", "mesh"]
    return f"{names[a]}_{names[b]}"


@njit(**KERNEL)
def _no_pair(ws):
    """The types of a pair function's result (for a pair whose code is not compiled, see core.guarded)."""
    return np.inf, (0.0, 0.0, 1.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), False


# compiled only for workspaces with all_kinds (a model with cylinders, ellipsoids, hulls or meshes)
_sphere_cylinder = guarded(sphere_cylinder, _no_pair)
_convex_pair = guarded(convex_pair, _no_pair)


@njit(**KERNEL)
def narrow(pid, ws, stop):
    """Run pair function ``pid`` on the loaded cores: (d, n, wa, wb, have_witness), see primitives."""
    if pid == SPHERE_SPHERE:
        return sphere_sphere(ws)
    if pid == SPHERE_BOX:
        return sphere_box(ws)
    if pid == SPHERE_CYLINDER:
        return _sphere_cylinder(ws, ws)
    if pid == SPHERE_CAPSULE:
        return sphere_capsule(ws)
    if pid == CAPSULE_CAPSULE:
        return capsule_capsule(ws)
    if pid == CURVED:
        return _convex_pair(ws, ws)
    return polytope_pair(ws, stop)


@njit(**KERNEL)
def _halfspace(geo, sp, xpos, xmat, ws, stop):
    """Core in slot 0 against half-space shape ``sp``: (d, n, p0)."""
    n = column(xmat[sp], 2)
    p0 = row(xpos, sp)
    p = support(ws, slots()[0], scale(n, -1.0))
    return dot(sub(p, p0), n) - ws.crad[0], n, p0


@njit(**KERNEL)
def mesh_triangle(ws, stop):
    """Core in slot 0 against the one-sided mesh triangle in slot 1: (d, n, wa, wb, hit).

    Apart: GJK, ignoring contacts from behind the triangle. Intersecting: the triangle's outward normal,
    depth from A's support point below its plane.
    """
    slot_a, slot_b = slots()
    nt = triangle_normal(ws, slot_b)
    dist, wa, wb, _, n = gjk(ws)
    if dist > 0.0:
        ok = dist - ws.crad[0] <= stop and dot(n, nt) > 0.0
        return dist - ws.crad[0], n, wa, wb, ok
    p = support(ws, slot_a, scale(nt, -1.0))
    h = dot(sub(p, row(ws.cverts[1], 0)), nt)
    return h - ws.crad[0], nt, p, madd(p, nt, -h), True


@njit(**KERNEL)
def _mesh_candidates(geo, sm, xpos, xmat, ws, grow):
    """Triangles of mesh ``sm`` whose BVH leaf boxes overlap the slot-0 core's box (in ws.tri_buf).

    The core's world box (support along ±x, ±y, ±z, enlarged by its radius and ``grow``) is carried into
    the mesh frame as the box enclosing the rotated box.
    """
    lo = ws.cpar[1]            # slot 1 is free until the first triangle is loaded: use it as scratch
    hi = ws.cpos[1]
    r = ws.crad[0] + grow
    c_w = (0.0, 0.0, 0.0)
    half = (0.0, 0.0, 0.0)
    e = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    slot_a = slots()[0]
    for j in range(3):
        top = dot(support(ws, slot_a, e[j]), e[j]) + r
        bottom = dot(support(ws, slot_a, scale(e[j], -1.0)), e[j]) - r
        c_w = madd(c_w, e[j], 0.5 * (top + bottom))
        half = madd(half, e[j], 0.5 * (top - bottom))
    m = xmat[sm]
    cl = mat_t_vec(m, sub(c_w, row(xpos, sm)))
    for j in range(3):
        ext = abs(m[0, j]) * half[0] + abs(m[1, j]) * half[1] + abs(m[2, j]) * half[2]
        lo[j], hi[j] = cl[j] - ext, cl[j] + ext
    n0, n1 = geo.node_range[sm], geo.node_range[sm + 1]
    found = bvh_query_box(geo.node_min[n0:n1], geo.node_max[n0:n1], geo.node_left[n0:n1],
                          geo.node_right[n0:n1], geo.node_first[n0:n1], geo.node_count[n0:n1],
                          geo.tri_order[geo.tri_start[sm]:geo.tri_start[sm + 1]], lo, hi, ws.stack,
                          ws.tri_buf)
    if found > ws.tri_buf.shape[0]:
        ws.stats[0] += found - ws.tri_buf.shape[0]
        found = ws.tri_buf.shape[0]
    return found


TRI_SHIFT = 24
"""Mesh feature ids carry (triangle index + 1) << TRI_SHIFT."""


@njit(**KERNEL)
def collide(geo, sa, sb, xpos, xmat, ws, eps_c, region, out, count, n_pairs, meshes):
    """Contacts of shapes sa and sb (given order: A = sa) within eps_c, appended to ``out``.

    ``region`` False keeps only the closest pair of points per convex pair. Returns (count, n_pairs):
    contact points written so far and convex pairs found so far. ``meshes`` is None when the model has no
    triangle mesh (see :func:`narrow_phase`), else True.
    """
    ka, kb = geo.kind[sa], geo.kind[sb]
    swapped = ka > kb or (ka == kb and sa > sb)   # canonical order: kind, then shape index
    s0, s1 = (sb, sa) if swapped else (sa, sb)
    pid = PAIR_TABLE[min(ka, kb), max(ka, kb)]
    if pid == UNSUPPORTED:
        return count, n_pairs
    ba, bb = geo.body[sa], geo.body[sb]
    slot_a, slot_b = slots()
    load_shape(geo, s0, xpos, xmat, ws, slot_a)
    if pid == WITH_HALFSPACE:
        d, n, p0 = _halfspace(geo, s1, xpos, xmat, ws, eps_c)
        if d > eps_c:
            return count, n_pairs
        k = plane_region(geo, ws, p0, n, eps_c if region else -np.inf)
        count = append_region(ws.region, ws.regcode, k, n, sa, sb, ba, bb, swapped, n_pairs, 0, 0, out, count)
        return count, n_pairs + 1
    if pid == WITH_MESH:
        if meshes is None:      # decided when compiling: the mesh path is left out (no mesh in the model)
            return count, n_pairs
        return _collide_mesh(geo, sa, sb, s0, s1, ba, bb, swapped, xpos, xmat, ws, eps_c, region, out,
                             count, n_pairs)
    load_shape(geo, s1, xpos, xmat, ws, slot_b)
    d, n, wa, wb, have_witness = narrow(pid, ws, eps_c)
    if d > eps_c:
        return count, n_pairs
    k = contact_region(geo, ws, n, have_witness, wa, wb, eps_c if region else -np.inf,
                           REGION_COS if region else WITNESS_COS)
    count = append_region(ws.region, ws.regcode, k, n, sa, sb, ba, bb, swapped, n_pairs, 0, 0, out, count)
    return count, n_pairs + 1


@njit(**KERNEL)
def _collide_mesh(geo, sa, sb, s0, sm, ba, bb, swapped, xpos, xmat, ws, eps_c, region, out, count,
                  n_pairs):
    found = _mesh_candidates(geo, sm, xpos, xmat, ws, eps_c)
    for i in range(found):
        t = ws.tri_buf[i]
        load_triangle(geo, sm, t, xpos, xmat, ws, slots()[1])
        d, n, wa, wb, hit = mesh_triangle(ws, eps_c)
        if not hit or d > eps_c:
            continue
        k = contact_region(geo, ws, n, hit, wa, wb, eps_c if region else -np.inf,
                           REGION_COS if region else WITNESS_COS)
        count = append_region(ws.region, ws.regcode, k, n, sa, sb, ba, bb, swapped, n_pairs, 0,
                              (t + 1) << TRI_SHIFT, out, count)
        n_pairs += 1
    return count, n_pairs



@njit(**KERNEL)
def narrow_phase(geo, pairs, n_pairs, xpos, xmat, ws, eps_c, region,
                 # outputs
                 out,
                 meshes):
    """Contacts of all broad-phase pairs; returns (points written or needed, colliding convex pairs).

    Box–box and box–half-space pairs go to their dedicated kernels (boxes.py); everything else, and box
    pairs apart by less than eps_c, to ``collide``. ``meshes``: None for a model without triangle meshes,
    True otherwise. Numba removes the branches on ``meshes is None`` when it compiles for a None argument,
    so a model without meshes never compiles the mesh path (about a twentieth of a contact scene's first
    compile); the contacts are the same either way.
    """
    count, n_hit = np.int64(0), np.int64(0)           # not literals (see vec.slots)
    kind, body, params = geo.kind, geo.body, geo.params
    fpts, fcode, clip, clipcode, reg, regcode = ws.fpts, ws.fcode, ws.clip, ws.clipcode, ws.region, ws.regcode
    for i in range(n_pairs):
        sa, sb = pairs[i, 0], pairs[i, 1]
        ka, kb = kind[sa], kind[sb]
        if ka == BOX and kb == BOX:
            s0, s1 = min(sa, sb), max(sa, sb)
            status, k, n = box_box(xpos, xmat, params, s0, s1, eps_c, region, fpts, fcode, clip, clipcode,
                                   reg, regcode)
            if status == APART:
                continue
            if status == TOUCHING:
                count = append_region(reg, regcode, k, n, sa, sb, body[sa], body[sb], sa > sb, n_hit, 0, 0,
                                      out, count)
                n_hit += 1
                continue
        elif (ka == BOX and kb == HALFSPACE) or (ka == HALFSPACE and kb == BOX):
            sbox, splane = (sa, sb) if ka == BOX else (sb, sa)
            hit, k, n = box_halfspace(xpos, xmat, params, sbox, splane, eps_c, region, fpts, fcode, reg,
                                      regcode)
            if hit:
                count = append_region(reg, regcode, k, n, sa, sb, body[sa], body[sb], ka != BOX, n_hit, 0, 0,
                                      out, count)
                n_hit += 1
            continue
        count, n_hit = collide(geo, sa, sb, xpos, xmat, ws, eps_c, region, out, count, n_hit, meshes)
    return count, n_hit


@njit(**KERNEL)
def _surface_points(ws, d, n, wa, wb, have_witness, geo):
    """Closest surface points of the loaded pair from a narrow-phase result."""
    if have_witness:
        return madd(wa, n, -ws.crad[0]), madd(wb, n, ws.crad[1])
    contact_region(geo, ws, n, have_witness, wa, wb, -np.inf, WITNESS_COS)
    return row(ws.region, 0), (ws.region[0, 3], ws.region[0, 4], ws.region[0, 5])


@njit(**KERNEL)
def pair_distance(geo, sa, sb, xpos, xmat, ws, max_distance):
    """Signed distance of shapes sa and sb with normal (from sb towards sa) and closest surface points.

    Returns (found, d, n, pa, pb); for meshes only triangles within ``max_distance`` [m] are searched,
    and found is False when none is (or for unsupported kind pairs).
    """
    ka, kb = geo.kind[sa], geo.kind[sb]
    swapped = ka > kb or (ka == kb and sa > sb)   # canonical order: kind, then shape index
    s0, s1 = (sb, sa) if swapped else (sa, sb)
    pid = PAIR_TABLE[min(ka, kb), max(ka, kb)]
    z = (0.0, 0.0, 0.0)
    found, d, n, pa, pb = False, np.inf, z, z, z
    if pid == UNSUPPORTED:
        return found, d, n, pa, pb
    slot_a, slot_b = slots()
    load_shape(geo, s0, xpos, xmat, ws, slot_a)
    if pid == WITH_HALFSPACE:
        d, n, p0 = _halfspace(geo, s1, xpos, xmat, ws, np.inf)
        pa = madd(support(ws, slot_a, scale(n, -1.0)), n, -ws.crad[0])
        found, pb = True, madd(pa, n, -d)
    elif pid == WITH_MESH:
        count = _mesh_candidates(geo, s1, xpos, xmat, ws, max_distance)
        for i in range(count):
            load_triangle(geo, s1, ws.tri_buf[i], xpos, xmat, ws, slot_b)
            dt, nt, wa, wb, hit = mesh_triangle(ws, max_distance)
            if hit and dt < d:
                found, d, n = True, dt, nt
                pa, pb = _surface_points(ws, dt, nt, wa, wb, hit, geo)
    else:
        load_shape(geo, s1, xpos, xmat, ws, slot_b)
        d, n, wa, wb, have_witness = narrow(pid, ws, np.inf)
        pa, pb = _surface_points(ws, d, n, wa, wb, have_witness, geo)
        found = True
    if swapped:
        return found, d, scale(n, -1.0), pb, pa
    return found, d, n, pa, pb
