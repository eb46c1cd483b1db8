"""Patches that cannot need a correction are passed over in the later sweeps of a velocity phase.

A sweep of the resting contacts visits every patch, yet near convergence most of them are well inside the
tolerance and stay there: in the funnel's pile, after eight of some twenty velocity sweeps fewer than ten of
2600 patches are still above it. What can move a patch's error after a visit is bounded by how much its two
bodies' velocities changed since: at a point r from a body's centre the velocity changes by |Δv + Δω × r| ≤
|Δv| + |Δω| |r|, so the patch's error now is at most its error right after the visit plus Σ_bodies (|Δv| +
|Δω| r_max) (exact for velocity errors, which are linear in the velocities). A patch whose bound is below
``SKIP_FRACTION`` of the tolerance is passed over, and its bound stands in for its error in the sweep's
largest error, so a phase stops only when every patch is within the tolerance, seen or bounded. Whatever
changed the velocities (other contacts, joints, limits) is seen: the bound compares the velocities
themselves, not impulses.

The position sweeps pass over patches only on request (ContactOptions.skip_resolved_positions). A patch's
position error is measured on the bodies' predicted poses at t0+h, and a velocity change since the visit
moves a predicted point by h |Δv + Δω × r| to first order in the turn h|Δω| (the position exactly: the free
step is linear in v; the orientation not quite), so the bound is the error left plus h Σ_bodies (|Δv| +
|Δω| r_max). The errors below the tolerance that repeated visits would shrink further are what a resting
pile creeps by: the wall's drift before the impact rose from 0.67 to 1.1 mm with warm start, and from
0.056 to 0.14 mm without it, while its standing phase took 0.63 of the time (docs/contact_experiments.md).

The memory holds a mode (OFF: neither kept nor used, for the collision rounds and shock passes; KEEP: visits
counted; SKIP: also kept and used to pass over), the phase's patch visits, and per patch of the phase's
top-down order: its error right after its last visit (+inf: not visited in this phase), its two bodies, its
largest lever arm [m] and the bodies' velocities then.
"""
import math

import numpy as np

from impulsim.collision.vec import KERNEL
from impulsim.kernel import njit

SKIP_FRACTION = 0.5
"""A patch is passed over while its error bound stays below this fraction of the tolerance: the margin is for
the patches visited after it in the same sweep, whose impulses the phase's stop does not see again."""


OFF, KEEP, SKIP = 0, 1, 2


def make_memo(capacity):
    """Memory for ``capacity`` patches: ((mode, visits) [2], error [P], bodies [P, 2], reach [P],
    velocities [P, 12], limit [1]); mode OFF. A patch is passed over while its bound stays at or below the
    limit (SKIP_FRACTION of the tolerance of the sweeps it serves; memo_set_limit)."""
    c = max(1, int(capacity))
    return (np.zeros(2, np.int64), np.full(c, np.inf), np.zeros((c, 2), np.int64), np.zeros(c),
            np.zeros((c, 12)), np.zeros(1))


@njit(**KERNEL)
def memo_reset(memo, n_patches, mode):
    """Forget every visit (a new phase: its geometry, targets and impulses are new) and set the mode."""
    flag = memo[0]
    flag[0] = mode
    flag[1] = 0
    err = memo[1]
    for p in range(n_patches):
        err[p] = np.inf


@njit(**KERNEL, forceinline=True)
def memo_set_limit(memo, tol):
    """Pass over patches whose bound stays within SKIP_FRACTION of ``tol`` (the sweeps' tolerance)."""
    memo[5][0] = SKIP_FRACTION * tol


@njit(**KERNEL, forceinline=True)
def memo_limit(memo):
    """The bound at or below which a patch is passed over."""
    return memo[5][0]


@njit(**KERNEL, forceinline=True)
def _change(vel, k, body_vel, body_omega, off, reach):
    """|Δv| + |Δω| reach of body k since the velocities kept at vel[off:off + 6]."""
    dv = 0.0
    dw = 0.0
    for i in range(3):
        a = body_vel[k, i] - vel[off + i]
        b = body_omega[k, i] - vel[off + 3 + i]
        dv += a * a
        dw += b * b
    return math.sqrt(dv) + math.sqrt(dw) * reach


@njit(**KERNEL, forceinline=True)
def memo_skips(memo):
    """Whether the memory is passing over patches (and so needs their errors after each visit)."""
    return memo[0][0] == SKIP


@njit(**KERNEL, forceinline=True)
def memo_bound(memo, p, body_vel, body_omega, lever):
    """Upper bound on patch p's error now: its error after its last visit plus ``lever`` times the velocity
    change its bodies can pass on at its points since (lever 1 for velocity errors [m/s]; h for position
    errors [m], see the module docstring); +inf if not visited in this phase or not passing over."""
    flag, err, bodies, reach, vel, _ = memo
    if flag[0] != SKIP:
        return np.inf
    e = err[p]
    if e == np.inf:
        return e
    v = vel[p]
    d = _change(v, bodies[p, 0], body_vel, body_omega, 0, reach[p]) + \
        _change(v, bodies[p, 1], body_vel, body_omega, 6, reach[p])
    return e + lever * d


@njit(**KERNEL, forceinline=True)
def memo_keep(memo, p, rows, idx, q, rest, r, err_now, body_vel, body_omega):
    """Count patch p's visit and, passing over, remember its error after the visit [m/s], its bodies, its
    largest lever arm and its bodies' velocities now."""
    flag = memo[0]
    if flag[0] == OFF:
        return
    flag[1] += 1
    if flag[0] == SKIP:
        _remember(memo, p, rows.body_a, rows.body_b, rows.ra, rows.rb, idx, q, rest, r, err_now, body_vel,
                  body_omega)


@njit(**KERNEL)
def _remember(memo, p, body_a, body_b, ra, rb, idx, q, rest, r, err_now, body_vel, body_omega):
    """memo_keep's record of patch p when passing over (a kernel of its own: memo_keep is inlined into every
    sweep, and this part only runs with passing over on)."""
    _, err, bodies, reach, vel, _ = memo
    c0 = idx[0]
    A = body_a[c0]
    B = body_b[c0]
    far = 0.0
    for i in range(q + r):
        c = idx[i] if i < q else rest[i - q]
        far = max(far, math.sqrt(ra[c, 0] ** 2 + ra[c, 1] ** 2 + ra[c, 2] ** 2),
                  math.sqrt(rb[c, 0] ** 2 + rb[c, 1] ** 2 + rb[c, 2] ** 2))
    err[p] = err_now
    bodies[p, 0] = A
    bodies[p, 1] = B
    reach[p] = far
    v = vel[p]
    for i in range(3):
        v[i] = body_vel[A, i]
        v[3 + i] = body_omega[A, i]
        v[6 + i] = body_vel[B, i]
        v[9 + i] = body_omega[B, i]
