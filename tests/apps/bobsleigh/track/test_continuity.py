"""The running surface has no steps along the track: the section changes little from one station to the next.

A step in the ice is what a bob at 35 m/s cannot survive (it stops the bob in one contact); it arises when
two neighbouring given sections are taken with different curve hands and the surface switches from one to
the other halfway between them instead of blending.
"""
import numpy as np
import pytest

from impulsim.apps.bobsleigh.track import load_track, shipped_tracks
from impulsim.apps.bobsleigh.track.files import hand_at
from impulsim.apps.bobsleigh.track.profile import LEFT, RIGHT, Curve

STEP = 0.25
"""Spacing [m] of the compared sections."""
MAX_CHANGE = 0.15
"""Largest distance [m] of a point of one section from the next section 0.25 m on. Lofted linearly, a
section moves by at most the difference between the two given sections it lies between times 0.25 m over
their distance: the quickest change in the shipped tracks is a curve section turning into the straight's U
over 3.5 m (0.13 m per 0.25 m, Sanki-like curve 4). A switch between a U and a curve section moves the
floor near the wall by the whole difference, 0.2..0.3 m."""


def _sections(track, s):
    out = []
    for st in s:
        p = track.section_points(float(st), 121)
        o, _, lat, up = track.frame([float(st)])
        d = p - o[0]
        out.append(np.stack([d @ lat[0], d @ up[0]], 1))
    return out


def _distance(a, b):
    """Symmetric Hausdorff distance of two sampled sections [m]."""
    dd = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    return max(dd.min(1).max(), dd.min(0).max())


@pytest.mark.parametrize("name", shipped_tracks())
def test_sections_change_gradually_along_the_whole_track(name):
    track = load_track(name)
    s = np.arange(track.s_min, track.s_max, STEP)
    secs = _sections(track, s)
    change = np.array([_distance(a, b) for a, b in zip(secs[:-1], secs[1:])])
    k = int(np.argmax(change))
    assert change[k] < MAX_CHANGE, f"{name}: the section changes by {change[k]:.3f} m at s = {s[k]:.2f} m"


def test_a_section_where_one_curve_ends_and_the_next_begins_belongs_to_the_next():
    a = Curve(LEFT, 0.0, 1.0, 10.0, 300.0, 5.0, 30.0, 10.0, 300.0, 40.0)
    b = Curve(RIGHT, 40.0, 41.0, 10.0, 300.0, 5.0, 30.0, 10.0, 300.0, 80.0)
    assert hand_at([a, b], 40.0) == RIGHT
    assert hand_at([a, b], 39.9) == LEFT
    assert hand_at([a, b], 90.0) == RIGHT           # beyond the last curve: its hand
