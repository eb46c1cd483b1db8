"""Bob files: the shipped bob's facts, one-line errors with file and line, the steering map."""
import math

import numpy as np
import pytest

from impulsim.apps.bobsleigh.bob import BobFileError, load_bob, steering_angle
from impulsim.apps.bobsleigh.bob.files import BOBS


def test_shipped_two_man_bob():
    """390 kg with its crew, 9 bodies on 13 free DOF plus the actuated steering, 17 contacts (8 runner,
    4 bumper, 5 rollover), the thesis's identified friction and restitution values."""
    bob = load_bob("two_man")
    sysm = bob.build(None)
    assert bob.mass == pytest.approx(390.0)
    assert len(bob.bodies) == 9 and sysm.nu == 13 and sysm.nk == 1
    kinds = [c["kind"] for c in bob.contacts]
    assert (kinds.count("runner"), kinds.count("bumper"), kinds.count("rollover")) == (8, 4, 5)
    assert bob.runner["mu_t"] == 4e-3 and bob.runner["mu_r_ratio"] == 0.66
    assert (bob.runner["mu_b_min"], bob.runner["mu_b_max"]) == (0.02, 0.1)
    assert bob.bumper["eps_n"] == 0.05
    assert bob.beta_max == pytest.approx(math.radians(10.0))


def _bad(tmp_path, old, new):
    text = (BOBS / "two_man.yaml").read_text()
    assert old in text
    p = tmp_path / "bad.yaml"
    p.write_text(text.replace(old, new, 1))
    line = text[:text.index(old)].count("\n") + 1
    with pytest.raises(BobFileError) as err:
        load_bob(str(p))
    return str(err.value), line, str(p)


@pytest.mark.parametrize("old,new,words", [
    ("mass: 183.0", "mass: -1", "mass"),
    ("mu_t: 4.0e-3", "mu_t: fast", "mu_t"),
    ("parent: front_axle, joint: revolute, point: [0.78, 0.335", "parent: nowhere, joint: revolute, point: [0.78, 0.335", "parent"),
    ("kind: bumper", "kind: wing", "kind"),
    ("direction: [0, 0, 0.06]", "direction: [0, 0]", "direction"),
])
def test_bad_values_are_one_line_errors_with_file_and_line(tmp_path, old, new, words):
    msg, line, path = _bad(tmp_path, old, new)
    assert "\n" not in msg
    assert msg.startswith(f"{path}:{line}: ")
    assert words in msg


def test_steering_map():
    """β = β_max sign(i)|i|^(1/d): ends at ±β_max, odd, monotone, linear for d = 1, less direct for d < 1,
    clamped beyond the end stops."""
    bm = math.radians(10.0)
    i = np.linspace(-1, 1, 41)
    for d in (5 / 8, 5 / 7, 1.0, 1.5):
        b = np.array([steering_angle(x, bm, d) for x in i])
        assert b[0] == pytest.approx(-bm) and b[-1] == pytest.approx(bm)
        assert np.allclose(b, -b[::-1]) and np.all(np.diff(b) >= 0)
    assert steering_angle(0.5, bm, 1.0) == pytest.approx(0.5 * bm)
    assert steering_angle(0.5, bm, 5 / 8) < 0.5 * bm < steering_angle(0.5, bm, 1.5)
    assert steering_angle(3.0, bm, 0.7) == pytest.approx(bm)
