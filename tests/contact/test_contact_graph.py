"""The contact graph's levels (Bender 5.2.3) on random contact sets: body levels are breadth-first distances
from the static bodies, and contacts come out sorted by level with ties in index order."""
import numpy as np

from impulsim.contact.graph import body_levels, contact_levels
from impulsim.contact.rows import make_rows


def _random_contacts(rng, n_bodies, count):
    rows = make_rows(count)
    for c in range(count):
        a, b = rng.choice(n_bodies, size=2, replace=False)
        rows.body_a[c], rows.body_b[c] = a, b
    inv_mass = np.where(rng.random(n_bodies) < 0.2, 0.0, 1.0)
    return rows, inv_mass


def _levels_by_search(rows, count, inv_mass):
    """Breadth-first levels computed plainly in Python: static bodies in contact at 0, each group without
    a static body started at its lowest-numbered member at level 1."""
    n = inv_mass.size
    nbrs = [[] for _ in range(n)]
    for c in range(count):
        a, b = int(rows.body_a[c]), int(rows.body_b[c])
        nbrs[a].append(b)
        nbrs[b].append(a)
    level = [-1] * n
    frontier = [k for k in range(n) if inv_mass[k] == 0.0 and nbrs[k]]
    seeds = iter(range(n))
    for k in frontier:
        level[k] = 0
    while True:
        while frontier:
            nxt = []
            for k in frontier:
                if inv_mass[k] == 0.0 and level[k] != 0:
                    continue
                for m in nbrs[k]:
                    if level[m] < 0 and inv_mass[m] != 0.0:
                        level[m] = level[k] + 1
                        nxt.append(m)
            frontier = nxt
        seed = next((s for s in seeds if level[s] < 0 and nbrs[s]), None)
        if seed is None:
            return np.array(level)
        level[seed] = 1
        frontier = [seed]


def test_contacts_come_out_sorted_by_level_with_ties_in_index_order():
    rng = np.random.default_rng(3)
    for trial in range(200):
        n_bodies = int(rng.integers(2, 40))
        count = int(rng.integers(0, 80))
        rows, inv_mass = _random_contacts(rng, n_bodies, max(count, 1))
        level = np.empty(n_bodies, np.int64)
        top = body_levels(rows, count, inv_mass, n_bodies, level)
        expected = _levels_by_search(rows, count, inv_mass)
        np.testing.assert_array_equal(level, expected)
        assert top == max(0, expected.max(initial=0))
        order = np.full(max(count, 1), -1, np.int64)
        contact_levels(rows, count, level, order)
        want = np.maximum(0, np.maximum(level[rows.body_a[:count]], level[rows.body_b[:count]]) - 1)
        np.testing.assert_array_equal(rows.level[:count], want)
        np.testing.assert_array_equal(order[:count], np.argsort(want, kind="stable"))
