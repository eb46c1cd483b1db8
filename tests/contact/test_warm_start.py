"""Warm-start matching (contact/warmstart.py): a contact keeps its last impulse and friction anchor only
if it is the same contact, i.e. the same feature ids and a point still within the tolerance on one of
the two bodies."""
import numpy as np

from impulsim.contact import rows as R
from impulsim.contact import warmstart as W

TOL = 1e-2          # [m], what the stage passes: 10 eps_c at the default eps_c
N_BODIES = 3


def _match(cur_a, cur_b, prev_a, prev_b, key_matches):
    """Run match_nearby on contacts of body pair (1, 2): current points cur_a/cur_b (A's/B's frame),
    previous prev_a/prev_b, and the matches found by feature keys. Returns the final matches."""
    n, n_prev = len(cur_a), len(prev_a)
    rows = R.make_rows(n)
    rows.body_a[:n], rows.body_b[:n] = 1, 2
    rows.local_a[:n], rows.local_b[:n] = cur_a, cur_b
    pair = np.full(n_prev, 1 * N_BODIES + 2, np.int64)
    matched = np.array(key_matches, np.int64)
    W.match_nearby(rows, n, N_BODIES, pair, np.arange(n_prev, dtype=np.int64), np.asarray(prev_a, float),
                   np.asarray(prev_b, float), n_prev, TOL, matched)
    return list(matched)


def test_key_match_of_a_point_a_stone_length_away_is_refused():
    """The ids say contact 0 is last step's contact 0, but its point lies 1 m away on both bodies (the
    ids of clipped points are not unique where the faces' edges line up): it must not inherit that
    impulse and anchor; it takes the previous contact that is at its place instead."""
    prev_a = [(0.5, 0.2, 0.15), (-0.5, 0.2, 0.15)]
    prev_b = [(0.0, 0.2, -0.15), (-1.0, 0.2, -0.15)]
    cur_a = [(-0.5, 0.2, 0.15)]
    cur_b = [(-1.0, 0.2, -0.15)]
    assert _match(cur_a, cur_b, prev_a, prev_b, [0]) == [1]


def test_key_match_of_a_point_sliding_on_one_body_stands():
    """A box corner sliding over a face keeps its place on the box (A) while it moves 5 cm on the face (B)
    in a step: still the same contact."""
    prev_a, prev_b = [(0.5, 0.5, -0.5)], [(0.0, 0.0, 0.0)]
    cur_a, cur_b = [(0.5, 0.5, -0.5)], [(0.05, 0.0, 0.0)]
    assert _match(cur_a, cur_b, prev_a, prev_b, [0]) == [0]


def test_point_without_a_previous_contact_nearby_starts_cold():
    prev_a, prev_b = [(0.5, 0.5, -0.5)], [(0.0, 0.0, 0.0)]
    cur_a, cur_b = [(0.45, 0.5, -0.5)], [(0.05, 0.0, 0.0)]
    assert _match(cur_a, cur_b, prev_a, prev_b, [0]) == [-1]
    assert _match(cur_a, cur_b, prev_a, prev_b, [-1]) == [-1]


def test_one_previous_contact_seeds_one_current_contact():
    """Two current points with the same ids (clipping can make them) and the same place: only the first
    takes the previous impulse, or it would be applied twice."""
    prev_a, prev_b = [(0.5, 0.5, -0.5)], [(0.0, 0.0, 0.0)]
    cur_a, cur_b = [(0.5, 0.5, -0.5)] * 2, [(0.0, 0.0, 0.0)] * 2
    assert _match(cur_a, cur_b, prev_a, prev_b, [0, 0]) == [0, -1]
