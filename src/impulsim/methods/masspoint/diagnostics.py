"""Physical diagnostics of mass-point states and trajectories: energies, momentum, centre of mass.

All functions accept a single state's arrays (shape [n_points, 3]) or a trajectory's (shape
[n_steps, n_points, 3]); fixed points carry no energy or momentum (their mass is irrelevant, §2).
Potential energy is −Σ m_i g·P_i, zero at the origin's height, as in the report (E_kin + E_pot = 0 at t = 0
for the pendulums released at z = 0).
"""
from __future__ import annotations

import numpy as np

from impulsim.methods.masspoint.kinds import ConstraintKind


def _mass(model) -> np.ndarray:
    return np.where(model.movable, model.point_mass, 0.0)


def kinetic_energy(model, vel) -> np.ndarray:
    """Σ ½ m_i |V_i|² [J]."""
    return 0.5 * np.einsum("i,...ij,...ij->...", _mass(model), vel, vel)


def potential_energy(model, pos) -> np.ndarray:
    """−Σ m_i g·P_i [J] (gravity only; the model has no springs)."""
    return -np.einsum("i,...ij,j->...", _mass(model), pos, model.gravity)


def total_energy(model, pos, vel) -> np.ndarray:
    """E_kin + E_pot [J]."""
    return kinetic_energy(model, vel) + potential_energy(model, pos)


def linear_momentum(model, vel) -> np.ndarray:
    """Σ m_i V_i [kg m/s], world frame."""
    return np.einsum("i,...ij->...j", _mass(model), vel)


def centre_of_mass(model, pos) -> np.ndarray:
    """Σ m_i P_i / Σ m_i over the movable points [m], world frame."""
    m = _mass(model)
    return np.einsum("i,...ij->...j", m, pos) / m.sum()


def link_lengths(model, pos) -> np.ndarray:
    """|P_j − P_i| of every constraint [m], shape [..., n_constraints]."""
    return np.linalg.norm(pos[..., model.con_j, :] - pos[..., model.con_i, :], axis=-1)


def link_errors(model, pos) -> np.ndarray:
    """Violation of every constraint [m]: |len − d| for links, max(len − d, 0) for threads."""
    err = link_lengths(model, pos) - model.con_length
    thread = model.con_kind == ConstraintKind.THREAD
    return np.where(thread, np.maximum(err, 0.0), np.abs(err))
