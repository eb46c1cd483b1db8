"""Force laws as prox functions (Rempfler 2015, ch. 2.3/2.4 and Alg. 4.1/4.2).

Sign convention: a percussion Λ acts on the first body of a contact along +n (pushing it away from the
second), and the contact velocity γ is the first body's velocity relative to the second. A set-valued
law ξ ∈ −N_C(Λ) (the thesis writes ξ ∈ N_C(−Λ) with the reservoir −C) is equivalent, for every r > 0, to
the fixed point

    Λ = prox_C(Λ − r ξ),          prox_C(x) = argmin_{y ∈ C} ‖x − y‖           (thesis eq. 2.37–2.39)

so each law is one small function that maps the trial point x = Λ − r ξ to the set. The friction laws
share one signature, ``law(lam_t, lam_b, xi_t, xi_b, r, lam_n, par) -> (lam_t, lam_b)``, because a law
may choose its own metric (the runner law scales the lateral axis). Adding a law: write that function,
give it a number in :class:`FrictionLaw` and one line in :func:`friction_prox`.
"""
import enum
import math
from dataclasses import dataclass

import numpy as np

from impulsim.kernel import njit


class FrictionLaw(enum.IntEnum):
    """Tangential force law of a contact (the normal law is always unilateral)."""
    COULOMB = 0     # isotropic disc of radius μ Λ_N (Alg. 4.1)
    RUNNER = 1      # anisotropic runner set, scaled prox (Alg. 4.2, eq. 4.5)
    NONE = 2        # frictionless
    RUNNER_EXACT = 3  # the same set, Euclidean projection (one r for both directions)


# layout of the per-contact parameter row [N_PAR]
N_PAR = 5
# COULOMB: par[0] = μ.   RUNNER: par = (μ_t, μ_r, μ_b,min, μ_b,max, P_n,max [N s])


@njit(cache=True)
def prox_bilateral(x):
    """Projection onto R (equality constraint: the multiplier is free)."""
    return x


@njit(cache=True)
def prox_normal(x):
    """Projection onto R⁺ (unilateral contact: Λ_N ≥ 0, thesis 'min(x, 0)' in its reservoir sign)."""
    return x if x > 0.0 else 0.0


@njit(cache=True)
def prox_disc(x_t, x_b, radius):
    """Projection of (x_t, x_b) onto the disc of ``radius`` ≥ 0 about the origin (radial scaling)."""
    n2 = x_t * x_t + x_b * x_b
    if n2 <= radius * radius:
        return x_t, x_b
    f = radius / math.sqrt(n2)
    return x_t * f, x_b * f


@njit(cache=True)
def prox_stadium(x_t, x_b, half, rho):
    """Projection onto the stadium {segment [−half, half] along t} ⊕ disc(ρ) (Alg. 4.2 in scaled space).

    The forward branch x_t > half is tested first: it is the common case of a runner sliding forward.
    """
    if x_t > half:
        p_t, p_b = prox_disc(x_t - half, x_b, rho)
        return p_t + half, p_b
    if x_t >= -half:
        return x_t, min(max(x_b, -rho), rho)
    p_t, p_b = prox_disc(x_t + half, x_b, rho)
    return p_t - half, p_b


@njit(cache=True)
def runner_lateral_coefficient(lam_n, mu_b_min, mu_b_max, p_max):
    """μ_b(Λ_N) = μ_b,min + (μ_b,max − μ_b,min) min(Λ_N, P_max)/P_max (thesis eq. 4.5, percussion form)."""
    if p_max <= 0.0:
        return mu_b_max
    return mu_b_min + (mu_b_max - mu_b_min) * min(lam_n, p_max) / p_max


@njit(cache=True)
def runner_scale(mu_t, mu_r, mu_b):
    """s = μ_b / (μ_t − μ_r): the lateral stretch that turns the half-ellipses into half-circles."""
    return mu_b / (mu_t - mu_r)


@njit(cache=True)
def coulomb_law(lam_t, lam_b, xi_t, xi_b, r, lam_n, par):
    """Isotropic Coulomb friction: Λ_T = prox_{disc(μ Λ_N)}(Λ_T − r ξ_T)."""
    return prox_disc(lam_t - r * xi_t, lam_b - r * xi_b, par[0] * lam_n)


@njit(cache=True)
def runner_law(lam_t, lam_b, xi_t, xi_b, r, lam_n, par):
    """Runner friction set Λ_N F (rectangle |t| ≤ μ_r, |b| ≤ μ_b with half-ellipse caps reaching μ_t).

    Scaled prox (Möller, Leine & Glocker 2009): in coordinates (t, b/s) the set is a stadium of half
    length μ_r Λ_N and radius (μ_t − μ_r) Λ_N; the metric of that space makes the lateral r-factor r s².
    """
    mu_t, mu_r = par[0], par[1]
    mu_b = runner_lateral_coefficient(lam_n, par[2], par[3], par[4])
    s = runner_scale(mu_t, mu_r, mu_b)
    x_t = lam_t - r * xi_t
    x_b = lam_b / s - r * s * xi_b
    p_t, p_b = prox_stadium(x_t, x_b, mu_r * lam_n, (mu_t - mu_r) * lam_n)
    return p_t, p_b * s


@njit(cache=True)
def prox_ellipse(x, y, a, b, from_bound=False):
    """Closest point to (x, y) of the ellipse region (X/a)² + (Y/b)² ≤ 1 (a, b ≥ 0).

    Outside it is (a² x/(τ + a²), b² y/(τ + b²)) with τ > 0 the root of F(τ) = (a x/(τ + a²))² +
    (b y/(τ + b²))² − 1; F is convex and decreasing, so Newton's method rises monotonically to the root
    from any τ₀ with F(τ₀) ≥ 0: from τ₀ = 0, or with ``from_bound`` from τ₀ = max(a|x| − a², b|y| − b², 0),
    where F(τ₀) ≥ 0 still holds, so that very eccentric sets (a runner's caps, a ≪ b) take a few
    iterations instead of a long climb from 0.
    """
    if a <= 0.0 or b <= 0.0:
        return (0.0, min(max(y, -b), b)) if a <= 0.0 else (min(max(x, -a), a), 0.0)
    if (x / a) ** 2 + (y / b) ** 2 <= 1.0:
        return x, y
    a2, b2 = a * a, b * b
    tau = max(a * abs(x) - a2, b * abs(y) - b2, 0.0) if from_bound else 0.0
    iterations, tol = (60, 1e-13) if from_bound else (100, 1e-15)
    for _ in range(iterations):
        p, q = a * x / (tau + a2), b * y / (tau + b2)
        f = p * p + q * q - 1.0
        df = -2.0 * (p * p / (tau + a2) + q * q / (tau + b2))
        step = -f / df
        tau += step
        if step <= tol * (tau + a2 + b2):
            break
    return a2 * x / (tau + a2), b2 * y / (tau + b2)


@njit(cache=True)
def runner_exact_law(lam_t, lam_b, xi_t, xi_b, r, lam_n, par, from_bound=False):
    """The runner set Λ_N F with its Euclidean projection: rectangle |t| ≤ μ_r Λ_N, |b| ≤ μ_b Λ_N, caps
    that are half-ellipses with semi-axes (μ_t − μ_r) Λ_N along t and μ_b Λ_N along b. A point beyond the
    rectangle's end projects onto its cap (the set is convex and the caps meet the sides tangentially);
    ``from_bound``: see :func:`prox_ellipse`."""
    mu_t, mu_r = par[0], par[1]
    mu_b = runner_lateral_coefficient(lam_n, par[2], par[3], par[4])
    x_t, x_b = lam_t - r * xi_t, lam_b - r * xi_b
    half, a, b = mu_r * lam_n, (mu_t - mu_r) * lam_n, mu_b * lam_n
    if x_t > half:
        p_t, p_b = prox_ellipse(x_t - half, x_b, a, b, from_bound)
        return p_t + half, p_b
    if x_t >= -half:
        return x_t, min(max(x_b, -b), b)
    p_t, p_b = prox_ellipse(x_t + half, x_b, a, b, from_bound)
    return p_t - half, p_b


@njit(cache=True)
def no_friction(lam_t, lam_b, xi_t, xi_b, r, lam_n, par):
    """Frictionless contact: no tangential percussion."""
    return 0.0, 0.0


@njit(cache=True)
def friction_prox(law, lam_t, lam_b, xi_t, xi_b, r, lam_n, par):
    """Dispatch on :class:`FrictionLaw`: one line per law."""
    if law == 0:
        return coulomb_law(lam_t, lam_b, xi_t, xi_b, r, lam_n, par)
    if law == 1:
        return runner_law(lam_t, lam_b, xi_t, xi_b, r, lam_n, par)
    if law == 3:
        return runner_exact_law(lam_t, lam_b, xi_t, xi_b, r, lam_n, par)
    return no_friction(lam_t, lam_b, xi_t, xi_b, r, lam_n, par)


@njit(cache=True)
def friction_metric_scale(law, par):
    """Largest lateral stretch s a law applies to its metric (1 for isotropic laws); the r-factor rule
    uses it so that the scaled step stays stable for every load."""
    if law == 1:
        return runner_scale(par[0], par[1], par[3])
    return 1.0


@dataclass(frozen=True)
class RunnerFriction:
    """Parameters of the anisotropic runner law (thesis §4.3; identified values: μ_t = 4e-3,
    μ_r/μ_t = 0.66, μ_b ∈ [0.02, 0.1]).

    ``axis`` is the runner's longitudinal direction in the body's user frame; the tangent t of a contact
    is that axis projected onto the contact plane, b = n × t is lateral. ``lam_n_max`` [N] is the normal
    force at which the lateral coefficient reaches ``mu_b_max`` (thesis λ_n,max; not given there).
    """
    mu_t: float = 4e-3
    mu_r_ratio: float = 0.66
    mu_b_min: float = 0.02
    mu_b_max: float = 0.1
    lam_n_max: float = 1000.0
    axis: tuple = (1.0, 0.0, 0.0)
    prox: str = "scaled"
    """"scaled": the thesis's prox in the metric that makes the caps circles (its lateral r-factor is
    r s², which slows the sweeps by up to s² = (μ_b/(μ_t − μ_r))²); "exact": the Euclidean projection."""

    def __post_init__(self):
        from impulsim.errors import ModelError
        if not (self.mu_t > 0 and 0 <= self.mu_r_ratio < 1):
            raise ModelError(f"RunnerFriction: need mu_t > 0 and 0 <= mu_r_ratio < 1, got {self.mu_t}, "
                             f"{self.mu_r_ratio}")
        if not (0 < self.mu_b_min <= self.mu_b_max):
            raise ModelError(f"RunnerFriction: need 0 < mu_b_min <= mu_b_max, got {self.mu_b_min}, "
                             f"{self.mu_b_max}")
        if not self.lam_n_max > 0:
            raise ModelError(f"RunnerFriction: lam_n_max must be a positive force [N], got {self.lam_n_max}")
        if not np.linalg.norm(self.axis) > 0:
            raise ModelError("RunnerFriction: axis must be a non-zero direction")
        if self.prox not in ("scaled", "exact"):
            raise ModelError(f'RunnerFriction: prox must be "scaled" or "exact", got {self.prox!r}')

    @property
    def law(self) -> FrictionLaw:
        return FrictionLaw.RUNNER if self.prox == "scaled" else FrictionLaw.RUNNER_EXACT

    def params(self, h: float) -> np.ndarray:
        """The kernel's parameter row for step size h [s] (P_n,max = λ_n,max h)."""
        return np.array([self.mu_t, self.mu_r_ratio * self.mu_t, self.mu_b_min, self.mu_b_max,
                         self.lam_n_max * h])
