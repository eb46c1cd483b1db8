"""Physical diagnostics of mass-point states and trajectories: energies, momentum, centre of mass, links.

All functions accept one state's body arrays (shape [n_bodies, 3]) or a trajectory's (shape
[n_steps, n_bodies, 3]); fixed points (static bodies) carry no energy or momentum (their mass is
irrelevant, §2). Potential energy is −Σ m_i g·P_i, zero at the origin's height, as in the report
(E_kin + E_pot = 0 at t = 0 for the pendulums released at z = 0). The link functions take the
:class:`~impulsim.methods.masspoint.system.PointSystem` (``method.system`` or ``point_system(model, state)``).
"""
from __future__ import annotations

import numpy as np

from impulsim.methods.masspoint.kernels import THREAD


def masses(model) -> np.ndarray:
    """m_i [kg] of the point masses, 0 for every other body, shape [n_bodies]."""
    return np.where(model.body_point > 0, model.body_mass, 0.0)


def kinetic_energy(model, vel) -> np.ndarray:
    """Σ ½ m_i |V_i|² [J]."""
    return 0.5 * np.einsum("i,...ij,...ij->...", masses(model), vel, vel)


def potential_energy(model, pos) -> np.ndarray:
    """−Σ m_i g·P_i [J] (gravity only; the model has no springs)."""
    return -np.einsum("i,...ij,j->...", masses(model), pos, model.gravity)


def total_energy(model, pos, vel) -> np.ndarray:
    """E_kin + E_pot [J]."""
    return kinetic_energy(model, vel) + potential_energy(model, pos)


def linear_momentum(model, vel) -> np.ndarray:
    """Σ m_i V_i [kg m/s], world frame."""
    return np.einsum("i,...ij->...j", masses(model), vel)


def centre_of_mass(model, pos) -> np.ndarray:
    """Σ m_i P_i / Σ m_i over the point masses [m], world frame."""
    m = masses(model)
    return np.einsum("i,...ij->...j", m, pos) / m.sum()


def link_lengths(system, pos) -> np.ndarray:
    """|P_j − P_i| of every constraint [m] from body positions, shape [..., n_constraints]."""
    p = system.positions(pos)
    return np.linalg.norm(p[..., system.con_j, :] - p[..., system.con_i, :], axis=-1)


def link_errors(system, pos) -> np.ndarray:
    """Violation of every constraint [m]: |len − d| for links, max(len − d, 0) for threads."""
    err = link_lengths(system, pos) - system.con_length
    return np.where(system.con_kind == THREAD, np.maximum(err, 0.0), np.abs(err))
