"""Explicit Runge–Kutta integrators for the Lagrange method's ODE y' = f(t, y) (Wagner App. F.1).

y packs every body's position, orientation quaternion, velocity and angular velocity. Each stage is one
evaluation of f, that is one full λ solve. The quaternions are normalized at the end of every (sub)step.
``rk45`` is the embedded Cash–Karp pair (5th order with a 4th-order error estimate, Bender App. B,
Table B.1) covering each step with adaptive sub-steps; the others take the step in one go.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.errors import SimulationError
from impulsim.kernel import njit


@dataclass(frozen=True)
class Tableau:
    """Butcher tableau: nodes c, stage matrix a (lower triangular), weights b, error weights b − b*."""
    c: tuple
    a: tuple
    b: tuple
    err: tuple = ()
    order: int = 1


TABLEAUS = {
    # explicit Euler: x += h f(x)                                       local error O(h²)
    "euler": Tableau(c=(0.0,), a=((),), b=(1.0,), order=1),
    # midpoint rule: k1 = f(x), k2 = f(x + h/2 k1), x += h k2             O(h³)
    "rk2": Tableau(c=(0.0, 0.5), a=((), (0.5,)), b=(0.0, 1.0), order=2),
    # classical RK4, weights 1/6, 1/3, 1/3, 1/6                          O(h⁵)
    "rk4": Tableau(c=(0.0, 0.5, 0.5, 1.0), a=((), (0.5,), (0.0, 0.5), (0.0, 0.0, 1.0)),
                   b=(1 / 6, 1 / 3, 1 / 3, 1 / 6), order=4),
    # Cash–Karp 5(4)
    "rk45": Tableau(
        c=(0.0, 1 / 5, 3 / 10, 3 / 5, 1.0, 7 / 8),
        a=((), (1 / 5,), (3 / 40, 9 / 40), (3 / 10, -9 / 10, 6 / 5), (-11 / 54, 5 / 2, -70 / 27, 35 / 27),
           (1631 / 55296, 175 / 512, 575 / 13824, 44275 / 110592, 253 / 4096)),
        b=(37 / 378, 0.0, 250 / 621, 125 / 594, 0.0, 512 / 1771),
        err=(37 / 378 - 2825 / 27648, 0.0, 250 / 621 - 18575 / 48384, 125 / 594 - 13525 / 55296,
             -277 / 14336, 512 / 1771 - 1 / 4),
        order=5),
}

MAX_SUBSTEPS = 10000


@njit(cache=True)
def weighted_sum(y, k, weights, n_terms, h,
                 # outputs
                 out):
    """out = y + Σ_{j < n_terms} (h w_j) k_j, terms with w_j = 0 skipped (stage inputs and results)."""
    for i in range(y.shape[0]):
        out[i] = y[i]
    for j in range(n_terms):
        if weights[j] != 0.0:
            c = h * weights[j]
            for i in range(y.shape[0]):
                out[i] += c * k[j, i]


@njit(cache=True, error_model="numpy")     # a blown-up state gives NaN (reported by the step), not an exception
def normalize_quaternions(y, n):
    """Renormalize the n quaternions of the packed state y in place (y = pos, quat, vel, ω)."""
    for b in range(n):
        o = 3 * n + 4 * b
        norm = np.sqrt(y[o] * y[o] + y[o + 1] * y[o + 1] + y[o + 2] * y[o + 2] + y[o + 3] * y[o + 3])
        for i in range(4):
            y[o + i] /= norm


class RungeKutta:
    """Takes steps of y' = f(t, y, out) with one tableau; ``adaptive`` sub-steps to ``tolerance``."""

    def __init__(self, name: str, size: int, tolerance: float = 1e-8):
        if name not in TABLEAUS:
            raise ValueError(f"unknown integrator {name!r} (use {', '.join(TABLEAUS)})")
        if not (np.isfinite(tolerance) and tolerance > 0):
            raise ValueError(f"tolerance must be positive, got {tolerance!r}")
        self.name = name
        self.tab = TABLEAUS[name]
        self.adaptive = bool(self.tab.err)
        self.tolerance = float(tolerance)
        self.k = np.zeros((len(self.tab.b), size))
        stages = len(self.tab.b)
        self.a = np.zeros((stages, stages))
        """The stage matrix as an array (row s: the weights of k_0 … k_{s−1} in stage s's input)."""
        for i, row in enumerate(self.tab.a):
            self.a[i, :len(row)] = row
        self.b = np.array(self.tab.b)
        self.err = np.array(self.tab.err) if self.tab.err else np.zeros(0)
        self.tmp = np.zeros(size)
        self.y0 = np.zeros(size)
        """The packed state at the start of a step taken in one kernel."""
        self.out = np.zeros(size)
        self.next_dt = None
        self.evaluations = 0
        self.substeps = 0

    def _stages(self, f, t, y, h):
        for s, cs in enumerate(self.tab.c):
            weighted_sum(y, self.k, self.a[s], s, h, self.tmp)
            f(t + cs * h, self.tmp, self.k[s])
            self.evaluations += 1

    def _combine(self, y, h, weights, out):
        weighted_sum(y, self.k, weights, len(weights), h, out)

    def count_one_step(self) -> None:
        """Record a step taken elsewhere in one go (all stages, one sub-step)."""
        self.evaluations = len(self.b)
        self.substeps = 1

    def step(self, f, t, y, h, normalize) -> np.ndarray:
        """y(t + h); ``normalize(y)`` renormalizes the quaternions in place after every (sub)step.
        The result lives in a buffer of the integrator, overwritten by the next step."""
        self.evaluations = 0
        self.substeps = 0
        if not self.adaptive:
            self._stages(f, t, y, h)
            out = self.out
            self._combine(y, h, self.b, out)
            normalize(out)
            self.substeps = 1
            return out
        return self._adaptive(f, t, y, h, normalize)

    def _adaptive(self, f, t, y, h, normalize):
        """Sub-steps dt with error ‖e / (tol (1 + |y|))‖_∞ ≤ 1, dt ← dt · clamp(0.9 err^(−1/5), 0.2, 5)."""
        y = y.copy()
        done = 0.0
        dt = h if self.next_dt is None else min(self.next_dt, h)
        trial = np.empty_like(y)
        err = np.empty_like(y)
        for _ in range(MAX_SUBSTEPS):
            if done >= h * (1 - 1e-12):
                return y
            dt = min(dt, h - done)
            self._stages(f, t + done, y, dt)
            self._combine(y, dt, self.b, trial)
            err[:] = 0.0
            for s, w in enumerate(self.tab.err):
                if w != 0.0:
                    err += (dt * w) * self.k[s]
            ratio = float(np.max(np.abs(err) / (self.tolerance * (1.0 + np.abs(trial)))))
            if ratio <= 1.0:
                y[:] = trial
                normalize(y)
                done += dt
                self.substeps += 1
                self.next_dt = dt * (5.0 if ratio == 0.0 else min(5.0, 0.9 * ratio ** -0.2))
                dt = self.next_dt
            else:
                dt *= max(0.2, 0.9 * ratio ** -0.25)
        raise SimulationError(f"the adaptive integrator needed more than {MAX_SUBSTEPS} sub-steps in one step "
                              f"of {h} s (tolerance {self.tolerance}); the motion is too fast or stiff")
