"""Contact scenes with analytic answers, shared by the tests, the benchmark and the example."""
from __future__ import annotations

import numpy as np

import impulsim as ims
from impulsim.geometry import HalfSpace
from impulsim.math import quat_from_axis_angle, quat_rotate

G = 9.81


def incline_box(slope_deg=15.0, mu=0.5, speed=2.0, size=(0.2, 0.2, 0.1), mass=1.0):
    """A box resting on a plane inclined by ``slope_deg`` about y, sliding down at ``speed`` [m/s].

    The plane has μ = 0 and the default rule adds coefficients, so the contact's μ is the box's. Returns
    (model, state, downhill unit vector [world]).
    """
    a = np.radians(slope_deg)
    q = quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), a)
    normal = quat_rotate(q, np.array([0.0, 0.0, 1.0]))
    downhill = np.array([np.cos(a), 0.0, -np.sin(a)])
    b = ims.ModelBuilder("incline box")
    b.add_material("plane", static_friction=0.0, dynamic_friction=0.0, restitution=0.0)
    b.add_material("box", static_friction=mu, dynamic_friction=mu, restitution=0.0)
    b.add_body("plane", shapes=[HalfSpace(material="plane")], static=True, orientation=q)
    b.add_body("box", shapes=[ims.Box(size=size, material="box")], mass=mass, position=0.5 * size[2] * normal,
               orientation=q, velocity=speed * downhill)
    model, state = b.build()
    return model, state, downhill


def stopping_distance(slope_deg=15.0, mu=0.5, speed=2.0, g=G):
    """Coulomb: constant deceleration g (μ cos α − sin α), so d = v0² / (2 g (μ cos α − sin α)) [m]."""
    a = np.radians(slope_deg)
    return speed ** 2 / (2.0 * g * (mu * np.cos(a) - np.sin(a)))


def bouncing_ball(drop=1.0, restitution=0.5, radius=0.1, mass=1.0):
    """A frictionless ball dropped from ``drop`` [m] (lowest point above the ground) onto a static plane
    whose restitution is 1, so that the product rule gives the ball's ``restitution``."""
    b = ims.ModelBuilder("bouncing ball")
    b.add_material("ground", restitution=1.0, static_friction=0.0, dynamic_friction=0.0)
    b.add_material("ball", restitution=restitution, static_friction=0.0, dynamic_friction=0.0)
    b.add_body("ground", shapes=[HalfSpace(material="ground")], static=True)
    b.add_body("ball", shapes=[ims.Sphere(radius=radius, material="ball")], mass=mass,
               position=(0.0, 0.0, drop + radius))
    return b.build()


def apex_heights(drop=1.0, restitution=0.5, n=3):
    """Newton's law reverses the impact speed times e, so h_k = e^{2k} h_0, k = 1 … n [m]."""
    return drop * restitution ** (2 * np.arange(1, n + 1))


def measured_apexes(heights):
    """Local maxima of a height series (strictly rising before, not rising after)."""
    z = np.asarray(heights)
    idx = np.nonzero((z[1:-1] > z[:-2]) & (z[1:-1] >= z[2:]))[0] + 1
    return z[idx]


def runner_sled(velocity, mass=10.0, length=1.0, width=0.1, height=0.05):
    """A flat box (a sled on its runners: four corner contacts) on frictionless ice, its long axis along x,
    moving at ``velocity`` [m/s, world]. Give the sled a RunnerFriction through the method's ``runners``."""
    b = ims.ModelBuilder("runner sled")
    b.add_material("ice", static_friction=0.0, dynamic_friction=0.0, restitution=0.0)
    b.add_body("ice", shapes=[HalfSpace(material="ice")], static=True)
    b.add_body("sled", shapes=[ims.Box(size=(length, width, height), material="ice")], mass=mass,
               position=(0.0, 0.0, 0.5 * height), velocity=velocity)
    return b.build()


def runner_puck(velocity, mass=10.0, radius=0.05, inertia=1e6):
    """One contact point: a ball of ``mass`` whose inertia [kg m²] is so large that friction does not
    turn it, sliding on frictionless ice at ``velocity``. Its single contact carries the whole weight, so
    a load-dependent law sees λ_N = m g exactly (a box's four corners share the load indeterminately)."""
    b = ims.ModelBuilder("runner puck")
    b.add_material("ice", static_friction=0.0, dynamic_friction=0.0, restitution=0.0)
    b.add_body("ice", shapes=[HalfSpace(material="ice")], static=True)
    b.add_body("sled", shapes=[ims.Sphere(radius=radius, material="ice")], mass=mass,
               inertia=(inertia, inertia, inertia), position=(0.0, 0.0, radius), velocity=velocity)
    return b.build()
