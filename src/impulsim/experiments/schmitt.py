"""The seven test systems of Schmitt & Thüring (2000, §5) as mass-point models.

Each function returns ``(model, state)`` from :class:`MassPointBuilder`. The report's figures are missing;
where a scene needs a number the text does not give, the docstring says what we chose. World z is up
(the report draws its pendulums in a vertical x-y plane and its top with y up; we turn those scenes so
that its vertical is our z).
"""
from __future__ import annotations

import itertools
import math

from impulsim.methods.masspoint.builder import MassPointBuilder

G = 9.81
"""|g| [m/s²] used throughout the report."""

CUBE_KICK_FORCE = 100.0
"""Force [N] on each of the two kicked cube corners during the first step. The report gives neither
magnitude nor duration; 2 · 100 N · 0.16 s = 32 N s gives the centre of mass the 4 m/s the report's
640 m in 160 s imply."""

TOP_KICK = {"p3": (0.0, 6000.0, 0.0), "p4": (0.0, -4000.0, 0.0), "p5": (-4000.0, 0.0, 0.0),
            "p6": (4000.0, 0.0, 0.0)}
"""Kick forces [N] on the top's rim points for one step of 0.005 s (report §5.7, turned from y-up to
z-up): they spin the top about +z and the unbalanced 2000 N push its axis off the vertical."""


def pendulum(amplitude_deg: float = 5.0, length: float = 1.0, mass: float = 1.0):
    """§5.1: a 1 m mathematical pendulum released from rest at 5° in the x-z plane."""
    a = math.radians(amplitude_deg)
    b = MassPointBuilder("pendulum", gravity=(0.0, 0.0, -G))
    b.add_point("pivot", (0.0, 0.0, 0.0), fixed=True)
    b.add_point("bob", (length * math.sin(a), 0.0, -length * math.cos(a)), mass=mass)
    b.add_distance("pivot", "bob", name="rod")
    return b.build()


def cube_corner_name(x: int, y: int, z: int) -> str:
    """Name of the cube corner at (x, y, z) ∈ {−1, 1}³, e.g. ``"x+y-z+"``."""
    return "".join(f"{axis}{'+' if v > 0 else '-'}" for axis, v in zip("xyz", (x, y, z)))


def cube(h: float = 0.16, force: float = CUBE_KICK_FORCE):
    """§5.2: a 2 m cube of eight 1 kg corners at (±1, ±1, ±1), weightless, all 28 pairs linked.

    The report kicks "corners 6 and 7" (numbered in a missing figure) in direction (−1, 0, 0) so that
    the cube flies along −x and turns about the vertical axis. We kick the two corners (1, 1, ±1) with
    ``force`` [N] during the first step of length ``h``: the torques about x and y cancel and the cube
    spins about +z (our vertical).
    """
    b = MassPointBuilder("cube", gravity=(0.0, 0.0, 0.0))
    names = []
    for x, y, z in itertools.product((-1, 1), repeat=3):
        names.append(b.add_point(cube_corner_name(x, y, z), (x, y, z), mass=1.0))
    b.add_rigid_body("cube", names)
    for z in (-1, 1):
        b.add_kick(cube_corner_name(1, 1, z), (-force, 0.0, 0.0), start=0.0, duration=h)
    return b.build()


def _three_mass_pendulum(name: str, link: str, slider: bool):
    """The §5.3 arm: points at x = 0, 1, 2, 3 on the horizontal x-axis, 2 kg each, at rest."""
    b = MassPointBuilder(name, gravity=(0.0, 0.0, -G))
    if slider:
        b.add_point("p1", (0.0, 0.0, 0.0), mass=2.0, line=(1.0, 0.0, 0.0))
    else:
        b.add_point("p1", (0.0, 0.0, 0.0), fixed=True)
    for k in (2, 3, 4):
        b.add_point(f"p{k}", (k - 1.0, 0.0, 0.0), mass=2.0)
    for k in (1, 2, 3):
        if link == "rigid":
            b.add_distance(f"p{k}", f"p{k + 1}", length=1.0)
        else:
            b.add_thread(f"p{k}", f"p{k + 1}", length=1.0)
    return b.build()


def rigid_pendulum():
    """§5.3: triple pendulum of rigid massless 1 m arms hung at the fixed point p1 = (0, 0, 0)."""
    return _three_mass_pendulum("rigid_pendulum", "rigid", slider=False)


def thread_pendulum():
    """§5.4: the same three masses hung on massless 1 m threads, |P_i − P_i+1| ≤ 1."""
    return _three_mass_pendulum("thread_pendulum", "thread", slider=False)


def rail_pendulum():
    """§5.5: the rigid triple pendulum with p1 (now 2 kg) sliding freely on the x-axis."""
    return _three_mass_pendulum("rail_pendulum", "rigid", slider=True)


def closed_chain():
    """§5.6: a chain of eight 1 m links between the fixed points p1 and p9, seven 1 kg points.

    The report's figure of the initial shape is missing. We start it as an upturned "U": p1 = (0, 0, 0)
    and p9 = (6, 0, 0) fixed, p2 and p8 one metre above them, p2..p8 a straight horizontal line at
    z = 1. The straight top is a singular (jammed) configuration, like the report's start where the
    velocity correction failed to converge.
    """
    b = MassPointBuilder("closed_chain", gravity=(0.0, 0.0, -G))
    b.add_point("p1", (0.0, 0.0, 0.0), fixed=True)
    for k in range(2, 9):
        b.add_point(f"p{k}", (k - 2.0, 0.0, 1.0), mass=1.0)
    b.add_point("p9", (6.0, 0.0, 0.0), fixed=True)
    for k in range(1, 9):
        b.add_distance(f"p{k}", f"p{k + 1}", length=1.0)
    return b.build()


def top(height: float = 1.0, h: float = 0.005):
    """§5.7: a pyramid top standing on its fixed tip p1 = (0, 0, 0), kicked into spin for one step.

    Rim points p3..p6 of 1 kg sit at radius 1 m (opposite points 2 m apart) at ``height`` [m] (not given
    in the report; we take 1 m), p2 (1 kg, the report's "data point" on the axis) at the centre of the
    rim. All 15 pairs are linked. The kick ``TOP_KICK`` acts during the first step of length ``h``.
    """
    b = MassPointBuilder("top", gravity=(0.0, 0.0, -G))
    b.add_point("p1", (0.0, 0.0, 0.0), fixed=True)
    b.add_point("p2", (0.0, 0.0, height), mass=1.0)
    rim = {"p3": (1.0, 0.0), "p4": (-1.0, 0.0), "p5": (0.0, 1.0), "p6": (0.0, -1.0)}
    for name, (x, y) in rim.items():
        b.add_point(name, (x, y, height), mass=1.0)
    b.add_rigid_body("top", ["p1", "p2", *rim])
    for name, f in TOP_KICK.items():
        b.add_kick(name, f, start=0.0, duration=h)
    return b.build()


def rope(n_links: int = 50):
    """Not in the report: a horizontal rope of ``n_links`` 0.1 m links fixed at one end, 0.1 kg per point,
    released from rest. The long chain on which Gauss–Seidel sweeps converge slowest, and whose whipping
    end turns its links so far per step at h = 0.01 s that the fin correction diverges."""
    b = MassPointBuilder(f"rope_{n_links}", gravity=(0.0, 0.0, -G))
    b.add_point("p0", (0.0, 0.0, 0.0), fixed=True)
    for k in range(1, n_links + 1):
        b.add_point(f"p{k}", (0.1 * k, 0.0, 0.0), mass=0.1)
        b.add_distance(f"p{k - 1}", f"p{k}", length=0.1)
    return b.build()
