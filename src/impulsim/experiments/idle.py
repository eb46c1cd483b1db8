"""Scenes where contacts have little or nothing to do: piles asleep, jointed bodies swinging in the air.

They measure and test what contacts cost when nothing touches or everything sleeps (sleeping, the step that
finds no contact; docs/contacts.md). Built from :mod:`bender_contacts`'s stacking blocks (unit cubes of
wood, μ = 0.25), so the piles are the thesis's.
"""
from __future__ import annotations

import numpy as np

import impulsim as ims
from impulsim.experiments import bender_contacts as B


def _pyramid_builder(name: str, n_base: int):
    """The stacking pyramid of ``n_base`` boxes on the ground (bender_contacts.pyramid), in a builder."""
    b = B._stack_builder(name)
    B.add_pyramid(b, n_base)
    return b


def pyramid_and_pendulum(n_base: int = 10):
    """The pyramid and a 0.2 m ball on a 3 m ball joint 30 m away, released sideways: it never comes to rest,
    so the model never sleeps whole. (model, state)."""
    b = _pyramid_builder("pyramid and pendulum", n_base)
    b.add_body("bob", shapes=[ims.Sphere(radius=0.2)], mass=1.0, position=(33.0, 0.0, 10.0))
    b.add_ball("rope", "world", "bob", anchor=(30.0, 0.0, 10.0))
    return b.build()


def pyramid_and_ball(n_base: int = 6, drop: float = 12.0):
    """The pyramid and a 0.3 m, 5 kg wooden ball released ``drop`` [m] above its top: from 12 m it lands after
    about 1.56 s, long after the pyramid could fall asleep. (model, state)."""
    b = _pyramid_builder("pyramid and ball", n_base)
    b.add_body("ball", shapes=[ims.Sphere(radius=0.3, material="wood")], mass=5.0,
               position=(0.1, 0.0, n_base * B.STACK_BOX + drop))
    return b.build()


def swinging_chain(height: float = 10.0, post: bool = False, sigma: float = 0.0, seed: int = 3):
    """Three 0.5 m capsules on ball joints hanging from a pivot ``height`` [m] above the ground (the lowest end
    1.5 m below it), swinging as one body at 3 rad/s about y (towards −x), each link's rate perturbed by normal
    noise of ``sigma`` [rad/s]. With ``post``, a static 0.2 × 1 × 2 m post stands 0.8 m aside in the swing's
    way. (model, state)."""
    b = ims.ModelBuilder("chain in the air")
    b.add_body("ground", shapes=[ims.HalfSpace()], static=True)
    if post:
        b.add_body("post", shapes=[ims.Box(size=(0.2, 1.0, 2.0))], static=True, position=(-0.8, 0.0, 1.0))
    parent, pivot = "world", np.array([0.0, 0.0, height])
    for k in range(3):
        b.add_body(f"link{k}", shapes=[ims.Capsule(radius=0.05, length=0.4)], mass=1.0,
                   position=pivot - (0, 0, 0.25 + 0.5 * k))
        b.add_ball(f"joint{k}", parent, f"link{k}", anchor=pivot - (0, 0, 0.5 * k))
        parent = f"link{k}"
    model, state = b.build()
    swing = np.array([0.0, 3.0, 0.0])
    state.body_omega[-3:] = np.random.default_rng(seed).normal(0.0, sigma, (3, 3)) + swing
    state.body_vel[-3:] = np.cross(swing, state.body_pos[-3:] - pivot)
    return model, state
