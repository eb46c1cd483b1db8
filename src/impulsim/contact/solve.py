"""Sequential contact impulses at velocity level (collisions, velocity correction) and position level
(resting contacts as temporary contact joints), with Coulomb friction (Bender 5.2, 5.3).

Every contact keeps accumulated impulses for the current phase: the normal one λ_n ≥ 0 (no pulling,
eq. 5.6/5.7) and the tangential one λ_t in the (t1, t2) basis. A contact classified as sticking at the
start of the step gets static friction inside the disc |λ_t| ≤ μ_s λ_n; a sliding one gets dynamic
friction μ_d λ_n against its sliding direction, never more than stops it (eq. 5.8, 5.9). ``frozen[k]`` marks bodies treated as infinite mass (shock propagation).
"""
import math

from impulsim.collision.vec import KERNEL
from impulsim.kernel import njit
from impulsim.math.vec import v3, q4, add, sub, cross, dot, scale, matvec, matvec_at, qrot
from impulsim.contact.rows import relative_velocity, contact_normal, set_k_entries, COLLISION
from impulsim.contact.memo import memo_bound, memo_keep, memo_skips, memo_limit
from impulsim.contact.patches import (patch_matrix, patch_lcp, patch_members, split_patch, keep_block, load_patch,
                                      store_patch)


@njit(cache=True, forceinline=True)
def _kdot(rows, c, frozen, x, y):
    """xᵀ K y with K = K_A + K_B, leaving out frozen bodies."""
    s = 0.0
    if frozen[rows.body_a[c]] == 0:
        s += dot(x, matvec_at(rows.KA, c, y))
    if frozen[rows.body_b[c]] == 0:
        s += dot(x, matvec_at(rows.KB, c, y))
    return s


@njit(cache=True, forceinline=True)
def _k_entries(rows, c, frozen):
    """(nᵀK n, t1ᵀK t1, t1ᵀK t2, t2ᵀK t2) of contact c: kept from update_geometry unless a body is frozen, or
    kept by a shock pass for its frozen bodies (rows.k_frozen). Inlined at every use, so only the common
    path is here; the rare one is a kernel of its own, called."""
    if rows.k_frozen[c] or (frozen[rows.body_a[c]] == 0 and frozen[rows.body_b[c]] == 0):
        return rows.k_nt[c, 0], rows.k_nt[c, 1], rows.k_nt[c, 2], rows.k_nt[c, 3]
    return _k_entries_without_frozen(rows, c, frozen)


@njit(**KERNEL, forceinline=True)
def _immovable(rows, c, frozen):
    """Whether no impulse at contact c moves either of its bodies (nᵀK n = 0: both static or frozen), as the
    residuals (position_residual, velocity_residual) count it."""
    return _k_entries(rows, c, frozen)[0] <= 0.0


@njit(cache=True)
def _k_entries_without_frozen(rows, c, frozen):
    """The K entries of _k_entries found afresh, leaving out the frozen bodies."""
    n, t1, t2 = v3(rows.n[c]), v3(rows.t1[c]), v3(rows.t2[c])
    return (_kdot(rows, c, frozen, n, n), _kdot(rows, c, frozen, t1, t1), _kdot(rows, c, frozen, t1, t2),
            _kdot(rows, c, frozen, t2, t2))


@njit(**KERNEL)
def keep_frozen_k(rows, order, patch_start, patch_len, p_lo, p_hi, frozen):
    """For the contacts of patches p_lo … p_hi − 1 that touch a frozen body, keep the K entries without the
    frozen bodies in k_nt (a shock-pass level's contacts, swept several times with the same bodies frozen:
    found afresh at every impulse they cost the wall's shock passes about a tenth of their time)."""
    for p in range(p_lo, p_hi):
        for j in range(patch_start[p], patch_start[p] + patch_len[p]):
            c = order[j]
            if rows.k_frozen[c] or (frozen[rows.body_a[c]] == 0 and frozen[rows.body_b[c]] == 0):
                continue
            e = _k_entries(rows, c, frozen)
            for i in range(4):
                rows.k_nt[c, i] = e[i]
            rows.k_frozen[c] = 1


@njit(**KERNEL)
def forget_frozen_k(rows, order, patch_start, patch_len, p_lo, p_hi):
    """Back to update_geometry's K entries for the contacts of patches p_lo … p_hi − 1 (after a shock pass)."""
    for p in range(p_lo, p_hi):
        for j in range(patch_start[p], patch_start[p] + patch_len[p]):
            c = order[j]
            if rows.k_frozen[c]:
                set_k_entries(rows, c)


@njit(**KERNEL, forceinline=True)
def apply_contact_impulse(rows, c, p, body_inv_mass, body_Iinv, frozen, body_vel, body_omega):
    """+p at a on A, −p at b on B [N s] (world); frozen and infinite-mass bodies do not move."""
    push_pair(rows.body_a[c], rows.body_b[c], v3(rows.ra[c]), v3(rows.rb[c]), p, body_inv_mass, body_Iinv, frozen,
              body_vel, body_omega)


@njit(**KERNEL, forceinline=True)
def push_pair(A, B, ra, rb, p, body_inv_mass, body_Iinv, frozen, body_vel, body_omega):
    """+p at the arm ra on A, −p at rb on B [N s, m] (world)."""
    if body_inv_mass[A] != 0.0 and frozen[A] == 0:
        dw = matvec(body_Iinv[A], cross(ra, p))
        for i in range(3):
            body_vel[A, i] += body_inv_mass[A] * p[i]
            body_omega[A, i] += dw[i]
    if body_inv_mass[B] != 0.0 and frozen[B] == 0:
        dw = matvec(body_Iinv[B], cross(rb, p))
        for i in range(3):
            body_vel[B, i] -= body_inv_mass[B] * p[i]
            body_omega[B, i] -= dw[i]


@njit(**KERNEL, forceinline=True)
def _tangent_solve(k11, k12, k22, d1, d2):
    """Tangential impulse (x1, x2) with K_tt x = (d1, d2), K_tt = [[k11, k12], [k12, k22]] the 2×2 tangential
    block of K."""
    det = k11 * k22 - k12 * k12
    if det <= 0.0:
        return 0.0, 0.0
    return (k22 * d1 - k12 * d2) / det, (k11 * d2 - k12 * d1) / det


@njit(**KERNEL, forceinline=True)
def friction_update(rows, c, frozen, d1, d2, lam_normal):
    """New accumulated tangential impulse of contact c after asking for the tangential velocity change
    (d1, d2) (minus the sliding velocity, or minus the drift rate) given the current normal impulse (see
    friction_impulse). Returns (Δλ1, Δλ2, saturated)."""
    o1 = rows.lam_t[c, 0]
    o2 = rows.lam_t[c, 1]
    _, k11, k12, k22 = _k_entries(rows, c, frozen)
    n1, n2, saturated = friction_impulse(rows.sticking[c] != 0, o1, o2, k11, k12, k22, rows.mu_s[c], rows.mu_d[c],
                                         v3(rows.slide_dir[c]), v3(rows.t1[c]), v3(rows.t2[c]), d1, d2, lam_normal)
    rows.lam_t[c, 0] = n1
    rows.lam_t[c, 1] = n2
    return n1 - o1, n2 - o2, saturated


@njit(**KERNEL, forceinline=True)
def friction_impulse(sticking, o1, o2, k11, k12, k22, mu_s, mu_d, slide_dir, t1, t2, d1, d2, lam_normal):
    """The accumulated tangential impulse (n1, n2) [N s] in the (t1, t2) basis that replaces (o1, o2), and
    whether friction saturated; (k11, k12, k22) is the tangential block of K.

    Sticking (Bender 5.10): the impulse K_tt⁻¹ d that stops the motion, the total projected onto the disc
    μ_s λ_n (a contact that cannot hold slips by that bound and slides from the next step on; switching
    mid-step makes the passes oscillate). Sliding (eq. 5.8, 5.9): the total points against the sliding
    direction σ (``slide_dir``, fixed when the contact was classified) with magnitude μ_d λ_n, but never more
    than stops the motion along σ, p_max = |d| / (σᵀ K σ).
    """
    if sticking:
        x1, x2 = _tangent_solve(k11, k12, k22, d1, d2)
        n1 = o1 + x1
        n2 = o2 + x2
        mag = math.sqrt(n1 * n1 + n2 * n2)
        bound = mu_s * lam_normal
        saturated = mag > bound
        if saturated:
            # the static bound is exceeded: project onto the disc; the contact slips this step and is
            # classified as sliding at the next one
            f = bound / mag if mag > 0.0 else 0.0
            n1 *= f
            n2 *= f
        return n1, n2, saturated
    # sliding: a 1-D problem along σ
    s1 = dot(slide_dir, t1)
    s2 = dot(slide_dir, t2)
    size = math.sqrt(s1 * s1 + s2 * s2)
    if size < 1e-12:
        return o1, o2, False
    s1 /= size
    s2 /= size
    k = s1 * s1 * k11 + 2.0 * s1 * s2 * k12 + s2 * s2 * k22     # σᵀ K σ for σ = s1 t1 + s2 t2
    speed = -(d1 * s1 + d2 * s2)                  # remaining sliding speed along σ
    p_stop = speed / k if k > 0.0 else 0.0        # eq. 5.9: no more than stops the sliding
    held = -(o1 * s1 + o2 * s2)                   # friction impulse already acting along −σ
    bound = mu_d * lam_normal                     # eq. 5.8
    total = min(bound, max(0.0, held + p_stop))
    return -total * s1, -total * s2, total >= bound


@njit(**KERNEL, forceinline=True)
def _apply_tangential(rows, c, x1, x2, body_inv_mass, body_Iinv, frozen, body_vel, body_omega):
    p = add(scale(v3(rows.t1[c]), x1), scale(v3(rows.t2[c]), x2))
    apply_contact_impulse(rows, c, p, body_inv_mass, body_Iinv, frozen, body_vel, body_omega)


@njit(**KERNEL, forceinline=True)
def velocity_normal(rows, c, body_inv_mass, body_Iinv, frozen, body_vel, body_omega):
    """One normal impulse at velocity level toward rows.target_n[c] (friction follows, see velocity_sweep).
    Returns the remaining error: |u_n − target| unless the contact is released (λ_n = 0 and separating
    faster)."""
    n = v3(rows.n[c])
    u = relative_velocity(rows, c, body_vel, body_omega)
    un = dot(u, n)
    k = _k_entries(rows, c, frozen)[0]
    err = 0.0
    if k > 0.0:
        lam_old = rows.lam_n[c]
        lam_new = max(0.0, lam_old + (rows.target_n[c] - un) / k)
        _apply_normal(rows, c, lam_new - lam_old, un, k * (lam_new - lam_old), body_inv_mass, body_Iinv, frozen,
                      body_vel, body_omega)
        if not (lam_new == 0.0 and un > rows.target_n[c]):
            err = abs(rows.target_n[c] - un)
    return err


@njit(**KERNEL, forceinline=True)
def _apply_normal(rows, c, dl, un, dun, body_inv_mass, body_Iinv, frozen, body_vel, body_omega):
    """Add dl [N s] to the normal impulse of contact c, whose normal velocity was un and changes by dun
    [m/s] through the whole step of impulses this belongs to; keeps the compression work for Stronge's law
    (trapezoidal over the increment)."""
    if dl == 0.0:
        return
    if un < 0.0:
        rows.work_n[c] += -(un + 0.5 * dun) * dl
    apply_contact_impulse(rows, c, scale(v3(rows.n[c]), dl), body_inv_mass, body_Iinv, frozen, body_vel,
                          body_omega)
    rows.lam_n[c] += dl


@njit(**KERNEL, forceinline=True)
def velocity_friction(rows, c, body_inv_mass, body_Iinv, frozen, body_vel, body_omega):
    """Coulomb friction impulse at velocity level for the current normal impulse; returns the tangential
    speed left at a contact that sticks [m/s] (0 for sliding ones, frictionless ones and those that join two
    bodies no impulse can move)."""
    if (rows.mu_s[c] <= 0.0 and rows.mu_d[c] <= 0.0) or _immovable(rows, c, frozen):
        return 0.0
    u = relative_velocity(rows, c, body_vel, body_omega)
    u1 = dot(u, v3(rows.t1[c]))
    u2 = dot(u, v3(rows.t2[c]))
    x1, x2, saturated = friction_update(rows, c, frozen, -u1, -u2, rows.lam_n[c])
    _apply_tangential(rows, c, x1, x2, body_inv_mass, body_Iinv, frozen, body_vel, body_omega)
    if rows.sticking[c] and not saturated:
        return math.sqrt(u1 * u1 + u2 * u2)
    return 0.0


@njit(**KERNEL, forceinline=True)
def velocity_patch_normals(rows, idx, m, body_inv_mass, body_Iinv, frozen, body_vel, body_omega, eps_v, A, b, lam,
                           dl, scratch):
    """The normal impulses of the patch idx[:m] toward their targets together (see patch_lcp; A holds the
    patch's normal block); each point's friction follows (see velocity_sweep). Returns the largest remaining
    error, as velocity_normal."""
    for i in range(m):
        c = idx[i]
        b[i] = rows.target_n[c] - dot(relative_velocity(rows, c, body_vel, body_omega), v3(rows.n[c]))
        lam[i] = rows.lam_n[c]
    patch_lcp(A, b, lam, m, 1e-3 * eps_v, dl, scratch)
    err = 0.0
    for i in range(m):
        c = idx[i]
        dun = 0.0
        for j in range(m):
            dun += A[i, j] * dl[j]
        un = rows.target_n[c] - b[i]          # the normal velocity before the patch's impulses
        _apply_normal(rows, c, dl[i], un, dun, body_inv_mass, body_Iinv, frozen, body_vel, body_omega)
        if A[i, i] > 0.0 and not (rows.lam_n[c] == 0.0 and un > rows.target_n[c]):
            err = max(err, abs(b[i]))
    return err


@njit(**KERNEL, called_from_python=True)     # and by kernels: one version (impulsim.kernel)
def velocity_sweep(rows, order, patch_start, patch_len, p_lo, p_hi, active_kind, body_inv_mass, body_Iinv, frozen,
                   body_vel, body_omega, eps_v, level_hi, ws, cache, memo):
    """One pass over the patches p_lo … p_hi − 1 (in ``order``) and their contacts of ``active_kind``, up to
    contact level ``level_hi``; ``ws`` is a patch workspace (patches.make_workspace), ``cache`` the phase's
    patch blocks if valid (patches.make_cache), ``memo`` the phase's patch memory (contact.memo; off: every
    patch is visited). Returns the largest remaining error [m/s]."""
    worst = 0.0
    idx, rest, keep, A, b, lam, dl, lcp = ws
    for p in range(p_lo, p_hi):
        bound = memo_bound(memo, p, body_vel, body_omega, 1.0)
        if bound <= memo_limit(memo):
            worst = max(worst, bound)
            continue
        q, r = patch_setup(rows, order, patch_start, patch_len, p, active_kind, level_hi, body_inv_mass, frozen, ws,
                           cache)
        if q + r == 0:
            continue
        err = 0.0
        if q > 1:
            err = velocity_patch_normals(rows, idx, q, body_inv_mass, body_Iinv, frozen, body_vel, body_omega, eps_v,
                                         A, b, lam, dl, lcp)
        # then point by point: the normal impulse of a point outside the block, and every point's friction
        # (one call site each: every inlined copy of these costs compile time and code size)
        for i in range(q + r):
            c = idx[i] if i < q else rest[i - q]
            if q == 1 or i >= q:
                err = max(err, velocity_normal(rows, c, body_inv_mass, body_Iinv, frozen, body_vel, body_omega))
            err = max(err, velocity_friction(rows, c, body_inv_mass, body_Iinv, frozen, body_vel, body_omega))
        # passing over needs the error the visit leaves, not the one it found
        left = patch_residual(rows, idx, q, rest, r, frozen, body_vel, body_omega) if memo_skips(memo) else err
        memo_keep(memo, p, rows, idx, q, rest, r, left, body_vel, body_omega)
        worst = max(worst, err)
    return worst


@njit(**KERNEL)
def velocity_sweeps(rows, order, patch_start, patch_len, p_lo, p_hi, active_kind, body_inv_mass, body_Iinv, frozen,
                    body_vel, body_omega, eps_v, level_hi, ws, cache, memo, max_sweeps):
    """Up to ``max_sweeps`` velocity_sweep passes, stopping after the first whose error is at most eps_v.
    Returns (passes made, the last pass's error [m/s])."""
    err = 0.0
    done = 0
    for k in range(1, max_sweeps + 1):
        err = velocity_sweep(rows, order, patch_start, patch_len, p_lo, p_hi, active_kind, body_inv_mass, body_Iinv,
                             frozen, body_vel, body_omega, eps_v, level_hi, ws, cache, memo)
        done = k
        if err <= eps_v:
            break
    return done, err


@njit(**KERNEL, forceinline=True)
def velocity_residual(rows, c, frozen, body_vel, body_omega):
    """What a velocity visit would find wrong at contact c now [m/s] (as velocity_normal and velocity_friction
    count it): the normal velocity's distance from its target unless the contact is released (λ_n = 0 and
    separating faster), and at a sticking contact inside its friction disc the tangential speed."""
    k, _, _, _ = _k_entries(rows, c, frozen)
    if k <= 0.0:
        return 0.0
    u = relative_velocity(rows, c, body_vel, body_omega)
    un = dot(u, v3(rows.n[c]))
    err = 0.0
    if not (rows.lam_n[c] == 0.0 and un > rows.target_n[c]):
        err = abs(rows.target_n[c] - un)
    if _holds_inside_disc(rows, c):
        u1 = dot(u, v3(rows.t1[c]))
        u2 = dot(u, v3(rows.t2[c]))
        err = max(err, math.sqrt(u1 * u1 + u2 * u2))
    return err


@njit(**KERNEL, forceinline=True)
def _holds_inside_disc(rows, c):
    """Whether contact c sticks, with friction, and its tangential impulse lies inside the static disc (not
    saturated): only then is its tangential motion an error a visit would correct."""
    if not rows.sticking[c] or (rows.mu_s[c] <= 0.0 and rows.mu_d[c] <= 0.0):
        return False
    held = math.sqrt(rows.lam_t[c, 0] ** 2 + rows.lam_t[c, 1] ** 2)
    return held < rows.mu_s[c] * rows.lam_n[c] * (1.0 - 1e-12)


@njit(**KERNEL, forceinline=True)
def patch_residual(rows, idx, q, rest, r, frozen, body_vel, body_omega):
    """Largest velocity_residual over the patch's points idx[:q] and rest[:r] [m/s]."""
    err = 0.0
    for i in range(q + r):
        c = idx[i] if i < q else rest[i - q]
        err = max(err, velocity_residual(rows, c, frozen, body_vel, body_omega))
    return err


@njit(**KERNEL, forceinline=True)
def patch_setup(rows, order, patch_start, patch_len, p, active_kind, level_hi, body_inv_mass, frozen, ws, cache):
    """Patch p's points solved together, ws idx[:q] with their normal block in ws A, and those solved one by
    one, ws rest[:r]: from the phase's cache when it is valid, else found now. Returns (q, r)."""
    idx, rest, keep, A, b, lam, dl, lcp = ws
    if cache[0][0]:
        return load_patch(cache, patch_start[p], p, idx, rest, A)
    m = patch_members(rows, order, patch_start[p], patch_len[p], active_kind, level_hi, idx)
    if m == 0:
        return 0, 0
    return block_and_rest(rows, idx, m, body_inv_mass, frozen, A, rest, keep)


@njit(**KERNEL)
def fill_cache(rows, order, patch_start, patch_len, p_lo, p_hi, active_kind, level_hi, body_inv_mass, frozen, ws,
               cache):
    """Find the blocks of patches p_lo … p_hi − 1 (see patch_setup) once for a phase, or one level of a shock
    pass, in which the geometry, the contacts' kinds and the frozen bodies stay as they are, and mark the
    cache valid."""
    valid = cache[0]
    valid[0] = 0
    idx, rest, keep, A, b, lam, dl, lcp = ws
    for p in range(p_lo, p_hi):
        q, r = patch_setup(rows, order, patch_start, patch_len, p, active_kind, level_hi, body_inv_mass, frozen, ws,
                           cache)
        store_patch(cache, patch_start[p], p, p_lo, q, r, idx, rest, A)
    valid[0] = 1


@njit(**KERNEL, forceinline=True)
def block_and_rest(rows, idx, m, body_inv_mass, frozen, A, rest, keep):
    """Split the patch idx[:m] into the points solved together, idx[:q] (A their normal block when q > 1),
    and those solved one by one after them, rest[:r] (see patches.split_patch; ``keep`` is its scratch).
    Returns (q, r)."""
    if m == 1:
        return 1, 0
    patch_matrix(rows, idx, m, body_inv_mass, frozen, A)
    q, r = split_patch(A, m, idx, rest, keep)
    if r > 0 and q > 1:
        keep_block(A, keep, q)
    return q, r


@njit(**KERNEL)
def restitution_pass(rows, order, count, law, body_inv_mass, body_Iinv, frozen, body_vel, body_omega):
    """Poisson (law 1: extra e λ_n, eq. 5.3) or Stronge (law 2: normal work e² W_c) restitution impulses
    after a compression phase solved with target 0, with friction, as the last iteration (Bender 5.2.2)."""
    for j in range(count):
        c = order[j]
        if rows.kind[c] != COLLISION or rows.lam_n[c] <= 0.0:
            continue
        n = v3(rows.n[c])
        if law == 1:
            dl = rows.e[c] * rows.lam_n[c]
        else:
            k = _k_entries(rows, c, frozen)[0]
            dl = math.sqrt(2.0 * rows.e[c] ** 2 * max(rows.work_n[c], 0.0) / k) if k > 0.0 else 0.0
        if dl <= 0.0:
            continue
        apply_contact_impulse(rows, c, scale(n, dl), body_inv_mass, body_Iinv, frozen, body_vel, body_omega)
        rows.lam_n[c] += dl
        if rows.mu_s[c] > 0.0 or rows.mu_d[c] > 0.0:
            u = relative_velocity(rows, c, body_vel, body_omega)
            x1, x2, _ = friction_update(rows, c, frozen, -dot(u, v3(rows.t1[c])), -dot(u, v3(rows.t2[c])),
                                        rows.lam_n[c])
            _apply_tangential(rows, c, x1, x2, body_inv_mass, body_Iinv, frozen, body_vel, body_omega)


@njit(**KERNEL, forceinline=True)
def predicted_gap(rows, c, pred_pos, pred_quat):
    """Signed distance [m] of the contact at the predicted poses (see rows.contact_normal)."""
    A = rows.body_a[c]
    B = rows.body_b[c]
    _, gap = contact_normal(rows, c, v3(pred_pos[A]), q4(pred_quat[A]), v3(pred_pos[B]), q4(pred_quat[B]))
    return gap


@njit(**KERNEL, forceinline=True)
def position_normal(rows, c, pred_pos, pred_quat, body_inv_mass, body_Iinv, frozen, h, body_vel, body_omega):
    """One normal impulse at t0 so that the predicted contact does not penetrate at t0+h (Bender 5.3.1), or
    no deeper than its floor (rows.gap_floor); static friction follows (position_friction, 5.3.3). Returns
    (remaining error [m], impulse applied?)."""
    gap = predicted_gap(rows, c, pred_pos, pred_quat) - rows.gap_floor[c]
    n = v3(rows.n[c])
    k = _k_entries(rows, c, frozen)[0]
    err = 0.0
    moved = False
    # every contact joint is corrected in every pass (projected Gauss–Seidel), so the load spreads over
    # all points of a contact region; the tolerance only decides when the passes stop
    if k > 0.0:
        lam_old = rows.lam_n[c]
        lam_new = max(0.0, lam_old - gap / (h * k))
        if not (lam_new == 0.0 and gap >= 0.0):
            err = abs(gap)
        if lam_new != lam_old:
            apply_contact_impulse(rows, c, scale(n, lam_new - lam_old), body_inv_mass, body_Iinv, frozen,
                                  body_vel, body_omega)
            rows.lam_n[c] = lam_new
            moved = True
    return err, moved


@njit(**KERNEL, forceinline=True)
def _anchor_drift(rows, c, pred_pos, pred_quat):
    """Tangential separation (along t1, t2) [m] of contact c's anchored material points of A and B at the
    predicted poses (see warmstart.set_anchors)."""
    A = rows.body_a[c]
    B = rows.body_b[c]
    drift = sub(add(v3(pred_pos[A]), qrot(q4(pred_quat[A]), v3(rows.anchor_a[c]))),
                add(v3(pred_pos[B]), qrot(q4(pred_quat[B]), v3(rows.anchor_b[c]))))
    return dot(drift, v3(rows.t1[c])), dot(drift, v3(rows.t2[c]))


@njit(**KERNEL, forceinline=True)
def position_friction(rows, c, pred_pos, pred_quat, body_inv_mass, body_Iinv, frozen, h, body_vel, body_omega):
    """Static friction at position level: the impulse that brings the anchored material points of A and B
    (see warmstart.set_anchors) together tangentially at the predicted poses, or dynamic friction while
    sliding. Returns (the drift left at a sticking contact [m], impulse applied?). A contact between two bodies
    no impulse can move (static, sleeping or frozen by a shock pass) has no drift to correct: its anchors may
    lie apart by what the bodies moved before they fell asleep, and counting that would keep the sweeps going
    to their cap."""
    if (rows.mu_s[c] <= 0.0 and rows.mu_d[c] <= 0.0) or _immovable(rows, c, frozen):
        return 0.0, False
    d1, d2 = _anchor_drift(rows, c, pred_pos, pred_quat)
    x1, x2, saturated = friction_update(rows, c, frozen, -d1 / h, -d2 / h, rows.lam_n[c])
    rows.slipped[c] = 1 if rows.sticking[c] and saturated else 0
    moved = x1 != 0.0 or x2 != 0.0
    if moved:
        _apply_tangential(rows, c, x1, x2, body_inv_mass, body_Iinv, frozen, body_vel, body_omega)
    if rows.sticking[c] and not saturated:
        return math.sqrt(d1 * d1 + d2 * d2), moved
    return 0.0, moved


@njit(**KERNEL, forceinline=True)
def position_patch_normals(rows, idx, m, pred_pos, pred_quat, body_inv_mass, body_Iinv, frozen, h, eps_d,
                           body_vel, body_omega, A, b, lam, dl, scratch):
    """The normal impulses of the contact joints idx[:m] of one patch together (A: the patch's normal block),
    so that no predicted point penetrates (the gap g changes by about h·A·Δλ). Friction follows point by
    point (the caller refreshes the predictions in between). Returns (remaining normal error [m], impulse
    applied?)."""
    for i in range(m):
        c = idx[i]
        b[i] = -(predicted_gap(rows, c, pred_pos, pred_quat) - rows.gap_floor[c]) / h
        lam[i] = rows.lam_n[c]
    patch_lcp(A, b, lam, m, 1e-3 * eps_d / h, dl, scratch)
    err = 0.0
    moved = False
    for i in range(m):
        c = idx[i]
        gap = -b[i] * h
        if A[i, i] > 0.0 and not (lam[i] + dl[i] == 0.0 and gap >= 0.0):
            err = max(err, abs(gap))
        if dl[i] != 0.0:
            apply_contact_impulse(rows, c, scale(v3(rows.n[c]), dl[i]), body_inv_mass, body_Iinv, frozen, body_vel,
                                  body_omega)
            rows.lam_n[c] += dl[i]
            moved = True
    return err, moved


@njit(**KERNEL, forceinline=True)
def position_residual(rows, c, pred_pos, pred_quat, frozen):
    """What a position visit would find wrong at contact c on the current predictions [m] (as position_normal
    and position_friction count it): the predicted penetration or gap unless the contact is released
    (λ_n = 0 and not penetrating), and at a sticking contact inside its friction disc the anchors' drift."""
    k, _, _, _ = _k_entries(rows, c, frozen)
    if k <= 0.0:
        return 0.0
    gap = predicted_gap(rows, c, pred_pos, pred_quat) - rows.gap_floor[c]
    err = 0.0
    if not (rows.lam_n[c] == 0.0 and gap >= 0.0):
        err = abs(gap)
    if _holds_inside_disc(rows, c):
        d1, d2 = _anchor_drift(rows, c, pred_pos, pred_quat)
        err = max(err, math.sqrt(d1 * d1 + d2 * d2))
    return err


@njit(**KERNEL, forceinline=True)
def position_patch_residual(rows, idx, q, rest, r, pred_pos, pred_quat, frozen):
    """Largest position_residual over the patch's points idx[:q] and rest[:r] [m]."""
    err = 0.0
    for i in range(q + r):
        c = idx[i] if i < q else rest[i - q]
        err = max(err, position_residual(rows, c, pred_pos, pred_quat, frozen))
    return err
