"""Wagner's controllers and force fields (Wagner 2001, 6.2.4.1 and 6.2.4.3) as force elements.

Each element adds world forces [N] at the centres of mass and torques about them [N m] for a given state:
``element.add_loads(model, t, pos, quat, vel, omega, force, torque)``. The Lagrange method evaluates them
at every stage of its integrator (``LagrangeMethod(model, forces=[...])``). Any other method can use them
through :class:`ForceElementsHook`, which holds them over each step like the model's own loads.

Controllers: :class:`VectorForce` (a constant force at a body point), :class:`SpringForce`
(a spring-damper between two points), :class:`TrajectoryForce` (a follower point pulled towards a leader
point). Fields: :class:`GravityField`, :class:`DampingField` (Wagner's FrictionForceField),
:class:`RadialField`. Points are given like the extra constraints' (body and user-frame anchor).
"""
from __future__ import annotations

import numpy as np

from impulsim.errors import ModelError
from impulsim.math import quat_rotate
from impulsim.methods.lagrange.constraints import body_index, principal_anchor


def _vec(v, label, what):
    a = np.asarray(v, float).reshape(-1)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ModelError(f"{label}: {what} must be three finite numbers, got {v!r}")
    return a


def _nonnegative(v, label, what):
    if not (np.isfinite(v) and v >= 0):
        raise ModelError(f"{label}: {what} must be non-negative, got {v!r}")
    return float(v)


class _Point:
    """A point fixed in a body (or in the world): its world position and velocity at a state."""

    def __init__(self, model, body, anchor, label):
        self.k = body_index(model, body, label)
        self.local = principal_anchor(model, self.k, anchor)

    def at(self, pos, quat, vel, omega):
        r = quat_rotate(quat[self.k], self.local)
        return pos[self.k] + r, vel[self.k] + np.cross(omega[self.k], r), r


def _push(model, k, f, r, force, torque):
    """Add force f [N] acting at offset r [m] from body k's centre of mass (nothing on infinite mass)."""
    if model.body_inv_mass[k] == 0.0:
        return
    force[k] += f
    torque[k] += np.cross(r, f)


class ForceElement:
    """Base class; subclasses resolve their bodies in ``bind(model)`` and add loads in ``add_loads``."""

    name = "force"

    def bind(self, model) -> None:
        """Resolve body names against ``model`` (raises ModelError naming the element)."""

    def add_loads(self, model, t, pos, quat, vel, omega, force, torque) -> None:
        raise NotImplementedError


class VectorForce(ForceElement):
    """A constant world force ``force`` [N] at ``anchor`` (user frame) of ``body``."""

    def __init__(self, name, body, force, anchor=None):
        self.name, self.body, self.anchor = name, body, anchor
        self.force = _vec(force, f'force "{name}"', "force")

    def bind(self, model):
        self.p = _Point(model, self.body, self.anchor, f'force "{self.name}"')

    def add_loads(self, model, t, pos, quat, vel, omega, force, torque):
        _, _, r = self.p.at(pos, quat, vel, omega)
        _push(model, self.p.k, self.force, r, force, torque)


class SpringForce(ForceElement):
    """Spring-damper between point a and point b: the force on a is (k (|d| − d0) + c ḋ) d̂, d = b − a,
    ḋ = (Ṗ_b − Ṗ_a)·d̂; the opposite force acts on b.

    Wagner prints F = α(|r| − d0) r − β|v| r; the unit direction and the signed rate used here are what
    his description (a restoring force proportional to the stretch, damped by the relative speed along
    the spring) asks for.
    """

    def __init__(self, name, body_a, body_b, stiffness, damping=0.0, rest_length=0.0, anchor_a=None,
                 anchor_b=None):
        label = f'force "{name}"'
        self.name, self.body_a, self.body_b, self.anchor_a, self.anchor_b = name, body_a, body_b, anchor_a, anchor_b
        self.k = _nonnegative(stiffness, label, "stiffness")
        self.c = _nonnegative(damping, label, "damping")
        self.rest = _nonnegative(rest_length, label, "rest_length")

    def bind(self, model):
        label = f'force "{self.name}"'
        self.a = _Point(model, self.body_a, self.anchor_a, label)
        self.b = _Point(model, self.body_b, self.anchor_b, label)

    def add_loads(self, model, t, pos, quat, vel, omega, force, torque):
        pa, va, ra = self.a.at(pos, quat, vel, omega)
        pb, vb, rb = self.b.at(pos, quat, vel, omega)
        d = pb - pa
        length = float(np.linalg.norm(d))
        if length < 1e-12:
            return
        n = d / length
        f = (self.k * (length - self.rest) + self.c * float(n @ (vb - va))) * n
        _push(model, self.a.k, f, ra, force, torque)
        _push(model, self.b.k, -f, rb, force, torque)


class TrajectoryForce(ForceElement):
    """Trajectory control (Wagner 6.2.4.1 after Lamouret et al.): F = α m₂ (P₁ − P₂) − β √(2α) m₂ Ṗ₂ on the
    follower point P₂ (mass m₂ of its body), so light and heavy followers return alike; with
    ``reaction=True`` −F acts on the leader point P₁ as well. α [1/s²], β dimensionless (β = 1: damping
    ratio 1/√2)."""

    def __init__(self, name, leader, follower, alpha, beta=1.0, leader_anchor=None, follower_anchor=None,
                 reaction=True):
        label = f'force "{name}"'
        self.name, self.leader, self.follower = name, leader, follower
        self.leader_anchor, self.follower_anchor, self.reaction = leader_anchor, follower_anchor, bool(reaction)
        self.alpha = _nonnegative(alpha, label, "alpha")
        self.beta = _nonnegative(beta, label, "beta")

    def bind(self, model):
        label = f'force "{self.name}"'
        self.p1 = _Point(model, self.leader, self.leader_anchor, label)
        self.p2 = _Point(model, self.follower, self.follower_anchor, label)
        if model.body_inv_mass[self.p2.k] == 0.0:
            raise ModelError(f"{label}: the follower must be a movable body")

    def add_loads(self, model, t, pos, quat, vel, omega, force, torque):
        p1, _, r1 = self.p1.at(pos, quat, vel, omega)
        p2, v2, r2 = self.p2.at(pos, quat, vel, omega)
        m2 = model.body_mass[self.p2.k]
        f = self.alpha * m2 * (p1 - p2) - self.beta * np.sqrt(2.0 * self.alpha) * m2 * v2
        _push(model, self.p2.k, f, r2, force, torque)
        if self.reaction:
            _push(model, self.p1.k, -f, r1, force, torque)


class GravityField(ForceElement):
    """F = m g on every movable body (``g`` [m/s²], world; default 9.81 m/s² downwards)."""

    def __init__(self, name="gravity", g=(0.0, 0.0, -9.81)):
        self.name = name
        self.g = _vec(g, f'force "{name}"', "g")

    def add_loads(self, model, t, pos, quat, vel, omega, force, torque):
        movable = model.body_inv_mass > 0
        force[movable] += model.body_mass[movable, None] * self.g


class DampingField(ForceElement):
    """Wagner's FrictionForceField: F = −k m v on every movable body [k in 1/s], and optionally
    τ = −k_rot I ω (``angular`` [1/s]) to let spinning die out too."""

    def __init__(self, name="damping", k=1.0, angular=0.0):
        self.name = name
        self.k = _nonnegative(k, f'force "{name}"', "k")
        self.k_rot = _nonnegative(angular, f'force "{name}"', "angular")

    def add_loads(self, model, t, pos, quat, vel, omega, force, torque):
        movable = np.nonzero(model.body_inv_mass > 0)[0]
        force[movable] -= self.k * model.body_mass[movable, None] * vel[movable]
        if self.k_rot:
            for k in movable:
                w_local = quat_rotate(np.array([quat[k, 0], -quat[k, 1], -quat[k, 2], -quat[k, 3]]), omega[k])
                torque[k] -= self.k_rot * quat_rotate(quat[k], model.body_inertia[k] * w_local)


class RadialField(ForceElement):
    """F = k (r − q)/|r − q|² at the centre r of every movable body (or of ``bodies``): k > 0 pushes away
    from the centre q [m], k < 0 pulls towards it [k in N m]."""

    def __init__(self, name, centre, k, bodies=None):
        self.name, self.bodies = name, bodies
        self.q = _vec(centre, f'force "{name}"', "centre")
        if not np.isfinite(k):
            raise ModelError(f'force "{name}": k must be finite, got {k!r}')
        self.k = float(k)

    def bind(self, model):
        if self.bodies is None:
            self.idx = np.nonzero(model.body_inv_mass > 0)[0]
        else:
            self.idx = np.array([body_index(model, b, f'force "{self.name}"') for b in self.bodies], np.int64)

    def add_loads(self, model, t, pos, quat, vel, omega, force, torque):
        for k in self.idx:
            d = pos[k] - self.q
            r2 = float(d @ d)
            if r2 > 1e-24 and model.body_inv_mass[k] > 0:
                force[k] += self.k * d / r2


def bind_all(model, elements) -> list:
    """Resolve every element against the model; returns them as a list."""
    out = list(elements)
    for e in out:
        if not isinstance(e, ForceElement):
            raise ModelError(f"force elements must be ForceElement objects, got {type(e).__name__}")
        e.bind(model)
    return out


def element_loads(model, elements, t, pos, quat, vel, omega, force, torque) -> None:
    """Set force/torque [N, N m] (world, per body) to the sum of the elements' loads at this state."""
    force[...] = 0.0
    torque[...] = 0.0
    for e in elements:
        e.add_loads(model, t, pos, quat, vel, omega, force, torque)


class ForceElementsHook:
    """Makes force elements act in any method through ``State.body_force``/``body_torque``.

    Append it to ``Simulation.before_step``: before every step it replaces the loads it added for the
    previous step by the elements' loads at the current state, so they are held over the step as the
    model's springs and motors are (first-order in h). Forces the user sets on the state are kept.
    """

    def __init__(self, model, elements):
        self.model = model
        self.elements = bind_all(model, elements)
        self._force = np.zeros((model.n_bodies, 3))
        self._torque = np.zeros((model.n_bodies, 3))
        self._added_force = np.zeros_like(self._force)
        self._added_torque = np.zeros_like(self._torque)

    def __call__(self, sim) -> None:
        s = sim.state
        element_loads(self.model, self.elements, s.t, s.body_pos, s.body_quat, s.body_vel, s.body_omega,
                      self._force, self._torque)
        s.body_force += self._force - self._added_force
        s.body_torque += self._torque - self._added_torque
        self._added_force[...] = self._force
        self._added_torque[...] = self._torque
