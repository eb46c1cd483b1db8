"""A box thrown flat onto the floor (examples/bouncing_box.yaml) against Coulomb's law for a point mass:
each impact takes μ(1 + e) v_n off the horizontal speed while the box slips through it, and it slides at
μ g after its last bounce. Under the impulse method (with the example's eps_vc) and Lagrange's."""
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from impulsim.io import load_scene

SCENE = Path(__file__).resolve().parents[2] / "examples" / "bouncing_box.yaml"
SECONDS = 2.5


def point_mass_distance(e, mu, seconds, g=9.81, drop=0.5, vx=2.0, rest=2 * 9.81 * 1e-3):
    """The point mass's distance after ``seconds`` [m]: it falls ``drop``, bounces (Newton, e) with a
    Coulomb impulse at each impact until its approach speed is below ``rest``, then slides at μ g."""
    t = math.sqrt(2 * drop / g)
    x, vn = vx * t, g * t
    while vn >= rest:
        vx = max(0.0, vx - mu * (1 + e) * vn)
        vn *= e
        flight = 2 * vn / g if vn >= rest else 0.0
        if t + flight > seconds:
            return x + vx * (seconds - t)
        t, x = t + flight, x + vx * flight
    slide = min(vx / (mu * g), seconds - t)
    return x + vx * slide - 0.5 * mu * g * slide ** 2


def _throw(tmp_path, e, mu_d, method):
    doc = yaml.safe_load(SCENE.read_text())
    doc["materials"]["box"].update(restitution=e, dynamic_friction=mu_d)
    path = tmp_path / "box.yaml"
    path.write_text(yaml.safe_dump(doc))
    return load_scene(path).simulation(method=method)


@pytest.mark.parametrize("method", ["impulse", "lagrange"])
@pytest.mark.parametrize("e, mu_d", [(0.8, 0.2), (0.5, 0.4), (0.3, 0.1)])
def test_a_box_thrown_flat_lands_flat_and_slides_as_a_point_mass(tmp_path, method, e, mu_d):
    """Tolerances: tilt 0.05° (a flat landing has no torque to tilt it; what the iterations leave within
    eps_vc = 1e-6 m/s over 20 bounces stays far below); distance 0.5 % (the methods' rest speeds and
    contact tolerances end the bouncing a little differently than the model's 2 |g| h)."""
    sim = _throw(tmp_path, e, mu_d, method)
    box = list(sim.model.body_names).index("box")
    tilt = 0.0
    while sim.t < SECONDS - 1e-9:
        sim.step()
        q = sim.state.body_quat[box]
        tilt = max(tilt, 2.0 * math.degrees(math.asin(min(1.0, float(np.linalg.norm(q[1:]))))))
    assert tilt < 0.05
    expected = point_mass_distance(e, mu_d, SECONDS)
    assert abs(sim.state.body_pos[box, 0] - expected) <= 5e-3 * expected
