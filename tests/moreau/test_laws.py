"""The force laws' prox functions are projections onto their sets (in the metric each law uses):
result in the set, idempotent, nonexpansive, and no point of the set is closer."""
import math

import numpy as np
from hypothesis import given, settings, strategies as st

from impulsim.methods.moreau.laws import (coulomb_law, prox_disc, prox_ellipse, prox_normal, prox_stadium,
                                          runner_exact_law, runner_law, runner_lateral_coefficient,
                                          runner_scale)

# the first call of a kernel compiles it (or loads it from the cache), which can exceed any deadline
NO_DEADLINE = settings(deadline=None)
# Round-off of a handful of float operations on numbers up to 1e3.
ROUND = 1e-9
real = st.floats(-1e3, 1e3, allow_nan=False)
radius = st.floats(0.0, 1e3, allow_nan=False)
unit = st.floats(0.0, 1.0)
angle = st.floats(0.0, 2 * math.pi)

# runner parameters: the thesis's identified values (μ_t = 4e-3, μ_r/μ_t = 0.66, μ_b ∈ [0.02, 0.1])
MU_T, MU_R, MU_B_MIN, MU_B_MAX = 4e-3, 0.66 * 4e-3, 0.02, 0.1
P_MAX = 2.0
RUNNER = np.array([MU_T, MU_R, MU_B_MIN, MU_B_MAX, P_MAX])


def in_stadium(t, b, half, rho):
    """(t, b) lies in the stadium: distance to the segment [−half, half] × {0} at most ρ."""
    dt = max(abs(t) - half, 0.0)
    return math.hypot(dt, b) <= rho * (1 + ROUND) + ROUND


def stadium_point(s, a, half, rho):
    """A point of the stadium from parameters s ∈ [−1, 1] along the segment, a (angle) and a radius ρ' ≤ ρ."""
    return s * half + rho * math.cos(a), rho * math.sin(a)


@NO_DEADLINE
@given(real)
def test_normal_prox_projects_onto_the_nonnegative_half_line(x):
    p = prox_normal(x)
    assert p >= 0.0
    assert prox_normal(p) == p
    # closest point of R⁺: |x − p| ≤ |x − y| for y = 0 and y = |x|
    assert abs(x - p) <= min(abs(x), abs(x - abs(x))) + ROUND


@NO_DEADLINE
@given(real, real, radius)
def test_disc_prox_lands_in_the_disc_and_is_idempotent(xt, xb, r):
    pt, pb = prox_disc(xt, xb, r)
    assert math.hypot(pt, pb) <= r * (1 + ROUND) + ROUND
    assert np.allclose(prox_disc(pt, pb, r), (pt, pb), rtol=ROUND, atol=ROUND)


@NO_DEADLINE
@given(real, real, real, real, radius)
def test_disc_prox_is_nonexpansive(xt, xb, yt, yb, r):
    p, q = np.array(prox_disc(xt, xb, r)), np.array(prox_disc(yt, yb, r))
    assert np.linalg.norm(p - q) <= np.linalg.norm([xt - yt, xb - yb]) * (1 + ROUND) + ROUND


@NO_DEADLINE
@given(real, real, radius, unit, angle)
def test_disc_prox_is_the_closest_point(xt, xb, r, rho, a):
    pt, pb = prox_disc(xt, xb, r)
    yt, yb = r * rho * math.cos(a), r * rho * math.sin(a)     # any point of the disc
    assert math.hypot(xt - pt, xb - pb) <= math.hypot(xt - yt, xb - yb) * (1 + ROUND) + ROUND


@NO_DEADLINE
@given(real, real, real, real, st.floats(1e-6, 10.0), radius)
def test_coulomb_law_is_the_disc_prox_of_the_trial_point(lt, lb, xt, xb, r, lam_n):
    """Λ_T = prox_{disc(μ Λ_N)}(Λ_T − r ξ_T) (thesis eq. 2.39, Alg. 4.1)."""
    mu = 0.3
    got = coulomb_law(lt, lb, xt, xb, r, lam_n, np.array([mu, 0, 0, 0, 0]))
    assert np.allclose(got, prox_disc(lt - r * xt, lb - r * xb, mu * lam_n), rtol=1e-12, atol=0)


@NO_DEADLINE
@given(real, real, radius, radius)
def test_stadium_prox_lands_in_the_stadium_and_is_idempotent(xt, xb, half, rho):
    pt, pb = prox_stadium(xt, xb, half, rho)
    assert in_stadium(pt, pb, half, rho)
    assert np.allclose(prox_stadium(pt, pb, half, rho), (pt, pb), rtol=ROUND, atol=ROUND)


@NO_DEADLINE
@given(real, real, real, real, radius, radius)
def test_stadium_prox_is_nonexpansive(xt, xb, yt, yb, half, rho):
    p, q = np.array(prox_stadium(xt, xb, half, rho)), np.array(prox_stadium(yt, yb, half, rho))
    assert np.linalg.norm(p - q) <= np.linalg.norm([xt - yt, xb - yb]) * (1 + ROUND) + ROUND


@NO_DEADLINE
@given(real, real, radius, radius, st.floats(-1.0, 1.0), unit, angle)
def test_stadium_prox_is_the_closest_point(xt, xb, half, rho, s, frac, a):
    pt, pb = prox_stadium(xt, xb, half, rho)
    yt, yb = stadium_point(s, a, half, frac * rho)
    assert math.hypot(xt - pt, xb - pb) <= math.hypot(xt - yt, xb - yb) * (1 + ROUND) + ROUND


def in_runner_set(lt, lb, lam_n):
    """Λ_T ∈ Λ_N F: the rectangle |t| ≤ μ_r Λ_N, |b| ≤ μ_b Λ_N with half-ellipse caps reaching μ_t Λ_N."""
    mu_b = runner_lateral_coefficient(lam_n, MU_B_MIN, MU_B_MAX, P_MAX)
    dt = max(abs(lt) - MU_R * lam_n, 0.0)
    a, b = (MU_T - MU_R) * lam_n, mu_b * lam_n
    if a == 0.0 or b == 0.0:
        return abs(lt) <= ROUND and abs(lb) <= ROUND
    return (dt / a) ** 2 + (lb / b) ** 2 <= 1 + 1e-7


def runner_prox(x_t, x_b, lam_n):
    """The runner law as a map of the trial point x = Λ − r ξ (r = 1, Λ = x, ξ = 0)."""
    return runner_law(x_t, x_b, 0.0, 0.0, 1.0, lam_n, RUNNER)


def scaled_norm(dt, db, lam_n):
    """The metric of the runner's prox: ‖(t, b/s)‖ with s = μ_b(Λ_N)/(μ_t − μ_r)."""
    s = runner_scale(MU_T, MU_R, runner_lateral_coefficient(lam_n, MU_B_MIN, MU_B_MAX, P_MAX))
    return math.hypot(dt, db / s)


small = st.floats(-1.0, 1.0, allow_nan=False)
# no load, or loads far from subnormal numbers (whose few significant bits make any set test meaningless)
load = st.one_of(st.just(0.0), st.floats(1e-9, 5.0))


@NO_DEADLINE
@given(small, small, load)
def test_runner_prox_lands_in_the_runner_set_and_is_idempotent(xt, xb, lam_n):
    pt, pb = runner_prox(xt, xb, lam_n)
    assert in_runner_set(pt, pb, lam_n)
    assert np.allclose(runner_prox(pt, pb, lam_n), (pt, pb), rtol=1e-9, atol=1e-15)


@NO_DEADLINE
@given(small, small, small, small, load)
def test_runner_prox_is_nonexpansive_in_its_metric(xt, xb, yt, yb, lam_n):
    p, q = runner_prox(xt, xb, lam_n), runner_prox(yt, yb, lam_n)
    assert scaled_norm(p[0] - q[0], p[1] - q[1], lam_n) <= scaled_norm(xt - yt, xb - yb, lam_n) * (1 + ROUND) + 1e-15


@NO_DEADLINE
@given(small, small, load, st.floats(-1.0, 1.0), unit, angle)
def test_runner_prox_is_the_closest_point_in_its_metric(xt, xb, lam_n, s, frac, a):
    pt, pb = runner_prox(xt, xb, lam_n)
    mu_b = runner_lateral_coefficient(lam_n, MU_B_MIN, MU_B_MAX, P_MAX)
    # a point of the set: rectangle part along t, ellipse part with semi-axes (μ_t − μ_r) Λ_N, μ_b Λ_N
    yt = s * MU_R * lam_n + frac * (MU_T - MU_R) * lam_n * math.cos(a)
    yb = frac * mu_b * lam_n * math.sin(a)
    assert in_runner_set(yt, yb, lam_n)
    assert scaled_norm(xt - pt, xb - pb, lam_n) <= scaled_norm(xt - yt, xb - yb, lam_n) * (1 + ROUND) + 1e-15


def test_runner_set_reaches_mu_t_along_and_mu_b_across():
    """Far trial points land on the set's extreme points: μ_t Λ_N forward, μ_b(Λ_N) Λ_N sideways."""
    lam_n = 1.0
    assert np.allclose(runner_prox(10.0, 0.0, lam_n), (MU_T * lam_n, 0.0))
    assert np.allclose(runner_prox(-10.0, 0.0, lam_n), (-MU_T * lam_n, 0.0))
    mu_b = runner_lateral_coefficient(lam_n, MU_B_MIN, MU_B_MAX, P_MAX)
    assert np.allclose(runner_prox(0.0, 10.0, lam_n), (0.0, mu_b * lam_n))


def test_lateral_coefficient_grows_with_load_up_to_its_maximum():
    """μ_b(Λ_N) = μ_b,min + (μ_b,max − μ_b,min) min(Λ_N, P_max)/P_max (thesis eq. 4.5)."""
    assert runner_lateral_coefficient(0.0, MU_B_MIN, MU_B_MAX, P_MAX) == MU_B_MIN
    assert math.isclose(runner_lateral_coefficient(P_MAX / 2, MU_B_MIN, MU_B_MAX, P_MAX), 0.5 * (MU_B_MIN + MU_B_MAX))
    assert runner_lateral_coefficient(3 * P_MAX, MU_B_MIN, MU_B_MAX, P_MAX) == MU_B_MAX


EXACT = RUNNER


def runner_exact(x_t, x_b, lam_n):
    return runner_exact_law(x_t, x_b, 0.0, 0.0, 1.0, lam_n, EXACT)


@NO_DEADLINE
@given(small, small, load)
def test_exact_runner_prox_lands_in_the_runner_set_and_is_idempotent(xt, xb, lam_n):
    pt, pb = runner_exact(xt, xb, lam_n)
    assert in_runner_set(pt, pb, lam_n)
    assert np.allclose(runner_exact(pt, pb, lam_n), (pt, pb), rtol=1e-9, atol=1e-15)


@NO_DEADLINE
@given(small, small, small, small, load)
def test_exact_runner_prox_is_nonexpansive(xt, xb, yt, yb, lam_n):
    p, q = np.array(runner_exact(xt, xb, lam_n)), np.array(runner_exact(yt, yb, lam_n))
    assert np.linalg.norm(p - q) <= np.linalg.norm([xt - yt, xb - yb]) * (1 + 1e-7) + 1e-15


@NO_DEADLINE
@given(small, small, load, st.floats(-1.0, 1.0), unit, angle)
def test_exact_runner_prox_is_the_closest_point(xt, xb, lam_n, s, frac, a):
    pt, pb = runner_exact(xt, xb, lam_n)
    mu_b = runner_lateral_coefficient(lam_n, MU_B_MIN, MU_B_MAX, P_MAX)
    yt = s * MU_R * lam_n + frac * (MU_T - MU_R) * lam_n * math.cos(a)
    yb = frac * mu_b * lam_n * math.sin(a)
    # Newton's root of the ellipse equation is exact to ~1e-15 relative in τ; 1e-7 covers its effect
    assert math.hypot(xt - pt, xb - pb) <= math.hypot(xt - yt, xb - yb) * (1 + 1e-7) + 1e-15


@NO_DEADLINE
@given(st.floats(-10, 10), st.floats(-10, 10), st.floats(0.01, 5), st.floats(0.01, 5))
def test_ellipse_projection_meets_the_optimality_condition(x, y, a, b):
    """Outside the ellipse, x − p is along the outer normal (p_x/a², p_y/b²) at p, and p is on the boundary."""
    px, py = prox_ellipse(x, y, a, b)
    if (x / a) ** 2 + (y / b) ** 2 <= 1:
        assert (px, py) == (x, y)
        return
    assert math.isclose((px / a) ** 2 + (py / b) ** 2, 1.0, rel_tol=1e-9)
    nx, ny = px / a ** 2, py / b ** 2
    cross = (x - px) * ny - (y - py) * nx
    assert abs(cross) <= 1e-9 * math.hypot(x - px, y - py) * math.hypot(nx, ny) + 1e-12
    assert (x - px) * nx + (y - py) * ny >= 0.0
