"""The rotational integrators against the analytic torque-free precession of a symmetric top.

For J = diag(I1, I1, I3) and no torque, the body-frame angular velocity precesses about the symmetry
axis at Ω = (I3 − I1)/I1 · ω3: ω_x + i ω_y = (ω_x0 + i ω_y0) e^{iΩt}, ω_z = const (Euler's equations).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from impulsim.dynamics.integrate import integrate_rotation, Integrator
from impulsim.math.vec import qrot_inv

I1, I3 = 1.0, 2.0
W0 = np.array([0.3, 0.0, 1.0])       # body frame, body axes = world axes at t = 0
T_END = 2.0


def body_omega_error(scheme, h):
    inertia = np.array([I1, I1, I3])
    q = (1.0, 0.0, 0.0, 0.0)
    w = tuple(W0)
    for _ in range(int(round(T_END / h))):
        q, w = integrate_rotation(q, w, (0.0, 0.0, 0.0), inertia, 1.0 / inertia, h, int(scheme))
    wb = np.array(qrot_inv(q, w))
    phase = (I3 - I1) / I1 * W0[2] * T_END
    exact = np.array([W0[0] * np.cos(phase), W0[0] * np.sin(phase), W0[2]])
    return np.linalg.norm(wb - exact)


@pytest.mark.parametrize("scheme, order", [(Integrator.EULER, 1), (Integrator.RK4, 4)])
def test_fixed_step_schemes_have_their_order(scheme, order):
    e1 = body_omega_error(scheme, 0.02)
    e2 = body_omega_error(scheme, 0.01)
    measured = np.log2(e1 / e2)
    # the measured order lies within 0.3 of the scheme's order once h is in the asymptotic range
    assert abs(measured - order) < 0.3, measured


def test_adaptive_scheme_meets_its_tolerance_at_any_step():
    # Cash–Karp sub-steps keep each local error below 1e-12; 2 s of precession stays below 1e-9
    assert body_omega_error(Integrator.RK45, 0.5) < 1e-9


KERNEL_WITHOUT_RUNTIME = """
import numpy as np
from numba import njit
from impulsim.dynamics.integrate import integrate_rotation

@njit(_nrt=False)
def turn(q, w, tau, inertia, inv_inertia, h, scheme):
    return integrate_rotation(q, w, tau, inertia, inv_inertia, h, scheme)

inertia = np.array([1.0, 2.0, 3.0])
q, w = turn((1.0, 0.0, 0.0, 0.0), (0.1, 0.2, 0.3), (0.0, 0.0, 0.0), inertia, 1.0 / inertia, 1e-3, 2)
print(" ".join(repr(x) for x in q + w))
"""


def test_adaptive_scheme_compiles_first_inside_a_kernel_without_runtime(tmp_path):
    """The contact and collision kernels run without Numba's runtime (``_nrt=False``), and Numba passes
    that on to the callees they compile. On an empty cache a contact scene's position pass was the first
    to compile the free step and failed on the adaptive scheme's stage arrays. Compiled first from such
    a kernel, in a fresh process with an empty cache, it must work."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", KERNEL_WITHOUT_RUNTIME], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    inertia = np.array([1.0, 2.0, 3.0])
    q, w = integrate_rotation((1.0, 0.0, 0.0, 0.0), (0.1, 0.2, 0.3), (0.0, 0.0, 0.0), inertia, 1.0 / inertia, 1e-3,
                              int(Integrator.RK45))
    # the same kernel on the same input, compiled in another context: the same numbers to rounding
    np.testing.assert_allclose([float(x) for x in done.stdout.split()], q + w, rtol=0, atol=1e-15)


@pytest.mark.parametrize("scheme", list(Integrator))
def test_scheme_fixed_at_compile_time_gives_the_same_numbers(scheme):
    """A kernel given rotation_scheme(s) compiles only scheme s; over a tumbling, torqued asymmetric body
    (random start, fixed seed, 200 steps) it must give exactly the numbers of the run-time choice int(s),
    and a symmetric body in free_step_body must take the same branch (closed form or the scheme) both ways."""
    from impulsim.dynamics.integrate import free_step_body, rotation_scheme
    rng = np.random.default_rng(7)
    inertia = np.array([0.4, 1.3, 2.1])
    q0 = rng.normal(size=4)
    q0 = tuple(q0 / np.linalg.norm(q0))
    w0 = tuple(rng.normal(scale=8.0, size=3))          # fast spin: several turns over the run
    tau = tuple(rng.normal(size=3))
    qa, wa, qb, wb = q0, w0, q0, w0
    for _ in range(200):
        qa, wa = integrate_rotation(qa, wa, tau, inertia, 1.0 / inertia, 0.01, int(scheme))
        qb, wb = integrate_rotation(qb, wb, tau, inertia, 1.0 / inertia, 0.01, rotation_scheme(scheme))
    assert qa == qb and wa == wb
    zero = (0.0, 0.0, 0.0)
    sym = (2.0, 2.0, 0.5)
    inv = (0.5, 0.5, 2.0)
    fixed = free_step_body(zero, q0, zero, w0, zero, zero, sym, inv, 1.0, 0.01, rotation_scheme(scheme))
    chosen = free_step_body(zero, q0, zero, w0, zero, zero, sym, inv, 1.0, 0.01, int(scheme))
    assert fixed == chosen
    assert int(rotation_scheme(scheme)) == int(scheme)
