"""Timed loads (the model's ``load_*`` arrays): force and torque on a body over a window [start, end)."""
from impulsim.kernel import njit


@njit(cache=True)
def add_timed_loads(load_body, load_force, load_torque, load_start, load_end, t, h,
                    # outputs (added to)
                    body_force, body_torque):
    """Add each load's mean over the step [t, t+h): F |[start, end) ∩ [t, t+h)| / h, so that the impulse
    it gives is exact even when the window does not line up with the steps (world frame, N and N m)."""
    for k in range(load_body.shape[0]):
        overlap = min(load_end[k], t + h) - max(load_start[k], t)
        if overlap > 0.0:
            b = load_body[k]
            for r in range(3):
                body_force[b, r] += load_force[k, r] * (overlap / h)
                body_torque[b, r] += load_torque[k, r] * (overlap / h)
