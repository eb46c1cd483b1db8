"""The quaternion exponential of the closed-form symmetric rotation: sin and cos of the half angle by their
Taylor series below SERIES_ANGLE, and the normalization by one reciprocal.

The reference values come from mpmath at 40 digits. One ulp of 1 is 2.2e-16: the library's sin and cos
and the series land within one of them (measured: the series half, the library one); the free step with them agrees with the same step written
with the library's functions and four quotients to a few ulps per step, and keeps |q| = 1 to rounding
over a long run (the normalization does not let the norm drift).
"""
import math

import mpmath
import numpy as np
import pytest

from impulsim.dynamics.integrate import SERIES_ANGLE, _qexp, free_step_body, Integrator
from impulsim.math.vec import qmul

ULP1 = np.spacing(1.0)          # 2.2e-16


def exact_qexp(v, h):
    with mpmath.workdps(40):
        x, y, z = (mpmath.mpf(float(c)) * mpmath.mpf(h) for c in v)
        a = mpmath.sqrt(x * x + y * y + z * z)
        s = mpmath.sin(a / 2) / a if a != 0 else mpmath.mpf(0.5)
        return np.array([float(mpmath.cos(a / 2)), float(x * s), float(y * s), float(z * s)])


def library_qexp(v, h):
    """The exponential with the library's sin and cos, as before the series."""
    x, y, z = (c * h for c in v)
    angle = math.sqrt(x * x + y * y + z * z)
    s = math.sin(0.5 * angle) / angle
    return np.array([math.cos(0.5 * angle), x * s, y * s, z * s])


def random_vectors(rng, n, lo, hi):
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1)[:, None]
    return d * np.exp(rng.uniform(np.log(lo), np.log(hi), n))[:, None]


@pytest.mark.parametrize("lo, hi", [(1e-12, 1e-6), (1e-6, 1e-2), (1e-2, 0.999 * SERIES_ANGLE),
                                    (SERIES_ANGLE, 3.0)], ids=["tiny", "small", "series top", "library"])
def test_qexp_is_correct_to_rounding(lo, hi):
    rng = np.random.default_rng(11)
    worst_series, worst_library = 0.0, 0.0
    for v in random_vectors(rng, 400, lo, hi):
        h = 0.01
        v = v / h                                   # rotation angle |v| h in [lo, hi)
        exact = exact_qexp(v, h)
        worst_series = max(worst_series, np.abs(np.array(_qexp(tuple(v), h)) - exact).max())
        worst_library = max(worst_library, np.abs(library_qexp(v, h) - exact).max())
    assert worst_series <= ULP1, worst_series / ULP1       # measured: half an ulp at most
    assert worst_library <= 2 * ULP1                # the library's functions do no better


def test_qexp_is_continuous_at_the_series_limit():
    # just below and above SERIES_ANGLE the two evaluations meet to rounding
    axis = np.array([0.48, -0.6, 0.64])
    below = np.array(_qexp(tuple(axis * np.nextafter(SERIES_ANGLE, 0.0)), 1.0))
    above = np.array(_qexp(tuple(axis * SERIES_ANGLE), 1.0))
    assert np.abs(below - above).max() <= 2 * ULP1


def old_free_rotation(q, omega, inertia, h):
    """The closed-form rotation of a torque-free body symmetric about body z, written with the library's
    sin and cos and the quotient normalization (the arithmetic before the series)."""
    w, x, y, z = q
    e = np.array([2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)])
    f = (inertia[2] / inertia[0] - 1.0) * float(omega @ e)
    ow = omega + f * e
    q1 = np.array(qmul(tuple(library_qexp(ow, h)), tuple(q)))
    sc = library_qexp(np.array([0.0, 0.0, -f]), h)
    q1 = np.array(qmul(tuple(q1), tuple(sc)))
    return q1 / np.linalg.norm(q1)


def test_free_step_agrees_with_the_library_functions_to_rounding():
    rng = np.random.default_rng(5)
    inertia = np.array([0.08, 0.08, 0.0017])         # a rod of the chain scene
    zero = (0.0, 0.0, 0.0)
    worst = 0.0
    for _ in range(300):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        omega = rng.normal(size=3) * 10.0            # with spin about the rod: both exponentials are used
        h = 0.01
        _, q1, _, _ = free_step_body(zero, tuple(q), zero, tuple(omega), zero, zero, inertia, 1.0 / inertia, 1.0,
                                     h, int(Integrator.RK4))
        worst = max(worst, np.abs(np.array(q1) - old_free_rotation(q, omega, inertia, h)).max())
    assert worst <= 4 * ULP1, worst / ULP1


def test_long_free_rotation_keeps_a_unit_quaternion():
    # 100000 steps of a fast tumbling top: the reciprocal normalization keeps |q| within rounding of 1
    inertia = np.array([1.0, 1.0, 2.5])
    zero = (0.0, 0.0, 0.0)
    q, w = (1.0, 0.0, 0.0, 0.0), (3.0, -2.0, 7.0)
    norms = []
    for _ in range(100000):
        _, q, _, w = free_step_body(zero, q, zero, w, zero, zero, inertia, 1.0 / inertia, 1.0, 1e-3,
                                    int(Integrator.RK4))
        norms.append(abs(math.sqrt(sum(c * c for c in q)) - 1.0))
    assert max(norms) <= 2 * ULP1
