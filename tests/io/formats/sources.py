"""Where the test models come from: files shipped by packages on PyPI (no download at run time)."""
import sysconfig
from pathlib import Path

import pytest

PURELIB = Path(sysconfig.get_paths()["purelib"])
ROBOTS = PURELIB / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
"""URDFs of the example-robot-data package."""
GYM_ASSETS = PURELIB / "gymnasium" / "envs" / "mujoco" / "assets"
"""MJCF models of gymnasium's MuJoCo environments."""
DATA = Path(__file__).parent / "data"

URDF_MODELS = ["double_pendulum_description/urdf/double_pendulum.urdf", "ur_description/urdf/ur5_robot.urdf",
               "panda_description/urdf/panda_collision.urdf", "solo_description/robots/solo12.urdf",
               "simple_humanoid_description/urdf/simple_humanoid.urdf",
               "allegro_hand_description/urdf/allegro_right_hand.urdf", "anymal_c_simple_description/urdf/anymal.urdf",
               "go1_description/urdf/go1.urdf", "laikago_description/urdf/laikago.urdf",
               "tiago_description/robots/tiago_no_hand.urdf", "baxter_description/urdf/baxter.urdf",
               "talos_data/robots/talos_reduced_box.urdf", "pr2_description/urdf/pr2.urdf"]
MJCF_MODELS = ["ant.xml", "half_cheetah.xml", "hopper.xml", "humanoid.xml", "humanoidstandup.xml",
               "inverted_double_pendulum.xml", "inverted_pendulum.xml", "point.xml", "pusher.xml", "reacher.xml",
               "swimmer.xml", "walker2d.xml"]


def urdf_path(rel):
    p = ROBOTS / rel
    if not p.is_file():
        pytest.skip(f"example-robot-data is not installed ({rel})")
    return p


def mjcf_path(rel):
    p = GYM_ASSETS / rel
    if not p.is_file():
        pytest.skip(f"gymnasium's MuJoCo assets are not installed ({rel})")
    return p
