"""Joint limits as one-dimensional contacts (Bender 5.4.3, Holck ch. 4).

A limit keeps a joint coordinate q (hinge angle [rad] or slider position [m], measured as
:mod:`impulsim.dynamics.coordinates` measures it) within [lower, upper]. At a bound it acts like a contact
whose normal is the joint axis: an angular impulse ±p x on the two bodies for an angle, a linear impulse
±p x at B's anchor for a position. With side s = +1 at the lower and −1 at the upper bound, the
"normal speed" is u = s q̇ and the effective inverse mass along x is

    k = xᵀ (I_a⁻¹ + I_b⁻¹) x                                  (angle)
    k = 1/m_a + 1/m_b + (r_a × x)ᵀ I_a⁻¹ (r_a × x) + (r_b × x)ᵀ I_b⁻¹ (r_b × x)   (position)

so an impulse p along the limit changes u by k p. Accumulated impulses stay ≥ 0 (a stop pushes, never pulls).

The three phases of the impulse step:

* **collision** (t0): a limit at its bound (within ``tol``), or one that its present rate would carry past
  the bound within this step (q + q̇ h beyond it), approaching faster than ``eps_rc`` gets Newton's law
  u' = −e u, on the velocities of t0 (so a stop hit during a step bounces up to one step early, by at most
  |q̇| h before its bound);
* **position** (predicted t0+h): any limit whose predicted coordinate passes its bound gets the impulse that
  puts it on the bound (the limit "arrives" in this step);
* **velocity** (t0+h): a limit resting at t0 gets u ≥ 0; a limit that arrived in this step is resolved as
  a collision at t0+h with the speed at which it approached, so the position correction does not eat the
  impact speed: with e = 1 the speed is kept, with e = 0.5 halved. The approach speed is the coordinate's
  rate measured at the start of the position phase (after the collisions at t0, before any position
  impulse), u0 = s q̇(t0). It is not estimated from the position impulse as u − k p: k is the stop's
  inverse mass between its two bodies alone, and where other joints share the load (any chain) that estimate
  was off by a factor of order one, so an elastic stop handed back more speed than it received and a tree
  of limited joints gained energy at every bounce until it flew apart within 0.1–0.7 s.
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.vec import KERNEL
from impulsim.contact import groups as G
from impulsim.dynamics.coordinates import coordinate_value
from impulsim.dynamics.groups import motion_of
from impulsim.dynamics.integrate import predict_body
from impulsim.kernel import njit
from impulsim.math.vec import add, cross, dot, matvec_at, q4, qrot, scale, sub, v3

NONE, COLLISION, RESTING, ARRIVED = 0, 1, 2, 3
"""Phase of a limit in the current step."""


class LimitStage:
    """The joint limits of one model inside an impulse step (see the module docstring)."""

    def __init__(self, model, tol: float, eps_rc: float, eps_v: float):
        self.model = model
        self.tol, self.eps_rc, self.eps_v = float(tol), float(eps_rc), float(eps_v)
        n = model.n_limits
        self.side = np.zeros(n)
        self.phase = np.zeros(n, np.int64)
        self.target = np.zeros(n)
        self.lam = np.zeros(n)
        self.lam_pos = np.zeros(n)
        self.rate0 = np.zeros(n)
        self.x = np.zeros((n, 3))
        self.ra = np.zeros((n, 3))
        self.rb = np.zeros((n, 3))
        self.k = np.zeros(n)
        self.n_collisions = 0

    def _geometry(self, state, Iinv):
        m = self.model
        limit_geometry(m.limit_joint, m.limit_coord, m.joint_body_a, m.joint_body_b, m.joint_anchor_b,
                       m.joint_axis_a, state.body_pos, state.body_quat, m.body_inv_mass, Iinv,
                       self.x, self.ra, self.rb, self.k)

    def _args(self):
        return G.limits_of(self.model)

    def begin(self, state, Iinv, h) -> int:
        """Geometry at t0 and the classification for a step of h [s]; returns the number of colliding limits."""
        self._geometry(state, Iinv)
        self.n_collisions = classify_limits(self._args(), self.model.limit_restitution, motion_of(state), self.tol,
                                            self.eps_rc, self.eps_v, h, self.side, self.phase, self.target)
        self.lam[:] = 0.0
        return self.n_collisions

    def collision_sweep(self, state, Iinv) -> float:
        """One pass of Newton impulses over the colliding limits; returns the largest speed error."""
        return velocity_pass(self._args(), COLLISION, G.limit_geometry_of(self), self.side, self.phase, self.target,
                             self.lam, self.model.body_inv_mass, Iinv, motion_of(state))

    def begin_positions(self, state):
        """Before the position phase: no position impulse yet, and each coordinate's rate now (the approach
        speed of a limit that arrives in this step)."""
        self.lam_pos[:] = 0.0
        coordinates(self._args(), True, motion_of(state), self.rate0)

    def position_sweep(self, bodies, pred, free, h, eps_d):
        """One pass of position impulses (``bodies``, ``pred`` the impulse method's groups, ``free`` what a
        prediction needs); returns (largest violation at t0+h, largest free motion of an impulse applied)."""
        return position_pass(self._args(), G.limit_geometry_of(self), self.side, self.phase, self.lam_pos, bodies,
                             pred, free, h, eps_d)

    def begin_velocities(self, state, Iinv):
        """Geometry at t0+h; velocity targets of the resting and arriving limits."""
        self._geometry(state, Iinv)
        velocity_targets(self.model.limit_restitution, self.side, self.phase, self.rate0, self.eps_rc, self.target)
        self.lam[:] = 0.0

    def velocity_sweep(self, state, Iinv) -> float:
        """One pass over the resting and arriving limits at t0+h; returns the largest speed error."""
        return velocity_pass(self._args(), RESTING, G.limit_geometry_of(self), self.side, self.phase, self.target,
                             self.lam, self.model.body_inv_mass, Iinv, motion_of(state))


@njit(**KERNEL)
def _body_term(inv_mass, Iinv, k, r, x, angular):
    """x's share of the effective inverse mass of body k: xᵀI⁻¹x (angle) or 1/m + (r×x)ᵀI⁻¹(r×x)."""
    w = x if angular else cross(r, x)
    return (0.0 if angular else inv_mass) + dot(w, matvec_at(Iinv, k, w))


@njit(**KERNEL)
def limit_geometry(limit_joint, limit_coord, joint_body_a, joint_body_b, joint_anchor_b, joint_axis_a,
                   body_pos, body_quat, body_inv_mass, Iinv,
                   # outputs
                   x_out, ra_out, rb_out, k_out):
    """World axis x, impulse arms r_a, r_b (from the centres of mass to B's anchor [m]) and k per limit
    (in tuples: no small arrays allocated)."""
    for i in range(limit_joint.shape[0]):
        j = limit_joint[i]
        a = joint_body_a[j]
        b = joint_body_b[j]
        x = qrot(q4(body_quat[a]), v3(joint_axis_a[j]))
        p = add(v3(body_pos[b]), qrot(q4(body_quat[b]), v3(joint_anchor_b[j])))
        ra = sub(p, v3(body_pos[a]))
        rb = sub(p, v3(body_pos[b]))
        angular = limit_coord[i] == 0
        for c in range(3):
            x_out[i, c] = x[c]
            ra_out[i, c] = ra[c]
            rb_out[i, c] = rb[c]
        k_out[i] = _body_term(body_inv_mass[a], Iinv, a, ra, x, angular) + \
            _body_term(body_inv_mass[b], Iinv, b, rb, x, angular)


@njit(**KERNEL)
def coordinate_of(args, i, rate, body_pos, body_quat, body_vel, body_omega):
    """Coordinate (or its rate) of limit i's joint."""
    limit_joint, limit_coord = args[0], args[1]
    return coordinate_value(limit_coord[i], rate, limit_joint[i], args[4], args[5], args[6], args[7], args[8],
                            args[9], args[10], body_pos, body_quat, body_vel, body_omega)


@njit(**KERNEL)
def classify_limits(args, limit_restitution, motion, tol, eps_rc, eps_v, h,
                    # outputs
                    side, phase, target):
    """Side, phase and Newton target u' = −e u of each limit at t0 for a step of h [s] (``args`` the
    ``limits`` group and ``motion`` the state's, see contact.groups and dynamics.groups): touching its bound,
    or carried past it within the step by its present rate (a collision then, when fast enough; a slower one
    is left to the position phase). Returns the number of collisions."""
    limit_joint, limit_lower, limit_upper = args[0], args[2], args[3]
    body_pos, body_quat, body_vel, body_omega = motion
    n_coll = 0
    for i in range(limit_joint.shape[0]):
        q = coordinate_of(args, i, False, body_pos, body_quat, body_vel, body_omega)
        rate = coordinate_of(args, i, True, body_pos, body_quat, body_vel, body_omega)
        side[i] = 0.0
        phase[i] = NONE
        target[i] = 0.0
        touching = True
        if q - limit_lower[i] <= tol:
            side[i] = 1.0
        elif limit_upper[i] - q <= tol:
            side[i] = -1.0
        elif q + rate * h < limit_lower[i]:
            side[i], touching = 1.0, False
        elif q + rate * h > limit_upper[i]:
            side[i], touching = -1.0, False
        else:
            continue
        u = side[i] * rate
        if u < -eps_rc:
            phase[i] = COLLISION
            target[i] = -limit_restitution[i] * u
            n_coll += 1
        elif not touching:
            side[i] = 0.0              # a slow approach: the position phase takes it
        elif u <= eps_v:
            phase[i] = RESTING
    return n_coll


@njit(**KERNEL)
def _add_at(out, k, v, s):
    """out[k] += s v for a vector tuple v."""
    out[k, 0] += s * v[0]
    out[k, 1] += s * v[1]
    out[k, 2] += s * v[2]


@njit(**KERNEL)
def apply_impulse(i, dp, side, x, ra, rb, angular, a, b, body_inv_mass, Iinv, body_vel, body_omega):
    """Impulse s·dp along x: + on B, − on A (angular for an angle, at B's anchor for a position)."""
    p = scale(v3(x[i]), side[i] * dp)
    if angular:
        _add_at(body_omega, b, matvec_at(Iinv, b, p), 1.0)
        _add_at(body_omega, a, matvec_at(Iinv, a, p), -1.0)
    else:
        _add_at(body_vel, b, p, body_inv_mass[b])
        _add_at(body_vel, a, p, -body_inv_mass[a])
        _add_at(body_omega, b, matvec_at(Iinv, b, cross(v3(rb[i]), p)), 1.0)
        _add_at(body_omega, a, matvec_at(Iinv, a, cross(v3(ra[i]), p)), -1.0)


@njit(**KERNEL)
def velocity_pass(args, which, geom, side, phase, target, lam, body_inv_mass, Iinv, motion):
    """Impulses that bring u = s q̇ to at least its target, with the accumulated impulse kept ≥ 0.
    ``which`` = COLLISION: the colliding limits; RESTING: the resting and arriving ones. ``args`` the
    ``limits`` group, ``geom`` the limits' geometry (contact.groups), ``motion`` the state's
    (dynamics.groups; its velocities are changed in place)."""
    x, ra, rb, k = geom
    body_pos, body_quat, body_vel, body_omega = motion
    worst = 0.0
    for i in range(side.shape[0]):
        ph = phase[i]
        if not ((which == COLLISION and ph == COLLISION) or (which == RESTING and (ph == RESTING or ph == ARRIVED))):
            continue
        if k[i] <= 0.0:
            continue
        u = side[i] * coordinate_of(args, i, True, body_pos, body_quat, body_vel, body_omega)
        new = max(lam[i] + (target[i] - u) / k[i], 0.0)
        dp = new - lam[i]
        if dp != 0.0:
            j = args[0][i]
            apply_impulse(i, dp, side, x, ra, rb, args[1][i] == 0, args[4][j], args[5][j], body_inv_mass, Iinv,
                   body_vel, body_omega)
            lam[i] = new
        worst = max(worst, target[i] - u if new > 0.0 else 0.0)
    return worst


@njit(**KERNEL)
def position_pass(args, geom, side, phase, lam, bodies, pred, free, h, eps_d):
    """Impulses at t0 that keep each predicted coordinate at t0+h within its bounds: Δq ≈ k p h.
    A limit without accumulated impulse picks the side it would pass; one that passes while free of
    contact at t0 is marked ARRIVED. ``args`` the ``limits`` group, ``geom`` the limits' geometry
    (contact.groups); ``bodies``, ``pred`` the impulse method's groups; ``free`` what a prediction needs.
    Returns (largest violation at t0+h [m or rad], largest free motion k·|Δp|·h of an impulse applied: how far
    it would move its coordinate if nothing else held the two bodies, about as far as it may open the joints;
    the coupled correction's divergence test allows for it)."""
    x, ra, rb, k = geom
    body_vel, body_omega, Iinv, body_inv_mass = bodies[2], bodies[3], bodies[6], bodies[9]
    dirty = pred[5]
    worst = 0.0
    pushed = 0.0
    for i in range(side.shape[0]):
        acting, d = predicted_distance(i, args, side, phase, lam, bodies, pred, free, h, eps_d)
        if not acting:
            continue
        worst = max(worst, -d)
        if k[i] <= 0.0:
            continue
        new = max(lam[i] - d / (k[i] * h), 0.0)
        dp = new - lam[i]
        if dp != 0.0:
            a, b = args[4][args[0][i]], args[5][args[0][i]]
            apply_impulse(i, dp, side, x, ra, rb, args[1][i] == 0, a, b, body_inv_mass, Iinv, body_vel, body_omega)
            lam[i] = new
            dirty[a] = 1
            dirty[b] = 1
            pushed = max(pushed, k[i] * abs(dp) * h)
    return worst, pushed


@njit(**KERNEL)
def predicted_distance(i, args, side, phase, lam, bodies, pred, free, h, eps_d):
    """(acting, d) of limit i in a position pass: its two bodies predicted over h [s] where dirty, then its
    coordinate's signed distance d from the bound it acts at (< 0: passed by |d| [m or rad]). A limit without
    accumulated impulse ``lam`` acts only where its predicted coordinate passes a bound by more than eps_d;
    it then takes that bound's side, and is marked ARRIVED when it was free of its stops at t0."""
    body_pos, body_quat, body_vel, body_omega = bodies[0], bodies[1], bodies[2], bodies[3]
    pred_pos, pred_quat, dirty = pred[0], pred[1], pred[5]
    lower, upper = args[2], args[3]
    j = args[0][i]
    for body in (args[4][j], args[5][j]):
        if dirty[body]:
            predict_body(body, body_pos, body_quat, body_vel, body_omega, free[0], free[1], free[2], free[3],
                         free[4], free[5], h, free[6], pred_pos, pred_quat)
            dirty[body] = 0
    q = coordinate_of(args, i, False, pred_pos, pred_quat, body_vel, body_omega)
    if lam[i] == 0.0:
        if q < lower[i] - eps_d:
            side[i] = 1.0
        elif q > upper[i] + eps_d:
            side[i] = -1.0
        else:
            return False, 0.0
        if phase[i] == NONE:
            phase[i] = ARRIVED
    bound = lower[i] if side[i] > 0.0 else upper[i]
    return True, side[i] * (q - bound)


@njit(**KERNEL)
def coordinates(args, rate, motion, out):
    """Each limit's coordinate q [rad or m] (``rate`` False) or its rate q̇ [rad/s or m/s] (True) in
    ``motion`` (the state's, dynamics.groups), into ``out``."""
    body_pos, body_quat, body_vel, body_omega = motion
    for i in range(out.shape[0]):
        out[i] = coordinate_of(args, i, rate, body_pos, body_quat, body_vel, body_omega)


def limit_coordinates(model, state) -> np.ndarray:
    """Each joint limit's coordinate q [rad or m] in ``state``, as the limits measure it."""
    out = np.zeros(model.n_limits)
    coordinates(G.limits_of(model), False, motion_of(state), out)
    return out


@njit(**KERNEL)
def velocity_targets(limit_restitution, side, phase, rate0, eps_rc,
                     # outputs
                     target):
    """Targets at t0+h: 0 for resting limits; for arriving ones Newton's law on the approach speed
    u0 = s q̇ at the start of the position phase (``rate0``, see the module docstring)."""
    for i in range(side.shape[0]):
        target[i] = 0.0
        if phase[i] != ARRIVED:
            continue
        u0 = side[i] * rate0[i]
        if u0 < -eps_rc:
            target[i] = -limit_restitution[i] * u0
