"""Contact-time search (Bender 4.2): after a step that ends in penetration, find when contact began.

Bender's two variants: bisection, when only "penetrating or not" is known, halves the interval each
time (O(log n) steps for accuracy 1/n); interpolation on the penetration depth, when the depth is known,
places the next trial where the depth, interpolated linearly between the bracket ends, reaches the
target — much faster (the thesis quotes O(log log n)). Linear interpolation alone can stall with one end
fixed; the Illinois rule halves the stale end's weight so the bracket always shrinks (superlinear).
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np



class ContactTime(NamedTuple):
    """Time of first contact [s], signed distance there [m] and the number of depth evaluations."""
    t: float
    distance: float
    evaluations: int


def contact_time(depth_at: Callable[[float], float], t0: float, t1: float, tol: float,
                 method: str = "interpolation", max_evaluations: int = 100) -> ContactTime:
    """Time in [t0, t1] at which the smallest signed distance ``depth_at(t)`` [m] enters [−tol, 0].

    ``depth_at(t0)`` must be ≥ −tol (no penetration at the start) and ``depth_at(t1)`` < −tol
    (penetration at the end). ``method`` is "interpolation" (on the depth, Illinois) or "bisection".
    """
    if method not in ("interpolation", "bisection"):
        raise ValueError(f"contact_time: method must be 'interpolation' or 'bisection', got {method!r}")
    if not tol > 0:
        raise ValueError(f"contact_time: tol must be positive, got {tol!r}")
    target = -0.5 * tol                      # the middle of the accepted band [−tol, 0]
    ta, tb = float(t0), float(t1)
    fa, fb = depth_at(ta) - target, depth_at(tb) - target
    evals = 2
    if fa + target < -tol:
        raise ValueError(f"contact_time: already penetrating at t0 (distance {fa + target:g} m)")
    if fb + target >= -tol:
        return ContactTime(tb, fb + target, evals)
    if abs(fa) <= 0.5 * tol:
        return ContactTime(ta, fa + target, evals)
    side = 0
    while evals < max_evaluations:
        if method == "bisection":
            t = 0.5 * (ta + tb)
        else:
            t = tb - fb * (tb - ta) / (fb - fa)
            if not ta < t < tb:
                t = 0.5 * (ta + tb)
        f = depth_at(t) - target
        evals += 1
        if abs(f) <= 0.5 * tol:
            return ContactTime(t, f + target, evals)
        if f > 0:                            # still apart: contact comes later
            ta, fa = t, f
            if side == -1 and method == "interpolation":
                fb *= 0.5
            side = -1
        else:
            tb, fb = t, f
            if side == 1 and method == "interpolation":
                fa *= 0.5
            side = 1
    raise RuntimeError(f"contact_time: no time within tolerance after {evals} evaluations "
                       f"(bracket [{ta}, {tb}])")


def interpolate_poses(state0, state1, s: float, out) -> None:
    """Body poses a fraction ``s`` ∈ [0, 1] of the way from state0 to state1 into ``out`` (in place):
    positions linearly, orientations by normalized linear interpolation along the shorter arc."""
    out.body_pos[...] = (1.0 - s) * state0.body_pos + s * state1.body_pos
    q0, q1 = state0.body_quat, state1.body_quat
    sign = np.where(np.einsum("ij,ij->i", q0, q1) < 0.0, -1.0, 1.0)[:, None]
    q = (1.0 - s) * q0 + s * sign * q1
    out.body_quat[...] = q / np.linalg.norm(q, axis=1)[:, None]
