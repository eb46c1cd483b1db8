"""Prox iterations on the local systems ξ_l = G_l Λ + c_l ∈ −N_{C_l}(Λ_l) (thesis eq. 2.41–2.43).

G = Wᵀ M⁻¹ W is never assembled: the iterations keep u = u_F + M⁻¹ W Λ up to date, so that
G_l Λ + c_l = ξ_l is read off as the rows' velocities (plus the restitution term e γ^B).

r-factor rule (the thesis gives none): per block l, r_l = α / λ_max(G_ll) for Gauss–Seidel, with
α ∈ (0, 2) (default 1, which solves a single isolated block in one sweep); joint rows take their own
α_bilateral (default 1.8: over-relaxation, ten times fewer sweeps on a 20-link chain). For a friction law with a
scaled metric (runner) the block is S G_TT S with S = diag(1, s_max). Jacobi uses r_i = α / S_i with the
Gershgorin bound S_i ≥ Σ_j |G_ij| (estimated through Cauchy–Schwarz per body), which keeps every
eigenvalue of diag(r) G below α; α < 2 again. Adaptation: when the largest percussion change grows for
``GROWTH_SWEEPS`` sweeps in a row, all r are halved (counted as an adaptation).
"""
import math

from impulsim.kernel import njit
from impulsim.methods.moreau.laws import friction_prox, friction_metric_scale, prox_normal, prox_bilateral
from impulsim.methods.moreau.rows import BILATERAL, row_velocity, row_mass, largest_eig2

GROWTH_SWEEPS = 3


@njit(cache=True)
def apply_percussion(i, delta, row_a, row_b, row_wa, row_wb, minv, u):
    """u += M⁻¹ w_i Δ for both bodies of row i."""
    a, b = row_a[i], row_b[i]
    for j in range(6):
        u[a, j] += minv[a, j] * row_wa[i, j] * delta
        u[b, j] += minv[b, j] * row_wb[i, j] * delta


@njit(cache=True)
def apply_all(n_rows, lam, row_a, row_b, row_wa, row_wb, minv, u):
    """u += M⁻¹ W Λ (warm start)."""
    for i in range(n_rows):
        if lam[i] != 0.0:
            apply_percussion(i, lam[i], row_a, row_b, row_wa, row_wb, minv, u)


@njit(cache=True)
def _g(i, k, row_a, row_b, row_wa, row_wb, minv):
    return row_mass(i, row_a, row_b, row_wa, row_wb, row_wa[k], row_wb[k], minv)


@njit(cache=True)
def gauss_seidel_r(n_blocks, alpha, alpha_bilateral, blk_start, blk_kind, blk_law, blk_par, row_a, row_b, row_wa,
                   row_wb, minv,
                   # outputs
                   row_r):
    """r_l = α / λ_max(G_ll) per block (friction pair: one r for t and b in the law's metric); bilateral rows
    take α_bilateral (successive over-relaxation of a linear system converges for any α in (0, 2): each
    row update lowers ½ΛᵀGΛ + cᵀΛ by α(2 − α)/2 · ξ²/G_ii)."""
    for blk in range(n_blocks):
        i = blk_start[blk]
        g = _g(i, i, row_a, row_b, row_wa, row_wb, minv)
        if blk_kind[blk] == BILATERAL:
            row_r[i] = alpha_bilateral / g if g > 0.0 else 0.0
            continue
        row_r[i] = alpha / g if g > 0.0 else 0.0
        s = friction_metric_scale(blk_law[blk], blk_par[blk])
        gtt = _g(i + 1, i + 1, row_a, row_b, row_wa, row_wb, minv)
        gbb = _g(i + 2, i + 2, row_a, row_b, row_wa, row_wb, minv)
        gtb = _g(i + 1, i + 2, row_a, row_b, row_wa, row_wb, minv)
        lmax = largest_eig2(gtt, s * s * gbb, s * gtb)
        r = alpha / lmax if lmax > 0.0 else 0.0
        row_r[i + 1] = r
        row_r[i + 2] = r


@njit(cache=True)
def jacobi_r(n_rows, n_blocks, alpha, blk_start, blk_kind, blk_law, blk_par, row_a, row_b, row_wa, row_wb, minv,
             body_sum, row_r):
    """r_i = α / S_i, S_i = Σ_k √g_ik Σ_{m at body k} √g_mk ≥ Σ_j |G_ij| (Cauchy–Schwarz per body k).
    ``body_sum`` [n_bodies] is scratch. Scaled friction metrics multiply S by s_l · max_m s_m."""
    body_sum[:] = 0.0
    s_max = 1.0
    for blk in range(n_blocks):
        if blk_kind[blk] != BILATERAL:
            s_max = max(s_max, friction_metric_scale(blk_law[blk], blk_par[blk]))
    for i in range(n_rows):
        body_sum[row_a[i]] += math.sqrt(_body_g(i, row_a[i], row_wa, minv))
        body_sum[row_b[i]] += math.sqrt(_body_g(i, row_b[i], row_wb, minv))
    for i in range(n_rows):
        # row_r holds S_i first, then α / (bound of the row's Gershgorin sum in the scaled metric)
        row_r[i] = (math.sqrt(_body_g(i, row_a[i], row_wa, minv)) * body_sum[row_a[i]]
                    + math.sqrt(_body_g(i, row_b[i], row_wb, minv)) * body_sum[row_b[i]])
    for blk in range(n_blocks):
        i = blk_start[blk]
        # scaled rows: |G'_ij| ≤ s_i s_j |G_ij| ≤ s_i s_max |G_ij|; normal and bilateral rows have s_i = 1
        row_r[i] = _safe_ratio(alpha, s_max * row_r[i])
        if blk_kind[blk] == BILATERAL:
            continue
        s = friction_metric_scale(blk_law[blk], blk_par[blk])
        r = _safe_ratio(alpha, s_max * max(row_r[i + 1], s * row_r[i + 2]))
        row_r[i + 1] = r
        row_r[i + 2] = r


@njit(cache=True)
def _safe_ratio(alpha, bound):
    return alpha / bound if bound > 0.0 else 0.0


@njit(cache=True)
def _body_g(i, k, row_w, minv):
    g = 0.0
    for j in range(6):
        g += minv[k, j] * row_w[i, j] * row_w[i, j]
    return g


@njit(cache=True)
def _block_update(blk, blk_start, blk_kind, blk_law, blk_e, blk_e_t, blk_par, row_a, row_b, row_wa, row_wb,
                  row_chi, row_gamma_b, row_r, lam, u, minv, apply, lam_out):
    """New percussions of one block from u (prox of each element in turn, thesis eq. 2.42).

    With ``apply`` = 1 the changes go into u at once (Gauss–Seidel); else u stays and only lam_out is
    written (Jacobi). Returns the largest |γ| of a bilateral row seen before its update.
    """
    i = blk_start[blk]
    if blk_kind[blk] == BILATERAL:
        xi = row_velocity(i, row_a, row_b, row_wa, row_wb, row_chi, u) + blk_e[blk] * row_gamma_b[i]
        lam_out[i] = prox_bilateral(lam[i] - row_r[i] * xi)
        if apply:
            apply_percussion(i, lam_out[i] - lam[i], row_a, row_b, row_wa, row_wb, minv, u)
        return abs(xi)
    # normal element: ξ_N = γ_N^E + e γ_N^B (Newton's impact law), Λ_N = prox_R⁺(Λ_N − r ξ_N)
    xi_n = row_velocity(i, row_a, row_b, row_wa, row_wb, row_chi, u) + blk_e[blk] * row_gamma_b[i]
    lam_n = prox_normal(lam[i] - row_r[i] * xi_n)
    lam_out[i] = lam_n
    if apply:
        apply_percussion(i, lam_n - lam[i], row_a, row_b, row_wa, row_wb, minv, u)
    # friction element with the new normal percussion
    et = blk_e_t[blk]
    xi_t = row_velocity(i + 1, row_a, row_b, row_wa, row_wb, row_chi, u) + et * row_gamma_b[i + 1]
    xi_b = row_velocity(i + 2, row_a, row_b, row_wa, row_wb, row_chi, u) + et * row_gamma_b[i + 2]
    lt, lb = friction_prox(blk_law[blk], lam[i + 1], lam[i + 2], xi_t, xi_b, row_r[i + 1], lam_n, blk_par[blk])
    lam_out[i + 1] = lt
    lam_out[i + 2] = lb
    if apply:
        apply_percussion(i + 1, lt - lam[i + 1], row_a, row_b, row_wa, row_wb, minv, u)
        apply_percussion(i + 2, lb - lam[i + 2], row_a, row_b, row_wa, row_wb, minv, u)
    return 0.0


@njit(cache=True)
def _converged(i0, i1, old, new, e_r, e_a):
    """|Λ^{j+1} − Λ^j| < e_r |Λ^{j+1}| + e_a for every row (thesis eq. 2.43); also the largest change."""
    ok = True
    worst = 0.0
    for i in range(i0, i1):
        d = abs(new[i] - old[i])
        worst = max(worst, d)
        if d >= e_r * abs(new[i]) + e_a:
            ok = False
    return ok, worst


@njit(cache=True)
def solve(jacobi, n_rows, n_blocks, blocks, rows, row_r, minv, e_r, e_a, gamma_tol, max_iter,
          # in/out
          lam, lam_new, u, stats):
    """Prox sweeps until the percussions settle (eq. 2.43 with e_r, e_a) and every bilateral row's
    |ξ| ≤ gamma_tol [m/s or rad/s] (pass e_a = inf to stop on the bilateral rows alone).

    ``u`` must hold u_F + M⁻¹ W Λ on entry and holds u_E on exit. ``stats`` receives (iterations,
    largest last change of Λ, converged 0/1, r adaptations, largest bilateral |γ| of the last sweep).
    ``blocks`` and ``rows`` are the groups of :mod:`.groups`.
    """
    blk_start, blk_kind, blk_law, blk_e, blk_e_t, blk_par = blocks
    row_a, row_b, row_wa, row_wb, row_chi, row_gamma_b = rows
    prev = math.inf
    growth = 0
    adaptations = 0
    ok = n_blocks == 0
    worst = 0.0
    gmax = 0.0
    it = 0
    while it < max_iter and not ok:
        it += 1
        gmax = 0.0
        for blk in range(n_blocks):
            g = _block_update(blk, blk_start, blk_kind, blk_law, blk_e, blk_e_t, blk_par, row_a, row_b, row_wa,
                              row_wb, row_chi, row_gamma_b, row_r, lam, u, minv, 1 - jacobi, lam_new)
            gmax = max(gmax, g)
            if not jacobi:
                for i in range(blk_start[blk], blk_start[blk + 1]):
                    lam_new[i], lam[i] = lam[i], lam_new[i]   # lam holds the new value, lam_new the old
        if jacobi:
            for i in range(n_rows):
                apply_percussion(i, lam_new[i] - lam[i], row_a, row_b, row_wa, row_wb, minv, u)
            ok, worst = _converged(0, n_rows, lam, lam_new, e_r, e_a)
            for i in range(n_rows):
                lam[i], lam_new[i] = lam_new[i], lam[i]
        else:
            ok, worst = _converged(0, n_rows, lam_new, lam, e_r, e_a)
        ok = ok and gmax <= gamma_tol
        growth = growth + 1 if worst > prev else 0
        prev = worst
        if growth >= GROWTH_SWEEPS:
            for i in range(n_rows):
                row_r[i] *= 0.5
            adaptations += 1
            growth = 0
    stats[0] = it
    stats[1] = worst
    stats[2] = 1.0 if ok else 0.0
    stats[3] = adaptations
    stats[4] = gmax
