"""Scenes with closed-form answers, for the physical-law tests every method must pass.

* :func:`rod_pendulum` — a uniform rod on a hinge; its period is :func:`rod_pendulum_period` (the physical
  pendulum's complete elliptic integral), exact for any amplitude.
* The double pendulum with its reduced-coordinate reference is
  :func:`impulsim.experiments.bender.double_pendulum` and :func:`~impulsim.experiments.bender.double_pendulum_reference`.
"""
from __future__ import annotations

import numpy as np
from scipy.special import ellipk

import impulsim as ims

ROD_SIDE = 0.05   # rod cross-section [m]


def rod_pendulum(amplitude_rad, length=1.0, density=1000.0):
    """A uniform rod hanging from a hinge on the x axis at the origin, released at ``amplitude_rad``."""
    b = ims.ModelBuilder("rod pendulum")
    c, s = np.cos(amplitude_rad), np.sin(amplitude_rad)
    b.add_body("rod", shapes=[ims.Box(size=(ROD_SIDE, ROD_SIDE, length))], density=density,
               position=(0.0, 0.5 * length * s, -0.5 * length * c),
               orientation=(np.cos(amplitude_rad / 2), np.sin(amplitude_rad / 2), 0.0, 0.0))
    b.add_hinge("pivot", "world", "rod", anchor=(0, 0, 0), axis=(1, 0, 0))
    return b.build()


def rod_pendulum_period(model, amplitude, length=1.0, g=9.81):
    """Period [s] of :func:`rod_pendulum` released at rest from ``amplitude`` [rad]:
    T = 4 √(I_p / (m g d)) K(sin²(θ₀/2)), I_p the inertia about the pivot, d = length/2, K the complete
    elliptic integral of the first kind (parameter m)."""
    k = model.body("rod")
    m = model.body_mass[k]
    d = 0.5 * length
    i_pivot = model.body_inertia[k, 0] + m * d * d     # about the hinge axis x
    return 4.0 * np.sqrt(i_pivot / (m * g * d)) * ellipk(np.sin(amplitude / 2) ** 2)
