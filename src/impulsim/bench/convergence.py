"""Convergence study of the step schemes (Bender 3.4) on the double pendulum against SciPy.

Two uniform rods (1 m, 5 cm × 5 cm, 1000 kg/m³) on parallel hinges start horizontal at rest. The reference
is the reduced-coordinate ODE of the same pendulum integrated by SciPy's DOP853 at rtol = atol = 1e-12.
The error of a run is the largest deviation of the two absolute angles at T. The joint tolerance (1e-12)
and the adaptive rotation integrator (Cash–Karp, 1e-12 per sub-step) keep both far below the schemes'
discretization error, so the slope of log(error) over log(h) is the scheme's own order.

    impulsim bench order [--quick] [--json FILE]
"""
from __future__ import annotations

import math
import time

import numpy as np

import impulsim as ims
from impulsim.experiments import bender as scenes
from impulsim.dynamics.diagnostics import joint_coordinate

THETA0 = (math.pi / 2, math.pi / 2)       # both rods horizontal [rad]
T_END = 1.0                               # [s]
STEPS = (25, 50, 100, 200, 400)           # steps over T_END
QUICK_STEPS = (25, 50, 100)
SCHEMES = ("standard", "order2", "order4", "order6")
TIGHT = 1e-12                             # eps_d, eps_v: far below the discretization error
THEORY = {"standard": 1, "order2": 2, "order4": 4, "order6": 6}
"""The global order each scheme has for a mass point under a known force (Bender 3.4; the standard step
applies the impulse at the start of the step, first order there)."""


def angle_error(scheme, n_steps, solver="lgs", t_end=T_END, reference=None):
    """Largest error [rad] of the two absolute angles after n_steps steps of the given scheme."""
    model, state = scenes.double_pendulum(*THETA0)
    if reference is None:
        reference = scenes.double_pendulum_reference(model, t_end)
    method = ims.make_method("impulse", model, solver=solver, scheme=scheme, eps_d=TIGHT, eps_v=TIGHT,
                             integrator="rk45")
    h = t_end / n_steps
    for _ in range(n_steps):
        method.step(state, h)
    shoulder = joint_coordinate(model, state, "shoulder")
    t1 = THETA0[0] + shoulder
    t2 = THETA0[1] + shoulder + joint_coordinate(model, state, "elbow")
    wrap = lambda a: (a + math.pi) % (2 * math.pi) - math.pi
    return max(abs(wrap(t1 - reference[0])), abs(wrap(t2 - reference[1])))


def fitted_order(hs, errors):
    """(order p, constant C) of the least-squares fit log e = log C + p log h."""
    p, logc = np.polyfit(np.log(hs), np.log(errors), 1)
    return float(p), float(math.exp(logc))


def study(schemes=SCHEMES, steps=STEPS, t_end=T_END, solver="lgs"):
    """{scheme: (hs, errors, seconds)} for every scheme and step count."""
    model, _ = scenes.double_pendulum(*THETA0)
    ref = scenes.double_pendulum_reference(model, t_end)
    out = {}
    for scheme in schemes:
        t0 = time.perf_counter()
        errors = [angle_error(scheme, n, solver, t_end, ref) for n in steps]
        out[scheme] = (np.array([t_end / n for n in steps]), np.array(errors), time.perf_counter() - t0)
    return out


def records(results):
    """Benchmark records: per scheme the fitted order, the constant and the error ratio to order2."""
    base_h, base_e, _ = results.get("order2", next(iter(results.values())))
    recs = []
    for scheme, (hs, errors, seconds) in results.items():
        p, c = fitted_order(hs, errors)
        recs.append(dict(scene="double pendulum", method=f"impulse-lgs {scheme}", n_bodies=2, tol=TIGHT,
                         h=float(hs[-1]), ms_per_step=None, iters_pos=None, iters_vel=None, max_pos_error=None,
                         peer="scipy DOP853", peer_ms_per_step=None, theory_order=THEORY[scheme],
                         fitted_order=round(p, 3), error_constant=c, error_at_finest_h=float(errors[-1]),
                         ratio_to_order2=float(errors[-1] / base_e[-1]), seconds=round(seconds, 2)))
    return recs


def plot(results, path):
    """Log-log plot of error against h with the fitted orders, written as PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for scheme, (hs, errors, _) in results.items():
        p, _ = fitted_order(hs, errors)
        ax.loglog(hs, errors, "o-", label=f"{scheme} (fitted order {p:.2f})")
    ax.set_xlabel("step h [s]")
    ax.set_ylabel("largest angle error at T = 1 s [rad]")
    ax.set_title("Double pendulum against SciPy DOP853")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(quick: bool = False, plot_path: str | None = "bench_order.png") -> list[dict]:
    """The study as benchmark records (and the plot)."""
    results = study(steps=QUICK_STEPS if quick else STEPS)
    if plot_path:
        plot(results, plot_path)
    return records(results)
