"""Warm starting (Bender 7.2, future work 4): a contact that persists from the last step starts each
phase with the impulse it needed then, so a resting stack or a body held by static friction is solved in
one or two passes instead of creeping by the tolerance every step.

A contact is identified by its body pair and the feature ids the detector gives both points (stable
while the same vertex, edge or face pair touches). Where the ids are ambiguous — two equal boxes stacked
face on face have corners that are vertices of both faces, and rounding decides which ids a clipped point
gets — a contact without a key match takes the nearest unmatched contact of the same body pair from the
last step, if its point on A (A's frame) lies within a tolerance. Impulses are kept as world vectors, so
a contact whose tangent basis turned still gets the right friction direction.
"""
import numpy as np

from impulsim.collision.vec import KERNEL
from impulsim.kernel import njit
from impulsim.math.vec import v3, dot, scale, add
from impulsim.math.search import lower_bound
from impulsim.contact.solve import apply_contact_impulse


@njit(cache=True, forceinline=True)
def contact_key(body_a, body_b, feature_a, feature_b):
    """A 64-bit key of a contact's identity (mixing of its four ids)."""
    k = np.uint64(body_a) * np.uint64(0x9E3779B97F4A7C15)
    k ^= np.uint64(body_b) + np.uint64(0x7F4A7C15) + (k << np.uint64(6)) + (k >> np.uint64(2))
    k ^= np.uint64(feature_a & 0x7FFFFFFFFFFFFFFF) * np.uint64(0xBF58476D1CE4E5B9)
    k ^= np.uint64(feature_b & 0x7FFFFFFFFFFFFFFF) * np.uint64(0x94D049BB133111EB)
    return np.int64(k >> np.uint64(1))


@njit(**KERNEL)
def make_keys(c_body_a, c_body_b, c_feature_a, c_feature_b, count, keys_out):
    for c in range(count):
        keys_out[c] = contact_key(c_body_a[c], c_body_b[c], c_feature_a[c], c_feature_b[c])


@njit(**KERNEL)
def match(keys, count, prev_keys_sorted, prev_index_sorted, prev_count, match_out):
    """match_out[c] = index of the previous step's contact with the same key, or −1."""
    for c in range(count):
        lo, hi = 0, prev_count
        k = keys[c]
        while lo < hi:
            mid = (lo + hi) // 2
            if prev_keys_sorted[mid] < k:
                lo = mid + 1
            else:
                hi = mid
        match_out[c] = prev_index_sorted[lo] if lo < prev_count and prev_keys_sorted[lo] == k else -1


@njit(cache=True)     # allocates its "used" flags
def match_nearby(rows, count, n_bodies, prev_pair_sorted, prev_pair_index, prev_local_a, prev_local_b, prev_count,
                 tol,
                 # outputs
                 matched):
    """Check the key matches and fill in the contacts left unmatched. A key match stands only if the point
    is still within ``tol`` [m] of the previous one on A or on B (each in its body's principal frame): the
    ids of a clipped point are not unique where edges of the two faces line up (a running-bond wall), and
    a match by ids alone can hand a point the impulse and friction anchor of a corner a stone length away.
    A contact without a match takes the nearest unmatched previous contact of the same body pair whose
    point on A lies within ``tol``. A previous contact seeds at most one current contact (clipping can give
    two points the same feature ids)."""
    used = np.zeros(max(prev_count, 1), np.int8)
    for c in range(count):
        j = matched[c]
        if j < 0:
            continue
        if used[j] or not _same_point(rows, c, prev_local_a, prev_local_b, j, tol):
            matched[c] = -1     # a second contact with the same ids, or another point with this one's ids
        else:
            used[j] = 1
    for c in range(count):
        if matched[c] >= 0:
            continue
        key = np.int64(rows.body_a[c]) * n_bodies + rows.body_b[c]
        lo = lower_bound(prev_pair_sorted, prev_count, key)
        best, best_d2 = -1, tol * tol
        j = lo
        while j < prev_count and prev_pair_sorted[j] == key:
            i = prev_pair_index[j]
            j += 1
            if used[i]:
                continue
            d2 = 0.0
            for a in range(3):
                d2 += (rows.local_a[c, a] - prev_local_a[i, a]) ** 2
            if d2 < best_d2:
                best, best_d2 = i, d2
        if best >= 0:
            matched[c] = best
            used[best] = 1


@njit(**KERNEL, forceinline=True)
def _same_point(rows, c, prev_local_a, prev_local_b, j, tol):
    """Whether contact c's point lies within tol [m] of previous contact j's, on A or on B (a point that
    slides keeps its place on one of the two bodies)."""
    da = 0.0
    db = 0.0
    for a in range(3):
        da += (rows.local_a[c, a] - prev_local_a[j, a]) ** 2
        db += (rows.local_b[c, a] - prev_local_b[j, a]) ** 2
    return min(da, db) <= tol * tol


@njit(**KERNEL)
def set_anchors(rows, count, matched, prev_anchor_a, prev_anchor_b, prev_sticking):
    """Static-friction anchors: the pair of material points (one on each body) whose tangential separation
    static friction keeps at zero. A polyhedral contact that stuck in the last step keeps its pair, so the
    slip each step leaves within the tolerance does not add up from step to step, even though the detector
    finds the touching points afresh every step; any other contact anchors at its points now. A contact
    of a smooth shape (sphere, capsule, ellipsoid) always anchors afresh: its contact point moves over the
    surface as it rolls, and the material points of the last step are no longer the touching ones."""
    for c in range(count):
        j = matched[c]
        keep = j >= 0 and prev_sticking[j] and rows.sticking[c] and rows.rolling[c] == 0
        for i in range(3):
            rows.anchor_a[c, i] = prev_anchor_a[j, i] if keep else rows.local_a[c, i]
            rows.anchor_b[c, i] = prev_anchor_b[j, i] if keep else rows.local_b[c, i]


@njit(**KERNEL)
def store_phase(rows, count, out):
    """The world impulse vector λ_n n + λ_t1 t1 + λ_t2 t2 of every contact (end of a phase)."""
    for c in range(count):
        p = add(scale(v3(rows.n[c]), rows.lam_n[c]),
                add(scale(v3(rows.t1[c]), rows.lam_t[c, 0]), scale(v3(rows.t2[c]), rows.lam_t[c, 1])))
        for i in range(3):
            out[c, i] = p[i]


@njit(**KERNEL)
def roll_over(rows, count, keys, key_order, pair_keys, pair_order, cur_pos, cur_vel, prev_keys_sorted,
              prev_index_sorted, prev_pair_sorted, prev_pair_index, prev_pos, prev_vel, prev_local_a, prev_local_b,
              prev_anchor_a, prev_anchor_b, prev_sticking):
    """The end of a step's contacts in one call: the velocity phase's impulses into ``cur_vel``
    (store_phase), then everything the next step's matching reads: the keys and the body-pair keys
    (``pair_keys``: body_a·n_bodies + body_b, as match_nearby looks them up) in sorted order with the
    contacts they came from (``key_order``, ``pair_order``: stable argsorts of both), both phases' impulses,
    the points in the bodies' frames and the anchors. A contact that slipped keeps no sticking flag (held to
    its anchor, the next steps would pull the body back)."""
    store_phase(rows, count, cur_vel)
    for j in range(count):
        c = key_order[j]
        prev_keys_sorted[j] = keys[c]
        prev_index_sorted[j] = c
        c = pair_order[j]
        prev_pair_sorted[j] = pair_keys[c]
        prev_pair_index[j] = c
    for c in range(count):
        for i in range(3):
            prev_pos[c, i] = cur_pos[c, i]
            prev_vel[c, i] = cur_vel[c, i]
            prev_local_a[c, i] = rows.local_a[c, i]
            prev_local_b[c, i] = rows.local_b[c, i]
            prev_anchor_a[c, i] = rows.anchor_a[c, i]
            prev_anchor_b[c, i] = rows.anchor_b[c, i]
        prev_sticking[c] = rows.sticking[c] & (1 - rows.slipped[c])


@njit(**KERNEL)
def seed_phase(rows, count, kind, matched, prev_impulse, fraction):
    """Accumulated impulses of every contact of ``kind`` from its match (scaled by ``fraction``), with
    the normal part kept non-negative and the tangential part inside the static disc. Returns the
    number of seeded contacts; the caller applies the impulses."""
    seeded = 0
    for c in range(count):
        j = matched[c]
        if j < 0 or rows.kind[c] != kind:
            continue
        p = scale(v3(prev_impulse[j]), fraction)
        ln = max(0.0, dot(p, v3(rows.n[c])))
        l1 = dot(p, v3(rows.t1[c])) if rows.sticking[c] else 0.0   # a sliding contact's friction
        l2 = dot(p, v3(rows.t2[c])) if rows.sticking[c] else 0.0   # follows its own direction
        bound = (rows.mu_s[c] if rows.sticking[c] else rows.mu_d[c]) * ln
        mag = np.sqrt(l1 * l1 + l2 * l2)
        if mag > bound:
            s = bound / mag if mag > 0.0 else 0.0
            l1 *= s
            l2 *= s
        rows.lam_n[c] = ln
        rows.lam_t[c, 0] = l1
        rows.lam_t[c, 1] = l2
        seeded += 1
    return seeded


@njit(**KERNEL)
def apply_seeds(rows, count, kind, matched, body_inv_mass, body_Iinv, frozen, body_vel, body_omega):
    """Apply the seeded accumulated impulses of the matched contacts of ``kind``."""
    for c in range(count):
        if matched[c] < 0 or rows.kind[c] != kind:
            continue
        p = add(scale(v3(rows.n[c]), rows.lam_n[c]),
                add(scale(v3(rows.t1[c]), rows.lam_t[c, 0]), scale(v3(rows.t2[c]), rows.lam_t[c, 1])))
        apply_contact_impulse(rows, c, p, body_inv_mass, body_Iinv, frozen, body_vel, body_omega)
