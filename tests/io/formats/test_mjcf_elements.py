"""MJCF elements beyond bodies and joints: equality constraints, contact exclusions, actuators, planes,
meshes, and what is reported as not mapped."""
import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from impulsim.io.mjcf import load_mjcf  # noqa: E402
from impulsim.math import quat_to_matrix  # noqa: E402
from impulsim.model.kinds import JointKind, ServoMode  # noqa: E402

XML = """<mujoco model="elements">
  <asset>
    <mesh name="tet" vertex="0 0 0  0.2 0 0  0 0.2 0  0 0 0.2"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 1">
      <joint name="ja" type="hinge" axis="0 1 0" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
      <body name="b" pos="0.5 0 0">
        <joint name="jb" type="hinge" axis="0 1 0" range="-1 1" limited="true"/>
        <geom type="box" size="0.25 0.02 0.02" pos="0.25 0 0"/>
      </body>
    </body>
    <body name="c" pos="1 0 1">
      <joint name="jc" type="hinge" axis="0 1 0"/>
      <geom type="mesh" mesh="tet"/>
    </body>
    <body name="d" pos="2 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.1 0.05 0.04" friction="0.7 0.005 0.0001"/>
    </body>
  </worldbody>
  <equality>
    <connect name="loop" body1="b" body2="c" anchor="0.5 0 0"/>
    <weld name="glue" body1="d" body2="world"/>
    <joint name="couple" joint1="ja" joint2="jc"/>
  </equality>
  <contact>
    <exclude body1="a" body2="c"/>
  </contact>
  <actuator>
    <position name="hold" joint="jb" kp="30" kv="2" forcerange="-5 5" forcelimited="true"/>
    <velocity name="spin" joint="jc" kv="4"/>
  </actuator>
</mujoco>
"""


def test_equalities_exclusions_actuators_and_reports(tmp_path):
    p = tmp_path / "elements.xml"
    p.write_text(XML)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        builder = load_mjcf(p)
    model, state = builder.build()
    m = mujoco.MjModel.from_xml_path(str(p))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    kinds = {n: JointKind(int(k)) for n, k in zip(model.joint_names, model.joint_kind)}
    assert kinds == {"ja": JointKind.HINGE, "jb": JointKind.HINGE, "jc": JointKind.HINGE, "loop": JointKind.BALL,
                     "glue": JointKind.FIXED}
    # the connect point: MuJoCo's anchor on body1 ("b"), in the world
    j = model.joint("loop")
    k = int(model.joint_body_a[j])
    assert model.body_names[k] == "b"
    world = state.body_pos[k] + quat_to_matrix(state.body_quat[k]) @ model.joint_anchor_a[j]
    b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "b")
    assert np.allclose(world, d.xpos[b] + d.xmat[b].reshape(3, 3) @ np.array([0.5, 0, 0]), atol=1e-12)
    # exclusion a-c, besides the jointed pairs
    a, c = model.body("a"), model.body("c")
    assert [min(a, c), max(a, c)] in model.collision_exclude.tolist()
    # actuators: the position servo's gains and limit, the velocity servo
    s = model.servo_names.index("hold")
    assert ServoMode(int(model.servo_mode[s])) == ServoMode.ANGLE
    assert np.allclose(model.servo_gains[s], (30, 0, 2)) and model.servo_limit[s] == 5
    s = model.servo_names.index("spin")
    assert ServoMode(int(model.servo_mode[s])) == ServoMode.ANGULAR_VELOCITY and model.servo_gains[s][0] == 4
    # limits, a plane on the static world body, the mesh's hull, friction as a material
    jb = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, "jb")      # range in degrees, compiled to radians
    assert model.limit_names == ("jb/limit",)
    assert np.allclose([model.limit_lower[0], model.limit_upper[0]], m.jnt_range[jb], rtol=0, atol=1e-15)
    assert np.allclose(m.jnt_range[jb], np.radians([-1, 1]))
    floor = model.body("worldbody")
    assert model.body_static[floor] and int(model.shape_kind[model.shape_body == floor][0]) == 6
    shapes_d = np.nonzero(model.shape_body == model.body("d"))[0]
    assert model.material_dynamic_friction[model.shape_material[shapes_d[0]]] == 0.7
    lines = builder.import_report.unmapped
    assert any('joint "ja": damping not mapped' in l for l in lines)
    assert any('equality constraints are not mapped' in l and '"couple"' in l for l in lines)


BITS = """<mujoco model="bits">
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" contype="1" conaffinity="1"/>
    <body name="ghost" pos="0 0 0.5"><freejoint/><geom type="sphere" size="0.1" contype="2" conaffinity="2"/></body>
    <body name="solid" pos="1 0 0.5"><freejoint/><geom type="sphere" size="0.1" contype="2" conaffinity="1"/></body>
  </worldbody>
</mujoco>
"""


def test_contype_conaffinity_decide_which_bodies_touch(tmp_path):
    """MuJoCo's rule (contype_a & conaffinity_b or the reverse): the "ghost" sphere (2/2) cannot touch the
    floor (1/1) and falls through it like a free body; the "solid" sphere (2/1) rests on it."""
    from impulsim.io import load_scene
    p = tmp_path / "bits.xml"
    p.write_text(BITS)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        sim = load_scene(p).simulation()
    ghost, solid = sim.model.body("ghost"), sim.model.body("solid")
    t = 1.0
    for _ in range(round(t / 0.005)):
        sim.step()
    g = 9.81
    assert sim.state.body_pos[ghost, 2] == pytest.approx(0.5 - 0.5 * g * t * t, abs=0.01)
    assert sim.state.body_pos[solid, 2] == pytest.approx(0.1, abs=0.005)
