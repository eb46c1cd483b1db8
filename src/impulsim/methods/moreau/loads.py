"""Contact percussions fed back as the forces they induce (thesis eq. 2.45–2.48)."""
import numpy as np

from impulsim.kernel import njit
from impulsim.math.vec import q4, qrot


@njit(cache=True)
def contact_loads(row0, row1, lam, row_a, row_b, row_wa, row_wb, body_quat, inv_h, force_out, torque_out):
    """Mean force F = Σ w_lin Λ / h [N] and torque about the centre of mass [N m] (world) per body from
    the contact rows row0 .. row1−1; w's angular part is in the body frame of ``body_quat``."""
    force_out[:] = 0.0
    torque_out[:] = 0.0
    for i in range(row0, row1):
        p = lam[i] * inv_h
        a, b = row_a[i], row_b[i]
        for j in range(3):
            force_out[a, j] += row_wa[i, j] * p
            torque_out[a, j] += row_wa[i, 3 + j] * p
            force_out[b, j] += row_wb[i, j] * p
            torque_out[b, j] += row_wb[i, 3 + j] * p
    for k in range(force_out.shape[0]):
        t = qrot(q4(body_quat[k]), (torque_out[k, 0], torque_out[k, 1], torque_out[k, 2]))
        for j in range(3):
            torque_out[k, j] = t[j]


def subtree(model, joint: int) -> list:
    """Bodies on the child side of ``joint``: body B and all bodies joined to it without crossing the
    joint or its body A (the joint graph must be a tree; the world is never included)."""
    a, b = int(model.joint_body_a[joint]), int(model.joint_body_b[joint])
    seen, todo = {b}, [b]
    while todo:
        k = todo.pop()
        for j in range(model.n_joints):
            if j == joint:
                continue
            ja, jb = int(model.joint_body_a[j]), int(model.joint_body_b[j])
            for x, y in ((ja, jb), (jb, ja)):
                if x == k and y not in seen and y != a and not model.body_static[y]:
                    seen.add(y)
                    todo.append(y)
    return sorted(seen)


def induced_joint_load(model, state, force, torque, joint) -> tuple[np.ndarray, np.ndarray]:
    """Resultant force [N] and moment about the joint point [N m] (world) that the given body loads
    (``force``, ``torque`` per body, e.g. a method's mean contact loads) exert on the subtree beyond
    ``joint`` (name or index). Its component along a hinge axis is the generalized force the loads induce
    in that joint coordinate (thesis eq. 2.47/2.48: the steering moment of the force feedback)."""
    from impulsim.math import quat_rotate
    j = model.joint(joint) if isinstance(joint, str) else int(joint)
    b = int(model.joint_body_b[j])
    point = state.body_pos[b] + quat_rotate(state.body_quat[b], model.joint_anchor_b[j])
    f_sum, m_sum = np.zeros(3), np.zeros(3)
    for k in subtree(model, j):
        f_sum += force[k]
        m_sum += torque[k] + np.cross(state.body_pos[k] - point, force[k])
    return f_sum, m_sum
