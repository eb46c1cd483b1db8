"""The contact graph (Bender 5.2.3): bodies in contact, levelled from the static bodies upward.

Static (infinite-mass) bodies form level 0; a breadth-first search assigns every dynamic body its
distance from them; a group of bodies touching no static body starts from an arbitrary member at level 1.
Bodies on a cycle share the level the search reaches them at. A contact belongs to level
max(level_A, level_B) − 1: shock propagation resolves level 0 first (contacts with the ground), then
freezes the bodies resting on it, and so on upward (Guendelman et al.).
"""
import numpy as np

from impulsim.kernel import njit


@njit(cache=True)
def body_levels(rows, count, body_inv_mass, n_bodies, level_out):
    """Level of every body (−1 for bodies without contacts); returns the highest level."""
    # adjacency in CSR form over the contacts
    deg = np.zeros(n_bodies + 1, np.int64)
    for c in range(count):
        deg[rows.body_a[c] + 1] += 1
        deg[rows.body_b[c] + 1] += 1
    start = deg                          # prefix sums in place: start[k] = first neighbour slot of body k
    for k in range(n_bodies):
        start[k + 1] += start[k]
    fill = start[:-1].copy()
    nbr = np.empty(2 * count, np.int64)
    for c in range(count):
        a, b = rows.body_a[c], rows.body_b[c]
        nbr[fill[a]] = b
        fill[a] += 1
        nbr[fill[b]] = a
        fill[b] += 1
    level_out[:] = -1
    queue = np.empty(n_bodies, np.int64)
    head, tail = 0, 0
    for k in range(n_bodies):
        if body_inv_mass[k] == 0.0 and start[k + 1] > start[k]:
            level_out[k] = 0
            queue[tail] = k
            tail += 1
    top = 0
    for seed in range(-1, n_bodies):
        if seed >= 0:
            if level_out[seed] >= 0 or start[seed + 1] == start[seed]:
                continue
            level_out[seed] = 1          # an isolated group: start it at level 1
            queue[tail] = seed
            tail += 1
        while head < tail:
            k = queue[head]
            head += 1
            if body_inv_mass[k] == 0.0 and level_out[k] != 0:
                continue
            for j in range(start[k], start[k + 1]):
                m = nbr[j]
                if level_out[m] < 0 and body_inv_mass[m] != 0.0:
                    level_out[m] = level_out[k] + 1
                    top = max(top, level_out[m])
                    queue[tail] = m
                    tail += 1
    return top


@njit(cache=True)
def contact_levels(rows, count, body_level, order_out):
    """Each contact's level (max of its bodies' levels − 1) and the contacts sorted by it, ties in index
    order (a stable counting sort: levels are small integers, and it needs no sorting kernel compiled)."""
    top = 0
    for c in range(count):
        la = body_level[rows.body_a[c]]
        lb = body_level[rows.body_b[c]]
        rows.level[c] = max(0, max(la, lb) - 1)
        top = max(top, rows.level[c])
    first = np.zeros(top + 2, np.int64)  # first[l + 1] counts level l, then first[l] = first slot of level l
    for c in range(count):
        first[rows.level[c] + 1] += 1
    for level in range(top + 1):
        first[level + 1] += first[level]
    for c in range(count):
        level = rows.level[c]
        order_out[first[level]] = c
        first[level] += 1
