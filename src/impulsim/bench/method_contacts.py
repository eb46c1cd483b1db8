"""The contact scenes every contact-capable method runs, for ``impulsim bench methods``.

Two scenes with analytic answers (built in :mod:`impulsim.experiments.rempfler`, plain models that any
method accepts):

* incline: a 1 kg box sliding down a 15° plane at 2 m/s with μ = 0.5 stops after
  d = v0² / (2 g (μ cos α − sin α)) = 0.910 m; error = distance travelled after 1.2 s − d [m];
* ball: dropped from 1 m onto the ground with e = 0.5, it rises to h_k = e^{2k} h_0 (0.25, 0.0625,
  0.015625 m); error of each of the first three apexes [m].

Every method runs both scenes at the same steps h; times are the median wall time of the steps after the
first (the first may compile). The run that is timed is also the one whose errors are reported and checked,
so a fast wrong run does not pass: the stopping distance must be within v0 h and every apex within v_1 h
(v_1 = √(2 g h_0), the first impact speed), the errors of a method of first order in h at the contact
events (an impact is caught up to one step early or late; a stop up to one step of travel off).
"""
from __future__ import annotations

import math
import time

import numpy as np

import impulsim as ims
from impulsim.bench import first_line
from impulsim.methods import make
from impulsim.experiments.rempfler import (G, apex_heights, bouncing_ball, incline_box, measured_apexes,
                                            stopping_distance)

INCLINE_SPEED = 2.0                 # v0 of incline_box [m/s]
INCLINE_SECONDS = 1.2               # the box stops after v0 / (g (μ cos α − sin α)) = 0.91 s
CREEP_WINDOW = 0.2                  # the last 0.2 s of the run, well after the stop: the box should stick [s]
DROP = 1.0                          # h_0 of bouncing_ball [m]
RADIUS = 0.1                        # the ball's radius [m] (bouncing_ball's default)
BALL_SECONDS = 1.6                  # the third apex is at 1.19 s
N_APEXES = 3
IMPACT_SPEED = math.sqrt(2.0 * G * DROP)    # v_1, the first (fastest) impact [m/s]
MOREAU_E_A = 1e-9
"""Moreau's absolute percussion tolerance [N s] here: its default 1e-4 N s lets the 1 kg box creep at
1e-4 m/s once it sticks (see methods/moreau/benchmark.py)."""


def contact_methods() -> list[tuple[str, object]]:
    """(label, factory) of every contact-capable variant, each with its default contact options."""
    return [("impulse iterative", lambda m: make("impulse", m)),
            ("impulse LGS", lambda m: make("impulse", m, solver="lgs")),
            ("Featherstone rk4", lambda m: make("featherstone", m)),
            ("Featherstone euler", lambda m: make("featherstone", m, integrator="euler")),
            ("Moreau", lambda m: make("moreau", m, e_a=MOREAU_E_A)),
            ("Lagrange", lambda m: make("lagrange", m))]


def timed_steps(method, state, h, n, record=None):
    """Step n times. Returns (first step [s], median of the later steps [s], median sweeps per step)."""
    times, sweeps = np.empty(n), np.empty(n)
    for i in range(n):
        t0 = time.perf_counter()
        info = method.step(state, h)
        times[i] = time.perf_counter() - t0
        sweeps[i] = info.iters_vel
        if record is not None:
            record(state)
    return float(times[0]), float(np.median(times[1:])), float(np.median(sweeps))


def incline(factory, h, seconds=INCLINE_SECONDS) -> dict:
    """Stopping-distance error [m] of the box on the incline, its creep [m/s] (mean downhill speed over the
    last CREEP_WINDOW, when Coulomb's law holds it at rest), and its step times [s]."""
    model, state, downhill = incline_box(speed=INCLINE_SPEED)
    box = model.body("box")
    start = state.body_pos[box].copy()
    n, n_creep = int(round(seconds / h)), int(round(CREEP_WINDOW / h))
    travelled = []
    first, median, sweeps = timed_steps(factory(model), state, h, n,
                                        lambda s: travelled.append(float(np.dot(s.body_pos[box] - start, downhill))))
    return dict(error=travelled[-1] - stopping_distance(speed=INCLINE_SPEED),
                creep=(travelled[-1] - travelled[-1 - n_creep]) / (n_creep * h),
                speed_end=float(np.linalg.norm(state.body_vel[box])), first=first, median=median, sweeps=sweeps)


def ball(factory, h, restitution=0.5, seconds=BALL_SECONDS) -> dict:
    """Errors [m] of the first three apexes of the ball (NaN for an apex that never came), step times [s]."""
    model, state = bouncing_ball(drop=DROP, restitution=restitution, radius=RADIUS)
    k = model.body("ball")
    heights = []
    first, median, sweeps = timed_steps(factory(model), state, h, int(round(seconds / h)),
                                        lambda s: heights.append(s.body_pos[k, 2] - RADIUS))
    apexes = measured_apexes(heights)[:N_APEXES]
    errors = np.full(N_APEXES, np.nan)
    errors[:len(apexes)] = apexes - apex_heights(drop=DROP, restitution=restitution, n=N_APEXES)[:len(apexes)]
    return dict(errors=errors, error=float(np.abs(errors).max()), first=first, median=median, sweeps=sweeps)


def bounds(h) -> tuple[float, float]:
    """(stopping-distance bound, apex bound) [m] at step h: one step of travel at the scene's top speed."""
    return INCLINE_SPEED * h, IMPACT_SPEED * h


def method_record(label, factory, h) -> dict:
    """One row: both scenes run by one method at step h, with the physics check of the module docstring."""
    rec = {"table": "contact scenes", "method": label, "h [s]": h}
    try:
        inc, bal = incline(factory, h), ball(factory, h)
    except Exception as exc:            # a method that cannot run a scene says so in its row
        rec["physics"] = f"FAILED to run: {first_line(exc)}"
        return rec
    d_bound, a_bound = bounds(h)
    rec["stopping distance error [m]"] = inc["error"]
    rec["creep after the stop [m/s]"] = inc["creep"]
    rec["incline [ms/step]"] = 1e3 * inc["median"]
    for i, e in enumerate(bal["errors"]):
        rec[f"apex {i + 1} error [m]"] = float(e)
    rec["ball [ms/step]"] = 1e3 * bal["median"]
    rec["first step [s]"] = max(inc["first"], bal["first"])
    misses = []
    if not abs(inc["error"]) <= d_bound:
        misses.append(f"distance off by more than v0 h = {d_bound:.1e} m")
    if not bal["error"] <= a_bound:         # NaN (a missing apex) fails too
        misses.append(f"an apex off by more than v1 h = {a_bound:.1e} m or missing")
    rec["physics"] = "ok" if not misses else "FAILED: " + "; ".join(misses)
    return rec


def contact_records(quick: bool = False) -> list[dict]:
    """Rows of every contact-capable method at each step, then a row for each method without contacts."""
    steps = (5e-3, 1e-3) if quick else (5e-3, 2e-3, 1e-3)
    records = [method_record(label, factory, h) for h in steps for label, factory in contact_methods()]
    covered = {"impulse", "featherstone", "moreau", "lagrange"}
    for name in ims.METHODS:
        if name not in covered:
            records.append(_other_method(name))
    return records


def _other_method(name) -> dict:
    """A further registered method: tried with its defaults on the incline, reported if it refuses."""
    try:
        make(name, incline_box()[0])
    except Exception as exc:
        return {"table": "contact scenes", "method": name, "physics": f"unsupported: {first_line(exc)}"}
    return method_record(name, lambda m: make(name, m), 1e-3)
