"""Contact patches: the points at which two bodies touch with one normal (a face on a face: up to 4 points of
a box, more where faces clip into polygons) are solved together.

Point by point, an impulse at one corner of a face tilts the body and so changes the velocity at the other
corners; sequential sweeps then hand the load around the face, converge slowly and leave the small
tangential velocities that static friction turns into drift (a tower of boxes creeping sideways). The
normal impulses of a patch are found together instead, from the small problem A Δλ = b with λ ≥ 0 (A the
normal block of the patch's K matrices, b the velocity change each point needs); friction stays per
point, on the patch's consistent normal impulses.
"""
import numpy as np

from impulsim.collision.vec import KERNEL
from impulsim.kernel import njit
from impulsim.math.vec import v3, dot

PATCH_COS = 0.9999
"""Two contacts between the same bodies belong to one patch if their normals differ by less than ~0.8°."""
MAX_CORRELATION = 0.99
"""A point that acts almost like one already in the block (A_ij > 0.99 √(A_ii A_jj): points a few mm apart
on a rolling hull, or an extra clipping point next to a box corner) is left out of the block and solved on
its own after it. With it in, the normal problem is nearly singular in a way that lets the load jump
between such points from pass to pass while friction follows, and the passes never settle (measured on the
rattleback: 10 000 sweeps, where point-by-point sweeps converge in two)."""

MAX_PATCH = 16
"""Most points solved together in one patch; a larger patch is solved in chunks of this size."""

SLOW_SWEEP = 0.3
"""A sweep of a patch's small normal problem that leaves more than this fraction of the previous sweep's
largest change is slow: the problem gets an active-set refinement (at most again after twice as many
sweeps if that fails). Measured on the wall's patches in one state (after 400 steps), the small problems of
a position sweep took 0.35 ms by sweeps alone, 0.19 ms with a refinement after 8 sweeps, 0.12 ms so; the
funnel's converge in one or two sweeps and are not touched."""

PATCH_SWEEPS = 2000
"""Cap on the Gauss–Seidel sweeps of one patch's small normal problem. It stops at its tolerance, or when the
active-set refinement solves it, first: without the refinement a square face took tens of sweeps, seven points
scattered over a thin face up to ~1300 (the block is singular, and its nonzero eigenvalues can spread over a
factor 25); later passes go on from where a capped one stopped."""


def make_workspace():
    """Scratch of one patch for the sweeps (they run without Numba's runtime and so cannot allocate):
    (idx, rest, keep, A, b, lam, dl, lcp), ``lcp`` the small solver's vectors (see patch_lcp)."""
    ints = lambda: np.empty(MAX_PATCH, np.int64)         # noqa: E731
    return (ints(), ints(), ints(), np.empty((MAX_PATCH, MAX_PATCH)), np.empty(MAX_PATCH), np.empty(MAX_PATCH),
            np.empty(MAX_PATCH), make_lcp_scratch())


def make_lcp_scratch():
    """The six vectors patch_lcp's active-set refinement works in."""
    return np.empty((6, MAX_PATCH))


def make_cache(capacity):
    """Patch blocks of one phase for ``capacity`` contacts: (valid flag [1], the points of each patch in solve
    order at its start in the contact order [C], q and r of each patch [C, 2], offset of its block [C], the
    blocks' entries [C·MAX_PATCH] (Σ q² ≤ MAX_PATCH · Σ q))."""
    c = max(1, int(capacity))
    return (np.zeros(1, np.int64), np.zeros(c, np.int64), np.zeros((c, 2), np.int64), np.zeros(c, np.int64),
            np.zeros(c * MAX_PATCH))


@njit(**KERNEL, forceinline=True)
def store_patch(cache, start, p, p_first, q, r, idx, rest, A):
    """Keep patch p's split (idx[:q], rest[:r]) and its q×q block; its offset follows the previous patch's
    (the first one filled, p_first, starts at 0)."""
    _, members, qr, offset, blocks = cache
    for i in range(q):
        members[start + i] = idx[i]
    for i in range(r):
        members[start + q + i] = rest[i]
    qr[p, 0] = q
    qr[p, 1] = r
    off = 0 if p == p_first else offset[p - 1] + qr[p - 1, 0] * qr[p - 1, 0]
    offset[p] = off
    for i in range(q):
        for j in range(q):
            blocks[off + i * q + j] = A[i, j]


@njit(**KERNEL, forceinline=True)
def load_patch(cache, start, p, idx, rest, A):
    """Patch p's split and block from the cache into (idx, rest, A); returns (q, r)."""
    _, members, qr, offset, blocks = cache
    q = qr[p, 0]
    r = qr[p, 1]
    for i in range(q):
        idx[i] = members[start + i]
    for i in range(r):
        rest[i] = members[start + q + i]
    off = offset[p]
    for i in range(q):
        for j in range(q):
            A[i, j] = blocks[off + i * q + j]
    return q, r


@njit(cache=True, forceinline=True)
def _coupling(rows, slot, ci, cj):
    """(r_i × n_i) · J⁻¹(r_j × n_j) of one body (its arms at ``slot`` of rows.arms): the rotational part of
    n_iᵀ K(r_i, r_j) n_j, the normal velocity change at point i per unit normal impulse at point j [1/kg]
    (K(r_i, r_j) = E/m − r_i* J⁻¹ r_j*, Bender eq. 3.9)."""
    return (rows.arms[ci, slot, 0] * rows.arms[cj, slot + 1, 0] + rows.arms[ci, slot, 1] * rows.arms[cj, slot + 1, 1]
            + rows.arms[ci, slot, 2] * rows.arms[cj, slot + 1, 2])


@njit(**KERNEL, forceinline=True)
def patch_matrix(rows, idx, m, body_inv_mass, frozen, A):
    """The m×m normal block A_ij = n_iᵀ (K_A(a_i, a_j) + K_B(b_i, b_j)) n_j of the contacts idx[:m] between
    the same two bodies, leaving out frozen bodies (from the arms update_geometry keeps: a block costs dot
    products only, which matters as every level of a shock pass finds its blocks afresh)."""
    c0 = idx[0]
    Ab = rows.body_a[c0]
    Bb = rows.body_b[c0]
    ma = body_inv_mass[Ab] if frozen[Ab] == 0 else 0.0
    mb = body_inv_mass[Bb] if frozen[Bb] == 0 else 0.0
    for i in range(m):
        ci = idx[i]
        ni = v3(rows.n[ci])
        for j in range(i, m):
            cj = idx[j]
            nn = dot(ni, v3(rows.n[cj]))
            a = 0.0
            if ma != 0.0:
                a += ma * nn + _coupling(rows, 0, ci, cj)
            if mb != 0.0:
                a += mb * nn + _coupling(rows, 2, ci, cj)
            A[i, j] = a
            A[j, i] = a


@njit(**KERNEL)
def split_patch(A, m, idx, rest, keep):
    """Reorder the patch idx[:m] (A its normal block) so that idx[:q] are points none of which acts almost
    like one before it (see MAX_CORRELATION); the others go to rest[:r]; ``keep`` receives the positions in
    A of the points kept. Returns (q, r)."""
    q = 0
    r = 0
    for i in range(m):
        alike = False
        for jj in range(q):
            j = keep[jj]
            if A[i, j] > MAX_CORRELATION * np.sqrt(A[i, i] * A[j, j]):
                alike = True
                break
        if alike:
            rest[r] = idx[i]
            r += 1
        else:
            keep[q] = i
            q += 1
    for jj in range(q):
        idx[jj] = idx[keep[jj]]
    return q, r


@njit(**KERNEL)
def keep_block(A, keep, q):
    """Shrink A to the rows and columns keep[:q] (increasing, as split_patch leaves them), in place: entry
    (i, j) comes from (keep[i], keep[j]), never from a place already overwritten."""
    for i in range(q):
        for j in range(q):
            A[i, j] = A[keep[i], keep[j]]


@njit(**KERNEL)
def patch_lcp(A, b, lam, m, tol, dl, scratch):
    """Normal impulse increments dl[:m] of a patch: λ + dl ≥ 0, w = A dl − b ≥ 0 and (λ + dl)·w = 0, by
    projected Gauss–Seidel on the small system until no increment changes the velocities by more than tol.
    A is singular for four coplanar points (three freedoms of the relative motion): any of its solutions
    gives the same velocities. When the sweeps converge slowly (SLOW_SWEEP) the patch gets an active-set
    refinement (refine_active_set; ``scratch`` from make_lcp_scratch), which ends it when it meets the
    conditions to tol. Returns the sweeps made."""
    for i in range(m):
        dl[i] = 0.0
    last = np.inf
    next_try = 2
    for k in range(1, PATCH_SWEEPS + 1):
        change = _pgs_sweep(A, b, lam, m, dl)
        if change <= tol:
            return k
        if k >= next_try and change > SLOW_SWEEP * last:
            if refine_active_set(A, b, lam, m, tol, dl, scratch):
                return k
            next_try = 2 * k
        last = change
    return PATCH_SWEEPS


@njit(**KERNEL, forceinline=True)
def _pgs_sweep(A, b, lam, m, dl):
    """One projected Gauss–Seidel sweep over the patch's rows; returns the largest velocity change [m/s]."""
    change = 0.0
    for i in range(m):
        if A[i, i] <= 0.0:
            continue
        r = b[i]
        for j in range(m):
            r -= A[i, j] * dl[j]
        new = max(-lam[i], dl[i] + r / A[i, i])
        change = max(change, abs(new - dl[i]) * A[i, i])
        dl[i] = new
    return change


@njit(**KERNEL)
def refine_active_set(A, b, lam, m, tol, dl, scratch):
    """Finish the patch problem from the sweeps' iterate dl by guessing which points carry load: solve the
    rows of those exactly (conjugate gradients, which also handles the singular block of coplanar
    points), release a point whose impulse would turn negative, take in a released point that the others
    push into (w < −tol), and repeat. Accepted, and written to dl, only if the result meets the
    complementarity conditions to tol; returns whether it was.

    Projected Gauss–Seidel finds the loaded points quickly but moves load off a point it is releasing very
    slowly when the loaded points lie nearly on a line (a thin face, a clipped polygon's close corners):
    on the wall of Bender 5.5.1.2 a few six-point patches took 400–2000 sweeps, half of all the sweeps of
    every patch together."""
    x, r, p, q, act, rhs = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5]
    for i in range(m):
        act[i] = 1.0 if lam[i] + dl[i] > 0.0 and A[i, i] > 0.0 else 0.0
        x[i] = dl[i] if act[i] > 0.0 else -lam[i]
    for _ in range(2 * m + 2):
        for i in range(m):                # what the loaded points must reach besides the released ones' part
            s = b[i]
            for j in range(m):
                if act[j] == 0.0:
                    s -= A[i, j] * x[j]
            rhs[i] = s
        _cg_on_active(A, m, act, rhs, x, r, p, q, 1e-4 * tol * tol)
        if _release_negative(lam, m, act, x):
            continue
        add, ok = _worst_pushed(A, b, m, act, x, tol)
        if add >= 0:
            act[add] = 1.0
            continue
        if not ok:
            return False
        for i in range(m):
            dl[i] = x[i]
        return True
    return False


@njit(**KERNEL, forceinline=True)
def _release_negative(lam, m, act, x):
    """Release the loaded points whose total impulse λ + x went negative; whether any was."""
    released = False
    for i in range(m):
        if act[i] > 0.0 and lam[i] + x[i] < 0.0:
            act[i] = 0.0
            x[i] = -lam[i]
            released = True
    return released


@njit(**KERNEL, forceinline=True)
def _worst_pushed(A, b, m, act, x, tol):
    """(the released point with the most negative w below −tol, or −1; whether every loaded point has
    |w| ≤ tol), w = A x − b."""
    worst = -tol
    add = -1
    ok = True
    for i in range(m):
        if A[i, i] <= 0.0:
            continue
        w = -b[i]
        for j in range(m):
            w += A[i, j] * x[j]
        if act[i] > 0.0:
            ok = ok and abs(w) <= tol
        elif w < worst:
            worst = w
            add = i
    return add, ok


@njit(**KERNEL, forceinline=True)
def _cg_on_active(A, m, act, rhs, x, r, p, q, tol2):
    """Conjugate gradients on A_SS x_S = rhs_S over the points S with act > 0, from x (others untouched),
    until |residual|² ≤ tol2 or |S| + 2 steps (A_SS is positive semidefinite; on a consistent singular
    block CG still converges, adding to x only a part in A_SS's range)."""
    rr = 0.0
    n_act = 0
    for i in range(m):
        r[i] = 0.0
        if act[i] > 0.0:
            n_act += 1
            s = rhs[i]
            for j in range(m):
                if act[j] > 0.0:
                    s -= A[i, j] * x[j]
            r[i] = s
        p[i] = r[i]
        rr += r[i] * r[i]
    for _ in range(n_act + 2):
        if rr <= tol2:
            return
        pq = 0.0
        for i in range(m):
            s = 0.0
            if act[i] > 0.0:
                for j in range(m):
                    if act[j] > 0.0:
                        s += A[i, j] * p[j]
            q[i] = s
            pq += p[i] * s
        if pq <= 0.0:
            return
        alpha = rr / pq
        rr_new = 0.0
        for i in range(m):
            if act[i] > 0.0:
                x[i] += alpha * p[i]
                r[i] -= alpha * q[i]
            rr_new += r[i] * r[i]
        beta = rr_new / rr
        rr = rr_new
        for i in range(m):
            p[i] = r[i] + beta * p[i]


@njit(**KERNEL, forceinline=True)
def patch_members(rows, order, start, length, active_kind, level_hi, idx):
    """The contacts of one patch (order[start:start+length]) that take part in this pass, into idx; their
    number."""
    m = 0
    for j in range(start, start + length):
        c = order[j]
        if rows.kind[c] == active_kind and rows.level[c] <= level_hi and m < idx.shape[0]:
            idx[m] = c
            m += 1
    return m


@njit(**KERNEL)
def patches_with_kind(rows, order, patch_start, patch_len, n_patches, kind, out_start, out_len):
    """The patches (in their order) with at least one contact of ``kind``, into out_start/out_len; their
    number. A collision round sweeps only these: the collisions are a few of a pile's thousands of contacts,
    and a scan of every patch per iteration cost the funnel more than the collision impulses."""
    n = 0
    for p in range(n_patches):
        for j in range(patch_start[p], patch_start[p] + patch_len[p]):
            if rows.kind[order[j]] == kind:
                out_start[n] = patch_start[p]
                out_len[n] = patch_len[p]
                n += 1
                break
    return n


@njit(**KERNEL)
def group_patches(rows, order, count, patch_start, patch_len):
    """Split ``order[:count]`` into runs of contacts between the same two bodies with the same normal (the
    detector emits a pair's contacts together; the level sort keeps them together), at most MAX_PATCH long.
    Writes each run's start and length; returns the number of runs."""
    n = 0
    j = 0
    while j < count:
        c0 = order[j]
        k = j + 1
        while k < count and k - j < MAX_PATCH:
            c = order[k]
            if rows.body_a[c] != rows.body_a[c0] or rows.body_b[c] != rows.body_b[c0]:
                break
            if dot(v3(rows.n[c]), v3(rows.n[c0])) < PATCH_COS:
                break
            k += 1
        patch_start[n] = j
        patch_len[n] = k - j
        n += 1
        j = k
    return n
