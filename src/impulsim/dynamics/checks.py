"""Compiled checks of a step's result (the common case of every step, without NumPy temporaries)."""
import numpy as np

from impulsim.kernel import njit


@njit(cache=True)
def all_finite(body_pos, body_quat, body_vel, body_omega):
    """True if every position, orientation, velocity and angular velocity entry is finite."""
    for k in range(body_pos.shape[0]):
        for i in range(3):
            if not (np.isfinite(body_pos[k, i]) and np.isfinite(body_vel[k, i]) and np.isfinite(body_omega[k, i])):
                return False
        for i in range(4):
            if not np.isfinite(body_quat[k, i]):
                return False
    return True


IN_RANGE, OUT_OF_RANGE, TUNNELS, NOT_FINITE = 0, 1, 2, 3
"""What :func:`check_state` found."""


@njit(cache=True)
def check_state(body_pos, body_quat, body_vel, body_omega, before_pos, thickness, max_distance, max_speed,
                tunnel_factor):
    """The checks of a step's result in one compiled pass, without NumPy temporaries (the common case of
    every step; the caller names the body with NumPy on the rare failure): NOT_FINITE if an entry of the
    four arrays is not finite; else OUT_OF_RANGE if a position coordinate exceeds max_distance [m] or a
    velocity component max_speed [m/s] in magnitude; else TUNNELS if a body moved farther than tunnel_factor
    times its ``thickness`` [m] from ``before_pos`` (an empty ``thickness`` skips that test); else IN_RANGE.
    With infinite limits it is a finiteness check of any four arrays of these shapes (one kernel for all
    of Method.step's checks: each kernel costs its compile at a scene's first step)."""
    if not all_finite(body_pos, body_quat, body_vel, body_omega):
        return NOT_FINITE
    for k in range(body_pos.shape[0]):
        for i in range(3):
            if abs(body_pos[k, i]) > max_distance or abs(body_vel[k, i]) > max_speed:
                return OUT_OF_RANGE
    if thickness.shape[0]:
        for k in range(body_pos.shape[0]):
            d0 = body_pos[k, 0] - before_pos[k, 0]
            d1 = body_pos[k, 1] - before_pos[k, 1]
            d2 = body_pos[k, 2] - before_pos[k, 2]
            if np.sqrt(d0 * d0 + d1 * d1 + d2 * d2) > tunnel_factor * thickness[k]:
                return TUNNELS
    return IN_RANGE
