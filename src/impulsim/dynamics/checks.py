"""A compiled check that a state is finite (the common case of every step, without NumPy temporaries)."""
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
