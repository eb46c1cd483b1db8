"""Moreau's midpoint time-stepping in minimal coordinates with a projected Gauss–Seidel prox iteration
(Rempfler 2015, ch. 2.4; after Studer 2008).

One step from (q^B, u^B), inputs k^{i+1}:

    inputs     m = (k^{i+1} − k^i)/Δt,  ṁ = (m^{i+1} − m^i)/Δt                      (eq. 2.33)
    midpoint   q^M = q^B + Δt/2 B(q^B) u^B                                            (eq. 2.35)
    assemble   kinematics, M, h at (q^M, k, u^B, m, ṁ); segment contacts closed at q^M
    contacts   W, χ; Delassus G = Wᵀ M⁻¹ W; c = Wᵀ M⁻¹ h Δt + (1 + ε)(Wᵀ u^B + χ)     (eq. 2.41)
    prox       P_l ← prox_C(P_l − r_l (G_l P + c_l)), Gauss–Seidel over the contacts,
               until |ΔP_l| < e_r |P_l| + e_a for every component                      (eq. 2.42, 2.43)
    velocity   u^E = u^B + M⁻¹ (h Δt + W P)                                           (eq. 2.40)
    position   q^E = q^M + Δt/2 B(q^M) u^E                                            (eq. 2.44)
    induced    j = Jᵀ F, i = Hᵀ F of the contact forces F = P/Δt at D′                (eq. 2.47, 2.48)

Sign convention of the percussions: P_n ≥ 0 pushes the body along the mesh normal n; the friction
components act along t and b (methods/moreau/laws.py).
"""
import math
from typing import NamedTuple

import numpy as np

from impulsim.kernel import njit
from impulsim.methods.moreau.laws import friction_metric_scale, friction_prox, runner_exact_law
from impulsim.methods.moreau_minimal.kinematics import (assemble, cho_solve, cholesky, forward_solve,
                                                        kinematics, position_rates_half)
from impulsim.methods.moreau_minimal.segments import detect, tangents


class Buffers(NamedTuple):
    """Scratch of the contact problem (capacity: every segment closed) and the saved start of a step."""
    W: np.ndarray       # [nu, 3 ns] force directions in u
    Y: np.ndarray       # [nu, 3 ns] L⁻¹ W (M = L Lᵀ), so that G = Yᵀ Y
    G: np.ndarray       # [3 ns, 3 ns] Delassus matrix
    c: np.ndarray       # [3 ns]
    chi: np.ndarray     # [3 ns]
    P: np.ndarray       # [3 ns]
    r: np.ndarray       # [3 ns] r-factors
    order: np.ndarray   # [ns] closed segments in solver order
    Mih: np.ndarray     # [nu] M⁻¹ h
    Lih: np.ndarray     # [nu] L⁻¹ h
    qM: np.ndarray      # [nq] midpoint
    save: np.ndarray    # [nq + nu + 3 nk] state at the start of the step
    par: np.ndarray     # [5] law parameters of one contact for this Δt
    col: np.ndarray     # [nu]


class Accumulators(NamedTuple):
    """Sums over the steps of one :func:`advance` call (reset by the caller)."""
    P_world: np.ndarray     # [ns, 3] Σ P_n n + P_t t + P_b b [N s]
    P_local: np.ndarray     # [ns, 3] Σ (P_n, P_t, P_b) [N s]
    steps_closed: np.ndarray  # [ns] steps each segment was closed
    i_sum: np.ndarray       # [nk] Σ Hᵀ-induced percussions on the inputs [N s or N m s]
    j_sum: np.ndarray       # [nu] Σ Jᵀ-induced percussions on the free coordinates
    stats: np.ndarray       # [6] (steps, Σ closed contacts, Σ sweeps, max sweeps, unconverged steps, Σ nc²)


class Options(NamedTuple):
    e_r: float
    e_a: float
    max_iter: int
    alpha: float


def make_buffers(nq, nu, nk, ns) -> Buffers:
    m = max(3 * ns, 1)
    return Buffers(np.zeros((nu, m)), np.zeros((nu, m)), np.zeros((m, m)), np.zeros(m), np.zeros(m),
                   np.zeros(m), np.zeros(m), np.zeros(max(ns, 1), np.int64), np.zeros(nu), np.zeros(nu),
                   np.zeros(nq),
                   np.zeros(nq + nu + 3 * nk), np.zeros(5), np.zeros(nu))


def make_accumulators(nu, nk, ns) -> Accumulators:
    return Accumulators(np.zeros((ns, 3)), np.zeros((ns, 3)), np.zeros(ns), np.zeros(max(nk, 1)), np.zeros(nu),
                        np.zeros(6))


@njit(cache=True)
def _save(St, B, restore):
    q, u, k, m, mdot = St
    arrays = (q, u, k, m, mdot)
    off = 0
    for a in range(5):
        arr = arrays[a]
        for i in range(arr.shape[0]):
            if restore:
                arr[i] = B.save[off + i]
            else:
                B.save[off + i] = arr[i]
        off += arr.shape[0]


@njit(cache=True)
def _contact_rows(S, Wk, C, B, m, nc):
    """Columns w (eq. 2.22) and offsets χ of the closed contacts, in blocks (n, t, b)."""
    nu = B.W.shape[0]
    rxd = np.empty(3)
    for ci in range(nc):
        s = B.order[ci]
        b = S.body[s]
        tangents(S, Wk.R, C, s)
        for d in range(3):
            dv = C.normal[s] if d == 0 else (C.tangent[s] if d == 1 else C.bitangent[s])
            r0, r1, r2 = C.point[s, 0] - Wk.x[b, 0], C.point[s, 1] - Wk.x[b, 1], C.point[s, 2] - Wk.x[b, 2]
            rxd[0] = r1 * dv[2] - r2 * dv[1]
            rxd[1] = r2 * dv[0] - r0 * dv[2]
            rxd[2] = r0 * dv[1] - r1 * dv[0]
            col = 3 * ci + d
            for a in range(nu):
                B.W[a, col] = Wk.JS[b, 0, a] * dv[0] + Wk.JS[b, 1, a] * dv[1] + Wk.JS[b, 2, a] * dv[2] + \
                    Wk.JR[b, 0, a] * rxd[0] + Wk.JR[b, 1, a] * rxd[1] + Wk.JR[b, 2, a] * rxd[2]
            chi = 0.0
            for a in range(m.shape[0]):
                chi += m[a] * (Wk.HS[b, 0, a] * dv[0] + Wk.HS[b, 1, a] * dv[1] + Wk.HS[b, 2, a] * dv[2] +
                               Wk.HR[b, 0, a] * rxd[0] + Wk.HR[b, 1, a] * rxd[1] + Wk.HR[b, 2, a] * rxd[2])
            B.chi[col] = chi


@njit(cache=True)
def _delassus(S, C, B, u, h, nc, opt):
    """G = Wᵀ M⁻¹ W, c (eq. 2.41), r-factors, warm start from the last step's percussions."""
    nu = u.shape[0]
    m3 = 3 * nc
    for i in range(m3):
        for j in range(i, m3):
            g = 0.0
            for a in range(nu):
                g += B.Y[a, i] * B.Y[a, j]
            B.G[i, j] = g
            B.G[j, i] = g
        s = B.order[i // 3]
        wu = 0.0
        wf = 0.0
        for a in range(nu):
            wu += B.W[a, i] * u[a]
            wf += B.Y[a, i] * B.Lih[a]
        eps = S.eps[s, 0] if i % 3 == 0 else S.eps[s, 1]
        B.c[i] = wf * h + (1.0 + eps) * (wu + B.chi[i])
        B.P[i] = C.P[s, i % 3] if C.was_closed[s] else 0.0
    for ci in range(nc):
        s = B.order[ci]
        i = 3 * ci
        B.r[i] = opt.alpha / B.G[i, i]
        scale = friction_metric_scale(S.law[s], S.par[s])
        B.r[i + 1] = opt.alpha / max(B.G[i + 1, i + 1], scale * scale * B.G[i + 2, i + 2])


@njit(cache=True)
def _xi(B, i, m3):
    x = B.c[i]
    for j in range(m3):
        x += B.G[i, j] * B.P[j]
    return x


@njit(cache=True)
def _close(old, new, opt):
    return abs(new - old) < opt.e_r * abs(new) + opt.e_a


@njit(cache=True)
def prox_iteration(S, B, nc, h, opt):
    """Projected Gauss–Seidel sweeps (eq. 2.42) until the stop rule (2.43) holds; returns (sweeps, ok)."""
    m3 = 3 * nc
    for it in range(1, opt.max_iter + 1):
        done = True
        for ci in range(nc):
            s = B.order[ci]
            i = 3 * ci
            pn = max(B.P[i] - B.r[i] * _xi(B, i, m3), 0.0)
            done = done and _close(B.P[i], pn, opt)
            B.P[i] = pn
            for k in range(5):
                B.par[k] = S.par[s, k]
            B.par[4] = S.par[s, 4] * h          # λ_n,max → P_n,max = λ_n,max Δt
            if S.law[s] == 3:
                pt, pb = runner_exact_law(B.P[i + 1], B.P[i + 2], _xi(B, i + 1, m3), _xi(B, i + 2, m3),
                                          B.r[i + 1], pn, B.par, True)
            else:
                pt, pb = friction_prox(S.law[s], B.P[i + 1], B.P[i + 2], _xi(B, i + 1, m3),
                                       _xi(B, i + 2, m3), B.r[i + 1], pn, B.par)
            done = done and _close(B.P[i + 1], pt, opt) and _close(B.P[i + 2], pb, opt)
            B.P[i + 1] = pt
            B.P[i + 2] = pb
        if done:
            return it, True
    return opt.max_iter, False


@njit(cache=True)
def _induced(S, Wk, C, B, nc, acc):
    """Percussions induced in the free coordinates (j) and the inputs (i) by the contacts (eq. 2.47/2.48),
    and the per-segment sums."""
    nu, nk = B.W.shape[0], acc.i_sum.shape[0]
    F, rxF = np.empty(3), np.empty(3)
    for ci in range(nc):
        s = B.order[ci]
        b = S.body[s]
        for r in range(3):
            F[r] = B.P[3 * ci] * C.normal[s, r] + B.P[3 * ci + 1] * C.tangent[s, r] + \
                B.P[3 * ci + 2] * C.bitangent[s, r]
            acc.P_world[s, r] += F[r]
            acc.P_local[s, r] += B.P[3 * ci + r]
            C.P[s, r] = B.P[3 * ci + r]
        acc.steps_closed[s] += 1.0
        r0, r1, r2 = C.point[s, 0] - Wk.x[b, 0], C.point[s, 1] - Wk.x[b, 1], C.point[s, 2] - Wk.x[b, 2]
        rxF[0] = r1 * F[2] - r2 * F[1]
        rxF[1] = r2 * F[0] - r0 * F[2]
        rxF[2] = r0 * F[1] - r1 * F[0]
        for a in range(nu):
            acc.j_sum[a] += Wk.JS[b, 0, a] * F[0] + Wk.JS[b, 1, a] * F[1] + Wk.JS[b, 2, a] * F[2] + \
                Wk.JR[b, 0, a] * rxF[0] + Wk.JR[b, 1, a] * rxF[1] + Wk.JR[b, 2, a] * rxF[2]
        for a in range(nk):
            if a < Wk.HS.shape[2]:
                acc.i_sum[a] += Wk.HS[b, 0, a] * F[0] + Wk.HS[b, 1, a] * F[1] + Wk.HS[b, 2, a] * F[2] + \
                    Wk.HR[b, 0, a] * rxF[0] + Wk.HR[b, 1, a] * rxF[1] + Wk.HR[b, 2, a] * rxF[2]


@njit(cache=True)
def one_step(T, S, mesh, St, k_next, h, opt, Wk, C, B, acc):
    """One midpoint step in place; returns 0, or −1 (M not positive definite), −2 (candidate overflow) or
    −3 (the new state is not finite), each with the state restored to the start of the step."""
    q, u, k, m, mdot = St
    _save(St, B, False)
    for a in range(k.shape[0]):
        m_new = (k_next[a] - k[a]) / h
        mdot[a] = (m_new - m[a]) / h
        m[a] = m_new
        k[a] = k_next[a]
    position_rates_half(T, q, u, 0.5 * h, B.qM)
    kinematics(T, B.qM, k, u, m, mdot, Wk)
    assemble(T, B.qM, u, Wk)
    if not cholesky(Wk.M, Wk.L):
        _save(St, B, True)
        return -1
    forward_solve(Wk.L, Wk.h, B.Lih)
    nc = 0
    if S.body.shape[0] > 0:
        nc = detect(S, mesh, Wk.R, Wk.x, C)
        if nc < 0:
            _save(St, B, True)
            return -2
    nc = 0
    for s in range(S.body.shape[0]):
        if C.closed[s]:
            B.order[nc] = s
            nc += 1
    _contact_rows(S, Wk, C, B, m, nc)
    nu = u.shape[0]
    for j in range(3 * nc):
        for a in range(nu):
            B.col[a] = B.W[a, j]
        forward_solve(Wk.L, B.col, B.Y[:, j])
    _delassus(S, C, B, u, h, nc, opt)
    sweeps, ok = prox_iteration(S, B, nc, h, opt) if nc > 0 else (0, True)
    for a in range(nu):                     # u^E = u^B + M⁻¹ (h Δt + W P)
        f = h * Wk.h[a]
        for j in range(3 * nc):
            f += B.W[a, j] * B.P[j]
        B.col[a] = f
    cho_solve(Wk.L, B.col, B.Mih)
    for a in range(nu):
        u[a] += B.Mih[a]
    position_rates_half(T, B.qM, u, 0.5 * h, q)
    for a in range(nu):
        if not math.isfinite(u[a]):
            _save(St, B, True)
            return -3
    for a in range(q.shape[0]):
        if not math.isfinite(q[a]):
            _save(St, B, True)
            return -3
    _induced(S, Wk, C, B, nc, acc)
    st = acc.stats
    st[0] += 1
    st[1] += nc
    st[2] += sweeps
    st[3] = max(st[3], sweeps)
    st[4] += 0 if ok else 1
    return 0


@njit(cache=True, nogil=True)
def advance(T, S, mesh, St, K, h, opt, Wk, C, B, acc):
    """Steps with inputs K[i] (the inputs at the end of step i, shape [n_steps, nk]); returns
    (steps done, status of the failed step or 0)."""
    for i in range(K.shape[0]):
        status = one_step(T, S, mesh, St, K[i], h, opt, Wk, C, B, acc)
        if status != 0:
            return i, status
    return K.shape[0], 0
