"""Refuse scenes whose moving bodies start piled on one point.

Bodies that may collide and start with their centres of mass nearly together are deep inside each other:
the contact stage then finds every pair of them in contact at once, with contacts that push in every
direction, and the first step grows with the square of their number (seconds for a hundred, no end for a
thousand). Such a scene is a mistake (a copied position); it is refused when it is read.
"""
from __future__ import annotations

import numpy as np

from impulsim import limits
from impulsim.io.yamlnodes import SceneError


def check_start_overlaps(model, state, where_of: dict, file: str) -> None:
    """Raise SceneError naming a moving, shaped body whose centre starts closer than MIN_SEPARATION times
    the thinner one's thickness (2 sqrt(J_min / m)) to those of MAX_PILE or more bodies of other joint chains
    (two bodies started inside each other are pushed apart in a few steps; a pile of them is not)."""
    from scipy.spatial import cKDTree
    from impulsim.contact.default import joint_components, model_has_contacts
    if model.n_bodies < 3 or not model_has_contacts(model):
        return
    movable = (model.body_static + model.body_kinematic) == 0
    shaped = np.zeros(model.n_bodies, bool)
    shaped[np.asarray(model.shape_body, np.int64)] = True
    bodies = np.nonzero(movable & shaped)[0]
    if len(bodies) < 2:
        return
    thick = 2.0 * np.sqrt(np.min(model.body_inertia[bodies], axis=1) / model.body_mass[bodies])
    reach = limits.MIN_SEPARATION * thick
    pos = state.body_pos
    tree = cKDTree(pos[bodies])
    chain = joint_components(model, movable)
    inside = np.zeros(len(bodies), np.int64)
    for i, j in _close_pairs(tree, reach):
        a, b = int(bodies[i]), int(bodies[j])
        if chain[a] == chain[b]:
            continue
        d = float(np.linalg.norm(pos[a] - pos[b]))
        if d < min(reach[i], reach[j]):
            inside[i] += 1
            inside[j] += 1
            if max(inside[i], inside[j]) >= limits.MAX_PILE:
                worst = j if inside[j] >= inside[i] else i
                name = model.body_names[int(bodies[worst])]
                loc = where_of.get(name) or file
                raise SceneError(f'{loc}: body "{name}" starts inside {int(inside[worst])} other bodies (its '
                                 f'centre within {limits.MIN_SEPARATION:g} of their thickness, e.g. '
                                 f'"{model.body_names[a if int(bodies[worst]) == b else b]}" at {d:.3g} m); '
                                 f'bodies that may collide must start apart')


def _close_pairs(tree, reach):
    """Index pairs within the largest reach, in a bounded number: the first pair found decides."""
    pairs = tree.query_pairs(float(reach.max()), output_type="ndarray")
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))] if len(pairs) else pairs
