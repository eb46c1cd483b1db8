"""A model of boxes, spheres, capsules and half-spaces compiles a narrow phase without the other kinds' code.

The detector's workspace carries ``all_kinds``: None when every shape of the model is of BASIC_KINDS, else True.
It is part of the workspace's compiled type, and the guarded pair and feature functions compile their code
only for True (core.guarded): such a scene never compiles GJK + EPA for curved pairs or the cylinder, hull and
triangle features. A guarded function that meets a kind its workspace was made without refuses instead of
answering.
"""
import numpy as np
import pytest

import impulsim as ims
from impulsim.collision import Detector, pairs
from impulsim.collision.core import NOT_COMPILED, make_workspace
from impulsim.geometry import ConvexHull, HalfSpace

CUBE = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])


def _model(*shapes):
    b = ims.ModelBuilder("floor", gravity=(0, 0, 0))
    b.add_body("floor", shapes=[HalfSpace()], static=True)
    for i, shape in enumerate(shapes):
        b.add_body(f"b{i}", shapes=[shape], position=(2.0 * i, 0.0, 1.0))
    return b.build()[0]


def test_the_flag_follows_the_model_kinds():
    basic = (ims.Box(size=(1, 1, 1)), ims.Sphere(radius=0.3), ims.Capsule(radius=0.1, length=0.5))
    assert Detector(_model(*basic)).ws.all_kinds is None
    for other in (ims.Cylinder(radius=0.2, length=0.5), ims.Ellipsoid(semi_axes=np.array([0.3, 0.2, 0.1])),
                  ConvexHull(points=CUBE)):
        assert Detector(_model(*basic, other)).ws.all_kinds is True, other
    # a workspace made without kinds compiles every kind
    assert make_workspace(8, 6, 12).all_kinds is True


def test_a_kind_left_out_is_refused_not_ignored():
    """A curved pair in a workspace made for basic kinds raises (never 'apart')."""
    ws = Detector(_model(ims.Box(size=(1, 1, 1)), ims.Sphere(radius=0.3))).ws
    assert ws.all_kinds is None
    with pytest.raises(RuntimeError, match="made without"):
        pairs.narrow(pairs.CURVED, ws, np.inf)
    assert "made without" in NOT_COMPILED
