"""When a method needs contact handling by default: the ``contacts=None`` rule shared by the methods that
have contacts (impulse, Featherstone, Moreau)."""
import numpy as np


def model_has_contacts(model) -> bool:
    """The default of the ``contacts`` option: True if shapes on two bodies that no chain of joints
    connects may collide (groups and masks let them, the pair is not excluded, one body can move).
    An articulated system alone therefore runs without contact detection; ``contacts=True`` detects its
    self-collisions too. Static bodies do not connect the chains attached to them."""
    return contact_pair(model) is not None


def contact_pair(model):
    """The first pair of bodies (a, b) whose shapes may collide under the ``contacts=None`` rule of
    :func:`model_has_contacts`, or None."""
    movable = (model.body_static + model.body_kinematic) == 0
    shaped = np.unique(model.shape_body)
    if len(shaped) < 2 or not movable[shaped].any():
        return None
    chain = joint_components(model, movable)
    excluded = {(int(a), int(b)) for a, b in model.collision_exclude}
    for i, a in enumerate(shaped):
        for b in shaped[i + 1:]:
            if chain[a] == chain[b] or not (movable[a] or movable[b]) or (int(a), int(b)) in excluded:
                continue
            if model.body_group[a] & model.body_mask[b] and model.body_group[b] & model.body_mask[a]:
                return int(a), int(b)
    return None


def joint_components(model, movable) -> np.ndarray:
    """Label of the set of bodies each body is joined to by joints between bodies of ``movable`` (a mask;
    union-find)."""
    parent = np.arange(model.n_bodies)

    def root(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in zip(model.joint_body_a, model.joint_body_b):
        if movable[a] and movable[b]:
            parent[root(a)] = root(b)
    return np.array([root(k) for k in range(model.n_bodies)])
