"""The largest joint error of a written-back state: a check that the reduced coordinates hold the joints.

The poses come from the joint coordinates, so every basic constraint should hold to round-off; this
measures it with the impulse method's error definitions (Bender 3.2.3), without allocating.
"""
import math

from impulsim.kernel import njit
from impulsim.math.vec import q4, v3
from impulsim.dynamics.prim_errors import position_error_t

_VELOCITY_ONLY = 7    # Prim.VEL_POINT and above have no position error


@njit(cache=True, _nrt=False)
def largest_joint_error(prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                        prim_axis_b, prim_target, prim_qrel, body_pos, body_quat):
    """max over primitives of |d| [m or rad] at the given poses (0 without primitives)."""
    worst = 0.0
    for i in range(prim_kind.shape[0]):
        if prim_kind[i] >= _VELOCITY_ONLY:
            continue
        a = prim_body_a[i]
        b = prim_body_b[i]
        d = position_error_t(prim_kind[i], v3(body_pos[a]), q4(body_quat[a]), v3(body_pos[b]), q4(body_quat[b]),
                             v3(prim_anchor_a[i]), v3(prim_anchor_b[i]), v3(prim_axis_a[i]),
                             v3(prim_axis_b[i]), prim_target[i], q4(prim_qrel[i]))
        worst = max(worst, math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]))
    return worst
