"""Stronge's collision law with Coulomb friction, integrated along the impact (Holck §2.3–2.4, after Mirtich).

One contact, in its contact frame (z = the normal, from B towards A; x, y tangential). K is the 3×3 collision
matrix (Δu = K p, symmetric positive definite: Holck Theorem 1), u0 the relative velocity of the contact
points before the collision (u_z0 < 0: approaching), μ the Coulomb coefficient and e Stronge's coefficient:
the normal work of the restitution phase is e² times the magnitude of the normal work of the compression
phase (Law 5), W_r = −e² W_c, and the collision ends at W_stop = W_c + W_r = (1 − e²) W_c.

The impulse p grows along the collision; with p_z as the natural parameter the state (u, p, W_z) obeys

    du/dp_z = K ξ(θ),   dp/dp_z = ξ(θ),   dW_z/dp_z = u_z,   ξ(θ) = (−μ cos θ, −μ sin θ, 1)

while sliding (θ = atan2(u_y, u_x); Lemma 1, Theorem 3). Following Holck, the sliding equations are
integrated in parameters whose end points are known:

    compression   u_z from u_z0 to 0                 dy/du_z = (rates)/(k_z·ξ)   (2.19, 2.20)
    extension     u_z from 0 to u_ext (Lemma 2)      the same
    restitution   W_z from W_z(u_ext) to W_stop      dy/dW_z = (rates)/u_z       (2.21)

The extension phase avoids the singularity of (2.21) at u_z = 0; u_ext = sqrt(2 W_r κ) with
κ = K_33 − μ sqrt(K_31² + K_32²) ≤ k_z·ξ(θ) for every θ, so the extension cannot use up more than W_r of
normal work. Each phase is integrated by classical RK4 over a fixed subdivision of ``n_steps`` equal steps;
a step in which the slip speed |u_t| would reach zero is shortened to the predicted stop (a Newton step on
the step length), a step whose stages see the slip turn over is halved. When the slip keeps its direction
up to the stop (an isotropic tangential block of K, or sliding along an eigen-direction) the stop is hit
exactly and the whole integration keeps order 4. When the direction turns towards a converging ray as the
slip vanishes, the equations are singular at the stop (the turning rate grows like 1/|u_t|) and the stop
is located only to a fraction of the slip at which the shortening began: on strongly anisotropic random K
the impulse then changes by up to ~1e-4 (relative) between subdivisions, without a convergence order.
Once the slip stops, the contact sticks for the rest of the collision, either
stably (Theorem 4: (K⁻¹_13)² + (K⁻¹_23)² ≤ μ² (K⁻¹_33)², closed forms 2.22–2.24) or unstably: sliding
restarts along the diverging ray β of Theorems 6/7 (a root of a quartic in tan(β/2)), closed forms
2.25–2.30. Both closed forms are exact, so the only integration error is that of the sliding phases.

When κ ≤ 0 (strong coupling of normal and tangential directions with a large μ) u_z need not be monotone
along the collision and Holck's parametrisation, like his Lemma 2, does not apply; the kernel then reports
JAMMED and computes nothing (the Featherstone contact stage resolves such a contact by its sequential
Newton–Coulomb impulses instead). The same holds when K is singular: a contact on a body whose point can
move only in a plane or along a line (a link on a hinge, a planar arm) has no K⁻¹, and sticking has no
unique impulse.
"""
from __future__ import annotations

import math

import numpy as np

from impulsim.kernel import njit

SLIDING = 0
"""Regime at the end of the collision: the contact slid throughout."""
STABLE_STICK = 1
"""The slip stopped (or started at zero) and static friction held it (Theorem 4)."""
UNSTABLE_STICK = 2
"""The slip stopped (or started at zero) and restarted along the diverging ray β (Theorems 6, 7)."""
JAMMED = 3
"""Holck's parametrisation does not apply, nothing computed: κ = K_33 − μ sqrt(K_31² + K_32²) ≤ 0, or K is
singular (the contact point of a body on a hinge or in a planar mechanism cannot move in every direction)."""

SINGULAR_RATIO = 1e-9
"""det K below this share of K_11 K_22 K_33 counts as singular (see :func:`_singular`)."""

DEFAULT_STEPS = 16
"""Default RK4 steps per sliding phase: the error is below 1e-8 of the impulse for the test matrices of
tests/featherstone/test_stronge.py (convergence at order 4 is checked there)."""

DEFAULT_SLIP_TOL = 1e-12
"""Slip speed, relative to |u0|, below which the contact counts as stopped (Holck's ε)."""

# parameters of a sliding phase
_BY_UZ = 0
_BY_WZ = 1


@njit(cache=True)
def _rates(K, mu, y, by, eps, d0x, d0y, out):
    """out = dy/dγ for y = (u_x, u_y, u_z, p_x, p_y, p_z, W_z) while sliding, γ = u_z or W_z.

    A slip below eps (at a stop) keeps the direction (d0x, d0y) the step started with."""
    ux, uy = y[0], y[1]
    s = math.sqrt(ux * ux + uy * uy)
    c, sn = (ux / s, uy / s) if s > eps else (d0x, d0y)
    x0, x1 = -mu * c, -mu * sn           # ξ(θ) = (−μ cos θ, −μ sin θ, 1)
    for r in range(3):
        out[r] = K[r, 0] * x0 + K[r, 1] * x1 + K[r, 2]
    out[3], out[4], out[5] = x0, x1, 1.0
    out[6] = y[2]
    d = out[2] if by == _BY_UZ else y[2]   # dγ/dp_z: k_z·ξ (2.19, 2.20) or u_z (2.21)
    for r in range(7):
        out[r] /= d


@njit(cache=True)
def _turned(y, x, eps):
    """The slip of x points against the slip of y (it passed through zero), beyond the tolerance."""
    return x[0] * y[0] + x[1] * y[1] < 0.0 and math.sqrt(x[0] * x[0] + x[1] * x[1]) > eps


@njit(cache=True)
def _rk4(K, mu, y, h, by, eps, k1, k2, k3, k4, tmp, out):
    """One classical RK4 step of length h in the phase's parameter: out = y(γ + h). Returns True if a stage
    or the result has a slip turned against the slip at the start (the step passed a stop)."""
    s = _slip(y)
    d0x, d0y = (y[0] / s, y[1] / s) if s > 0.0 else (1.0, 0.0)
    _rates(K, mu, y, by, eps, d0x, d0y, k1)
    for r in range(7):
        tmp[r] = y[r] + 0.5 * h * k1[r]
    turned = _turned(y, tmp, eps)
    _rates(K, mu, tmp, by, eps, d0x, d0y, k2)
    for r in range(7):
        tmp[r] = y[r] + 0.5 * h * k2[r]
    turned = turned or _turned(y, tmp, eps)
    _rates(K, mu, tmp, by, eps, d0x, d0y, k3)
    for r in range(7):
        tmp[r] = y[r] + h * k3[r]
    turned = turned or _turned(y, tmp, eps)
    _rates(K, mu, tmp, by, eps, d0x, d0y, k4)
    for r in range(7):
        out[r] = y[r] + h * (k1[r] + 2.0 * k2[r] + 2.0 * k3[r] + k4[r]) / 6.0
    return turned or _turned(y, out, eps)


@njit(cache=True)
def _slip(y):
    return math.sqrt(y[0] * y[0] + y[1] * y[1])


@njit(cache=True)
def _slide(K, mu, y, end, n_steps, by, eps, work):
    """Integrate the sliding equations from the current parameter to ``end`` (index 2: u_z, index 6: W_z).

    Returns True if the slip stopped (|u_t| ≤ eps) on the way; y then holds the state at the stop.
    A step that would pass the stop (predicted from the slip's rate d|u_t|/dγ = û_t·du_t/dγ, or seen as a
    stage whose slip turned over) is shortened to the predicted stop (a Newton step on the step length,
    exact when the slip keeps its direction), or halved, until the stop is reached within eps."""
    k1, k2, k3, k4, tmp, trial = work[0], work[1], work[2], work[3], work[4], work[5]
    idx = 2 if by == _BY_UZ else 6
    h = (end - y[idx]) / n_steps
    if h <= 0.0:
        return False
    for _ in range(n_steps + 200):
        if y[idx] >= end - 1e-14 * h:
            break
        step = min(h, end - y[idx])
        s = _slip(y)
        _rates(K, mu, y, by, eps, 1.0, 0.0, k1)
        rate = (y[0] * k1[0] + y[1] * k1[1]) / s
        if rate < 0.0 and s + rate * step <= 0.0:
            step = -s / rate
        for _halving in range(60):
            if not _rk4(K, mu, y, step, by, eps, k1, k2, k3, k4, tmp, trial):
                break
            step *= 0.5
        y[:] = trial
        if _slip(y) <= eps:
            return True
    return False


@njit(cache=True)
def ray_residuals(K, mu, theta):
    """(g, d) of a sliding direction θ: g = 0 when sliding along θ keeps its direction (Theorem 6), and d > 0
    when the ray is diverging (the slip along θ grows): g = (K_t ξ(θ)) × (cos θ, sin θ)·(−1),
    d = (K_t ξ(θ))·(cos θ, sin θ)."""
    a, b, f = K[0, 0], K[1, 1], 0.5 * (K[0, 1] + K[1, 0])
    e, d = 0.5 * (K[0, 2] + K[2, 0]), 0.5 * (K[1, 2] + K[2, 1])
    c, s = math.cos(theta), math.sin(theta)
    g = (a - b) * mu * c * s + f * mu * (s * s - c * c) + d * c - e * s
    div = -a * mu * c * c - b * mu * s * s - 2.0 * f * mu * c * s + d * s + e * c
    return g, div


@njit(cache=True)
def sliding_direction(K, mu):
    """β [rad] of the diverging ray (Theorems 6, 7) for a contact whose sticking is unstable.

    With K = [[a, f, e], [f, b, d], [e, d, c]] and t = tan(β/2), the constant-direction condition is the
    quartic (d − fμ) + 2(aμ − bμ − e) t + 6fμ t² − 2(aμ − bμ + e) t³ − (d + fμ) t⁴ = 0 (Holck §2.4). Its real
    roots (companion-matrix eigenvalues, each refined by Newton on the trigonometric form) and β = π (which
    t cannot represent) are the candidates; the one with the largest divergence rate is returned."""
    a, b, f = K[0, 0], K[1, 1], 0.5 * (K[0, 1] + K[1, 0])
    e, d = 0.5 * (K[0, 2] + K[2, 0]), 0.5 * (K[1, 2] + K[2, 1])
    coef = np.array([-(d + f * mu), -2.0 * (a * mu - b * mu + e), 6.0 * f * mu,
                     2.0 * (a * mu - b * mu - e), d - f * mu])     # highest power first
    best, best_div = -1.0, -np.inf
    g_pi, div_pi = ray_residuals(K, mu, math.pi)
    size = abs(a) + abs(b) + abs(f) + abs(d) + abs(e)
    if abs(g_pi) <= 1e-12 * size:
        best, best_div = math.pi, div_pi
    lead = 0
    scale = np.max(np.abs(coef))
    while lead < 4 and abs(coef[lead]) <= 1e-14 * scale:
        lead += 1
    deg = 4 - lead
    if deg >= 1:
        comp = np.zeros((deg, deg))
        for j in range(deg):
            comp[0, j] = -coef[lead + 1 + j] / coef[lead]
        for j in range(1, deg):
            comp[j, j - 1] = 1.0
        roots = np.linalg.eigvals(comp.astype(np.complex128))
        for r in roots:
            if abs(r.imag) > 1e-6 * (1.0 + abs(r.real)):
                continue
            theta = 2.0 * math.atan(r.real)
            for _ in range(20):            # Newton on g(θ); dg/dθ by a central difference
                g, _div = ray_residuals(K, mu, theta)
                dg = (ray_residuals(K, mu, theta + 1e-7)[0] - ray_residuals(K, mu, theta - 1e-7)[0]) / 2e-7
                if dg == 0.0:
                    break
                step = g / dg
                theta -= step
                if abs(step) < 1e-15:
                    break
            g, div = ray_residuals(K, mu, theta)
            if abs(g) <= 1e-9 * size and div > best_div:
                best, best_div = theta, div
    return best % (2.0 * math.pi)


@njit(cache=True)
def _stick_compress(Kinv, y):
    """Stable sticking, compression from the current u_z to 0 (2.22, 2.23): u_t stays, dp = K⁻¹ e_z du_z."""
    du = -y[2]
    for r in range(3):
        y[3 + r] += Kinv[r, 2] * du
    y[6] += -0.5 * Kinv[2, 2] * y[2] * y[2]
    y[2] = 0.0


@njit(cache=True)
def _stick_restitute(Kinv, y, w_stop):
    """Stable sticking, restitution from the current W_z to W_stop (2.24)."""
    uz = math.sqrt(y[2] * y[2] + 2.0 * max(w_stop - y[6], 0.0) / Kinv[2, 2])
    for r in range(3):
        y[3 + r] += Kinv[r, 2] * (uz - y[2])
    y[2] = uz
    y[6] = max(w_stop, y[6])


@njit(cache=True)
def _ray_compress(K, mu, beta, y):
    """Unstable sticking: sliding along β during compression (2.25, 2.27), u_z from its value to 0."""
    x0, x1 = -mu * math.cos(beta), -mu * math.sin(beta)
    kz = K[2, 0] * x0 + K[2, 1] * x1 + K[2, 2]
    dpz = -y[2] / kz
    for r in range(2):
        y[r] += (K[r, 0] * x0 + K[r, 1] * x1 + K[r, 2]) * dpz
    y[6] += -y[2] * y[2] / (2.0 * kz)
    y[3] += x0 * dpz
    y[4] += x1 * dpz
    y[5] += dpz
    y[2] = 0.0


@njit(cache=True)
def _ray_restitute(K, mu, beta, y, w_stop):
    """Unstable sticking: sliding along β during restitution (2.29, 2.30), W_z from its value to W_stop."""
    x0, x1 = -mu * math.cos(beta), -mu * math.sin(beta)
    kz = K[2, 0] * x0 + K[2, 1] * x1 + K[2, 2]
    uz = math.sqrt(y[2] * y[2] + 2.0 * kz * max(w_stop - y[6], 0.0))
    dpz = (uz - y[2]) / kz
    for r in range(2):
        y[r] += (K[r, 0] * x0 + K[r, 1] * x1 + K[r, 2]) * dpz
    y[3] += x0 * dpz
    y[4] += x1 * dpz
    y[5] += dpz
    y[2] = uz
    y[6] = max(w_stop, y[6])


@njit(cache=True)
def stable_sticking(Kinv, mu):
    """Holck's Theorem 4: static friction holds a stopped contact iff (K⁻¹_13)² + (K⁻¹_23)² ≤ μ² (K⁻¹_33)²."""
    return Kinv[0, 2] ** 2 + Kinv[1, 2] ** 2 <= (mu * Kinv[2, 2]) ** 2


@njit(cache=True)
def _sticking_regime(K, Kinv, mu, y):
    """Regime after the slip stops, and β (0 for stable sticking); the slip is set to zero exactly."""
    y[0] = 0.0
    y[1] = 0.0
    if stable_sticking(Kinv, mu):
        return STABLE_STICK, 0.0
    return UNSTABLE_STICK, sliding_direction(K, mu)


@njit(cache=True)
def _singular(K):
    """K (symmetric, positive semidefinite) is singular to ~1e-9 of its diagonal's scale: the contact point
    cannot move in every direction (a body on a hinge, a 2-link planar arm), so sticking has no unique
    impulse (K⁻¹ of Theorem 4 does not exist). By Hadamard's inequality det K ≤ K_11 K_22 K_33."""
    det = (K[0, 0] * (K[1, 1] * K[2, 2] - K[1, 2] * K[2, 1]) - K[0, 1] * (K[1, 0] * K[2, 2] - K[1, 2] * K[2, 0])
           + K[0, 2] * (K[1, 0] * K[2, 1] - K[1, 1] * K[2, 0]))
    return det <= SINGULAR_RATIO * K[0, 0] * K[1, 1] * K[2, 2]


@njit(cache=True)
def stronge_collision(K, u0, mu, e, n_steps, slip_tol,
                      # outputs
                      p, u):
    """Integrate one collision under Stronge's law with Coulomb friction (module docstring).

    K: collision matrix (3, 3) in the contact frame [s/kg]; u0: relative velocity before (3,) [m/s], u0[2] < 0;
    mu ≥ 0; e in [0, 1]; n_steps: RK4 steps per sliding phase; slip_tol: Holck's ε relative to |u0|.
    Writes the total impulse on A p (3,) [N s] and the velocity after u = u0 + K p (3,) [m/s]; returns the
    regime at the end (SLIDING, STABLE_STICK, UNSTABLE_STICK) or JAMMED (p = 0, u = u0)."""
    p[:] = 0.0
    u[:] = u0
    if u0[2] >= 0.0:
        return SLIDING
    kappa = K[2, 2] - mu * math.sqrt(K[2, 0] ** 2 + K[2, 1] ** 2)
    if kappa <= 0.0 or _singular(K):
        return JAMMED
    Kinv = np.linalg.inv(K)
    work = np.zeros((6, 7))
    y = np.zeros(7)
    y[0], y[1], y[2] = u0[0], u0[1], u0[2]
    eps = slip_tol * math.sqrt(u0[0] ** 2 + u0[1] ** 2 + u0[2] ** 2)
    regime, beta = SLIDING, 0.0
    if _slip(y) <= eps:
        regime, beta = _sticking_regime(K, Kinv, mu, y)
    # compression: u_z from u_z0 to 0
    if regime == SLIDING and _slide(K, mu, y, 0.0, n_steps, _BY_UZ, eps, work):
        regime, beta = _sticking_regime(K, Kinv, mu, y)
    if regime == STABLE_STICK:
        _stick_compress(Kinv, y)
    elif regime == UNSTABLE_STICK:
        _ray_compress(K, mu, beta, y)
    y[2] = 0.0
    w_c = y[6]
    w_r = -e * e * w_c
    w_stop = w_c + w_r
    if w_r > 0.0:
        if regime == SLIDING:
            # extension: u_z from 0 to u_ext (Lemma 2), so that (2.21) never divides by u_z near 0
            u_ext = math.sqrt(2.0 * w_r * kappa)
            if _slide(K, mu, y, u_ext, n_steps, _BY_UZ, eps, work):
                regime, beta = _sticking_regime(K, Kinv, mu, y)
        if regime == SLIDING and _slide(K, mu, y, w_stop, n_steps, _BY_WZ, eps, work):
            regime, beta = _sticking_regime(K, Kinv, mu, y)
        if regime == STABLE_STICK:
            _stick_restitute(Kinv, y, w_stop)
        elif regime == UNSTABLE_STICK:
            _ray_restitute(K, mu, beta, y, w_stop)
    p[0], p[1], p[2] = y[3], y[4], y[5]
    for r in range(3):
        u[r] = u0[r] + K[r, 0] * p[0] + K[r, 1] * p[1] + K[r, 2] * p[2]
    return regime
