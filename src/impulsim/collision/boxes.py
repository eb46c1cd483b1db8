"""Dedicated narrow-phase kernels for the commonest pairs, box–box and box–half-space, over flat arrays.

They give the same contacts as the general path (pairs.collide: SAT, then the contact region of the
features along the normal), but read the poses straight from the shape arrays and keep every vector in
registers: no core is loaded into the workspace. Box–box: the separating-axis test over the 15 axes
(3 + 3 face normals, 9 edge–edge cross products; Gottschalk et al. 1996) gives the exact penetration
depth and normal of two overlapping boxes; the features of both boxes along that normal are then
clipped (contact region). Two boxes apart by less than eps_c need their exact distance (GJK), so that
case is handed back to the general path. Box–half-space: the box's lowest corner decides, its face,
edge or corner along the plane normal gives the points.
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.features import FEATURE_COS, WITNESS_COS, box_feature
from impulsim.collision.region import plane_points, region_of_features
from impulsim.collision.sat import EDGE_BIAS
from impulsim.collision.vec import KERNEL, cross, dot, madd, norm, scale, slots, sub
from impulsim.kernel import njit

APART, TOUCHING, GENERAL = 0, 1, 2
"""Results of ``box_box``: no contact within eps_c; contact region written; let the general path decide."""
NEAR_TOL = 1e-10
"""Boxes apart by 0 < d <= eps_c: the SAT separation is a lower bound of their distance; it is taken as
the distance when a region point pair (one point in each box) is no farther apart than it plus this [m]."""


@njit(**KERNEL)
def box_of(xpos, xmat, params, s):
    """Box shape s in the world: centre [m], unit axes (3 tuples: the columns of xmat[s]), half sizes [m]."""
    c = (xpos[s, 0], xpos[s, 1], xpos[s, 2])
    ax = ((xmat[s, 0, 0], xmat[s, 1, 0], xmat[s, 2, 0]), (xmat[s, 0, 1], xmat[s, 1, 1], xmat[s, 2, 1]),
          (xmat[s, 0, 2], xmat[s, 1, 2], xmat[s, 2, 2]))
    h = (params[s, 0], params[s, 1], params[s, 2])
    return c, ax, h


@njit(**KERNEL)
def _face_gap(t, ra, rb):
    """(separation [m], −1 or +1): along a unit axis u with t = (c_B − c_A)·u and the two boxes' radii on u;
    the sign says which way u must point to go from B towards A (−1 flips it; ties keep u, as sat.sat)."""
    return abs(t) - ra - rb, (1.0 if t <= 0.0 else -1.0)


@njit(**KERNEL)
def box_sat(ca, aa, ha, cb, ab, hb, stop_above):
    """Largest separation [m] of two boxes over the 15 candidate axes, and its unit axis (from B towards A).

    Same axes, order and tie rules as ``sat.sat`` (faces of A, faces of B, then edge–edge axes that must
    beat the best by EDGE_BIAS), computed in A's frame from the relative rotation R = Aᵀ B (Gottschalk
    et al. 1996); returns early once an axis separates by more than ``stop_above``.
    """
    t = sub(cb, ca)
    ta = (dot(aa[0], t), dot(aa[1], t), dot(aa[2], t))
    tb = (dot(ab[0], t), dot(ab[1], t), dot(ab[2], t))
    r = ((dot(aa[0], ab[0]), dot(aa[0], ab[1]), dot(aa[0], ab[2])),
         (dot(aa[1], ab[0]), dot(aa[1], ab[1]), dot(aa[1], ab[2])),
         (dot(aa[2], ab[0]), dot(aa[2], ab[1]), dot(aa[2], ab[2])))
    best, which, sign = -np.inf, 0, 1.0          # which: 0..2 faces of A, 3..5 faces of B, 6 + 3i + j edges
    for i in range(3):
        s, sg = _face_gap(ta[i], ha[i], hb[0] * abs(r[i][0]) + hb[1] * abs(r[i][1]) + hb[2] * abs(r[i][2]))
        if s > best:
            best, which, sign = s, i, sg
            if best > stop_above:
                return best, scale(aa[i], sign)
    for j in range(3):
        s, sg = _face_gap(tb[j], ha[0] * abs(r[0][j]) + ha[1] * abs(r[1][j]) + ha[2] * abs(r[2][j]), hb[j])
        if s > best:
            best, which, sign = s, 3 + j, sg
            if best > stop_above:
                return best, scale(ab[j], sign)
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            # a_i × b_j in A's frame is e_i × (column j of R): components i1, i2 are −r[i2][j], r[i1][j]
            ln = np.sqrt(r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j])
            if ln < 1e-9:
                continue
            tc = ta[i2] * r[i1][j] - ta[i1] * r[i2][j]
            ra = ha[i1] * abs(r[i2][j]) + ha[i2] * abs(r[i1][j])
            rb = hb[j1] * abs(r[i][j2]) + hb[j2] * abs(r[i][j1])
            s, sg = _face_gap(tc, ra, rb)
            s /= ln
            if s > best + EDGE_BIAS:
                best, which, sign = s, 6 + 3 * i + j, sg
                if best > stop_above:
                    break
        if best > stop_above:
            break
    if which < 3:
        return best, scale(aa[which], sign)
    if which < 6:
        return best, scale(ab[which - 3], sign)
    c = cross(aa[(which - 6) // 3], ab[(which - 6) % 3])
    return best, scale(c, sign / norm(c))


@njit(**KERNEL)
def box_box(xpos, xmat, params, sa, sb, eps_c, region, fpts, fcode, clip, clipcode,
            # outputs
            reg, regcode):
    """Contact of box shapes sa (A) and sb (B): (status, k, n).

    TOUCHING: the boxes are within eps_c [m] and ``reg[:k]`` holds the region (``region`` False: the
    closest pair only), n is the unit normal from B towards A. APART: farther than eps_c. GENERAL: apart
    by at most eps_c but the SAT axis is not shown to give their exact distance (e.g. corner against
    corner): the caller runs the general path (GJK).
    """
    ca, aa, ha = box_of(xpos, xmat, params, sa)
    cb, ab, hb = box_of(xpos, xmat, params, sb)
    reach = norm(ha) + norm(hb) + eps_c
    if dot(sub(cb, ca), sub(cb, ca)) > reach * reach:       # bounding spheres apart
        return APART, 0, (0.0, 0.0, 1.0)
    sep, n = box_sat(ca, aa, ha, cb, ab, hb, eps_c)
    if sep > eps_c:
        return APART, 0, n
    cos_tol = FEATURE_COS if region else WITNESS_COS
    slot_a, slot_b = slots()
    feat_a = box_feature(ca, aa, ha, scale(n, -1.0), cos_tol, fpts, fcode, slot_a)
    feat_b = box_feature(cb, ab, hb, n, cos_tol, fpts, fcode, slot_b)
    no_witness = sep != sep               # False, as a variable (see vec.slots)
    k = region_of_features(feat_a, feat_b, n, no_witness, n, n, eps_c if region else -np.inf, cos_tol, 0.0,
                           0.0, (fpts, fcode, clip, clipcode, reg, regcode))
    if sep > 0.0 and not _attained(reg, k, ca, aa, ha, cb, ab, hb, sep + NEAR_TOL):
        return GENERAL, 0, n
    return TOUCHING, k, n


@njit(**KERNEL)
def _inside(c, ax, h, p, tol):
    """True if the point p lies in the box (centre c, axes ax, half sizes h) enlarged by tol [m]."""
    q = sub(p, c)
    for j in range(3):
        if abs(dot(ax[j], q)) > h[j] + tol:
            return False
    return True


@njit(**KERNEL)
def _attained(reg, k, ca, aa, ha, cb, ab, hb, bound):
    """True if a region row pairs a point of box A with a point of box B at most ``bound`` [m] apart:
    then the boxes' distance is at most that, and at least the SAT separation."""
    for i in range(k):
        pa = (reg[i, 0], reg[i, 1], reg[i, 2])
        pb = (reg[i, 3], reg[i, 4], reg[i, 5])
        if norm(sub(pa, pb)) <= bound and _inside(ca, aa, ha, pa, NEAR_TOL) and _inside(cb, ab, hb, pb,
                                                                                          NEAR_TOL):
            return True
    return False


@njit(**KERNEL)
def box_halfspace(xpos, xmat, params, s, sp, eps_c, region, fpts, fcode,
                  # outputs
                  reg, regcode):
    """Contact of box shape s (A) with half-space shape sp (B, solid below its local z = 0): (hit, k, n).

    n is the plane's unit normal (towards the box); ``reg[:k]`` holds the box's feature points within
    eps_c [m] of the plane paired with their projections (``region`` False: the deepest point only).
    """
    c, ax, h = box_of(xpos, xmat, params, s)
    n = (xmat[sp, 0, 2], xmat[sp, 1, 2], xmat[sp, 2, 2])
    p0 = (xpos[sp, 0], xpos[sp, 1], xpos[sp, 2])
    down = scale(n, -1.0)
    p = c
    for j in range(3):                    # the corner lowest along n
        p = madd(p, ax[j], h[j] if dot(ax[j], down) >= 0.0 else -h[j])
    if dot(sub(p, p0), n) > eps_c:
        return False, 0, n
    _, count, _ = box_feature(c, ax, h, down, FEATURE_COS, fpts, fcode, slots()[0])
    k = plane_points(count, p0, n, eps_c if region else -np.inf, 0.0, fpts, fcode, reg, regcode)
    return True, k, n
