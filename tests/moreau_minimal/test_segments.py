"""Segment contacts against a mesh: the extended Newton impact law and Coulomb friction on a slope."""
import math

import numpy as np
import pytest

from impulsim.methods.moreau.laws import FrictionLaw
from impulsim.methods.moreau_minimal import TreeBuilder


def _wall():
    """The plane x = 0 facing −x (free side x < 0), 4 m × 4 m."""
    V = np.array([[0, -2, -2], [0, 2, -2], [0, 2, 2], [0, -2, 2]], float)
    return V, np.array([[0, 2, 1], [0, 3, 2]])


@pytest.mark.parametrize("eps_n", [0.0, 0.05, 0.5, 1.0])
def test_bumper_rebounds_with_eps_n_of_its_approach_speed(eps_n):
    """A body without gravity hits the wall at 2 m/s through a segment at its centre (no lever, no spin):
    it leaves at ε_n · 2 m/s (γ⁺ = −ε_n γ⁻), whatever its tangential speed (frictionless)."""
    b = TreeBuilder()
    b.add_body("ball", joint="free", mass=3.0, inertia=(0.1, 0.1, 0.1))
    b.add_segment("ball", (0.0, 0, 0), (-0.1, 0, 0), law=FrictionLaw.NONE, eps_n=eps_n)
    s = b.build(gravity=(0, 0, 0), mesh=_wall())
    s.q[0] = 1e-4                             # D just beyond the wall's plane: closed at once
    s.u[0:3] = (2.0, 0.7, 0.0)
    h = 1e-4
    s.step(h, 1)                              # the impact
    s.step(h, 200)
    assert s.u[0] == pytest.approx(-eps_n * 2.0, abs=1e-9)
    assert s.u[1] == pytest.approx(0.7, abs=1e-12)


@pytest.mark.parametrize("slope_deg,mu,sticks", [(10.0, 0.3, True), (25.0, 0.3, False)])
def test_coulomb_block_on_a_slope(slope_deg, mu, sticks):
    """A block on four corner segments on a slope: it stays when tan θ < μ, and slides with acceleration
    g (sin θ − μ cos θ) when tan θ > μ (to 0.5 %)."""
    a = math.radians(slope_deg)
    t = np.array([math.cos(a), 0, -math.sin(a)])
    n = np.array([math.sin(a), 0, math.cos(a)])
    y = np.array([0.0, 1.0, 0.0])
    corners = [p * t * 20 + q * y * 5 for p, q in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    V = np.array(corners)
    T = np.array([[0, 1, 2], [0, 2, 3]])
    R = np.column_stack([t, y, n])
    b = TreeBuilder()
    b.add_body("block", joint="free", mass=2.0, inertia=(0.05, 0.05, 0.05))
    for dx in (-0.1, 0.1):
        for dy in (-0.1, 0.1):
            b.add_segment("block", (dx, dy, -0.0505), (0, 0, 0.03), law=FrictionLaw.COULOMB, par=(mu,))
    s = b.build(mesh=(V, T))
    from impulsim.math.quaternion import quat_from_matrix
    s.q[0:3] = 0.05 * n
    s.q[3:7] = quat_from_matrix(R)
    h = 2e-4
    s.step(h, 50)
    x0, v0 = s.q[0:3].copy(), s.u[0:3].copy()
    s.step(h, 5000)
    if sticks:
        assert np.linalg.norm(s.q[0:3] - x0) < 1e-6
    else:
        acc = (s.u[0:3] - v0) @ t / 1.0
        expected = 9.81 * (math.sin(a) - mu * math.cos(a))
        assert abs(acc - expected) < 5e-3 * expected, (acc, expected)
