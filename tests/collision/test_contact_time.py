"""Contact-time search: a sphere moving through the ground between two poses; both variants find the
time of first contact within the tolerance, and interpolation on the depth needs fewer evaluations."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.collision import Detector, contact_time, interpolate_poses
from impulsim.geometry import HalfSpace

TOL = 1e-6
"""Accepted band of the distance at the contact time [m] (Bender's ε for the contact-time search)."""


def _falling_sphere():
    b = ims.ModelBuilder("drop", gravity=(0, 0, 0))
    b.add_body("ground", shapes=[HalfSpace()], static=True)
    b.add_body("ball", shapes=[ims.Sphere(radius=0.1)], position=(0, 0, 0.3))
    model, s0 = b.build()
    s1 = s0.copy()
    s1.body_pos[2] = (0.4, 0.1, 0.05)          # ends 5 cm deep in the ground
    return model, s0, s1


@pytest.mark.parametrize("method", ["interpolation", "bisection"])
def test_contact_time_finds_first_touch(method):
    model, s0, s1 = _falling_sphere()
    det = Detector(model, eps_c=1e-3)
    work = s0.copy()

    def depth(t):
        interpolate_poses(s0, s1, t, work)
        return det.penetration(work) if det.penetration(work) < np.inf else \
            det.distance(work, 1, 0).distance

    res = contact_time(depth, 0.0, 1.0, TOL, method=method)
    # height 0.3 -> 0.05 linearly: the surface touches at z = 0.1, t = 0.2/0.25 = 0.8
    assert -TOL <= res.distance <= 0.0
    assert abs(res.t - 0.8) <= TOL / 0.25
    if method == "interpolation":
        bisect = contact_time(depth, 0.0, 1.0, TOL, method="bisection")
        assert res.evaluations < bisect.evaluations


def test_contact_time_illinois_converges_on_a_curved_depth():
    # depth(t) = 1 - 2 t², contact where it reaches ~0: t = 1/√2
    res = contact_time(lambda t: 0.5 - t * t, 0.0, 1.0, 1e-10)
    assert abs(res.t - np.sqrt(0.5)) < 1e-9
    assert res.evaluations < 20


def test_contact_time_rejects_a_start_in_penetration():
    with pytest.raises(ValueError, match="already penetrating"):
        contact_time(lambda t: -1.0, 0.0, 1.0, 1e-6)
