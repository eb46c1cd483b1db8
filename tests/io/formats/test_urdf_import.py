"""URDF import of robots shipped by example-robot-data: masses, inertias and the joint tree against the
file's own numbers, read here independently (lxml and scipy, world frame at the zero configuration)."""
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

pytest.importorskip("yourdfpy")
from lxml import etree  # noqa: E402

from impulsim.io.formats import load_model_file  # noqa: E402
from impulsim.io.urdf import load_urdf  # noqa: E402
from impulsim.math import quat_to_matrix  # noqa: E402
from tests.io.formats.sources import URDF_MODELS, urdf_path  # noqa: E402

TOL = 1e-9


def _transform(el):
    """4×4 of an <origin> element (URDF rpy: fixed-axis roll, pitch, yaw)."""
    T = np.eye(4)
    if el is not None:
        T[:3, 3] = [float(x) for x in el.get("xyz", "0 0 0").split()]
        T[:3, :3] = Rotation.from_euler("xyz", [float(x) for x in el.get("rpy", "0 0 0").split()]).as_matrix()
    return T


def _reference(path):
    """Per link: world pose, mass, world COM, world inertia about the COM; joints; fixed-joint groups."""
    root = etree.parse(str(path)).getroot()
    joints = root.findall("joint")
    parent_of = {j.find("child").get("link"): j for j in joints}
    links = [l.get("name") for l in root.findall("link")]
    base = next(l for l in links if l not in parent_of)
    T = {base: np.eye(4)}
    order = [base]
    for link in order:
        for j in joints:
            if j.find("parent").get("link") == link:
                child = j.find("child").get("link")
                T[child] = T[link] @ _transform(j.find("origin"))
                order.append(child)
    props = {}
    for l in root.findall("link"):
        name, inertial = l.get("name"), l.find("inertial")
        if inertial is None or inertial.find("mass") is None:
            props[name] = (0.0, np.zeros(3), np.zeros((3, 3)))
            continue
        Ti = T[name] @ _transform(inertial.find("origin"))
        i = {k: float(v) for k, v in inertial.find("inertia").attrib.items()}
        I = np.array([[i["ixx"], i["ixy"], i["ixz"]], [i["ixy"], i["iyy"], i["iyz"]], [i["ixz"], i["iyz"], i["izz"]]])
        props[name] = (float(inertial.find("mass").get("value")), Ti[:3, 3], Ti[:3, :3] @ I @ Ti[:3, :3].T)
    group = {}
    for link in order:
        j = parent_of.get(link)
        group[link] = group[j.find("parent").get("link")] if j is not None and j.get("type") == "fixed" else link
    return T, props, joints, group, base


def _combined(parts):
    mass = sum(p[0] for p in parts)
    com = sum(p[0] * p[1] for p in parts) / mass
    I = sum(p[2] + p[0] * (np.dot(p[1] - com, p[1] - com) * np.eye(3) - np.outer(p[1] - com, p[1] - com))
            for p in parts)
    return mass, com, I


@pytest.mark.parametrize("rel", URDF_MODELS)
def test_urdf_masses_inertias_and_joint_tree_equal_the_files(rel):
    path = urdf_path(rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder = load_urdf(path)
    model, state = builder.build()
    T, props, joints, group, base = _reference(path)
    moving = [k for k in range(1, model.n_bodies) if model.body_inv_mass[k] > 0]
    # every moving body: its mass, centre and inertia tensor (world) are its fixed group's, combined
    total = 0.0
    for k in moving:
        name = model.body_names[k]
        members = [l for l in group if group[l] == name]
        assert members, name
        mass, com, I = _combined([props[l] for l in members if props[l][0] > 0])
        R = quat_to_matrix(state.body_quat[k])
        I_model = R @ np.diag(model.body_inertia[k]) @ R.T
        scale = max(1.0, np.max(np.abs(I)))
        assert abs(model.body_mass[k] - mass) <= TOL * max(1.0, mass), name
        assert np.max(np.abs(state.body_pos[k] - com)) <= TOL, name
        assert np.max(np.abs(I_model - I)) <= TOL * scale, name
        total += mass
    expected_total = sum(p[0] for l, p in props.items() if group[l] != base)
    assert abs(total - expected_total) <= TOL * max(1.0, expected_total)
    # joint tree: each moving URDF joint joins the bodies of its links, about/along its world axis
    names = list(model.joint_names)
    moving_joints = [j for j in joints if j.get("type") not in ("fixed", "floating")]
    assert len([n for n in names if "/" not in n]) == len(moving_joints)
    for j in moving_joints:
        jj = names.index(j.get("name"))
        a, b = model.body_names[model.joint_body_a[jj]], model.body_names[model.joint_body_b[jj]]
        pa, cb = group[j.find("parent").get("link")], group[j.find("child").get("link")]
        assert b == cb
        assert a == (pa if pa != base else ("world" if base == "world" else base)) or (pa == base and a == base)
        child = j.find("child").get("link")
        axis_el = j.find("axis")
        axis = np.array([float(x) for x in (axis_el.get("xyz") if axis_el is not None else "1 0 0").split()])
        axis_world = T[child][:3, :3] @ (axis / np.linalg.norm(axis))
        k = int(model.joint_body_a[jj])
        axis_model = quat_to_matrix(state.body_quat[k]) @ model.joint_axis_a[jj]
        assert np.max(np.abs(axis_model - axis_world)) <= TOL, j.get("name")
        anchor = state.body_pos[k] + quat_to_matrix(state.body_quat[k]) @ model.joint_anchor_a[jj]
        assert np.max(np.abs(anchor - T[child][:3, 3])) <= TOL, j.get("name")


def test_urdf_reports_what_it_does_not_map():
    with pytest.warns(UserWarning, match="effort and velocity limits not mapped"):
        builder = load_urdf(urdf_path("ur_description/urdf/ur5_robot.urdf"))
    lines = builder.import_report.unmapped
    assert any("transmission" in l for l in lines)
    assert all(l.startswith(str(urdf_path("ur_description/urdf/ur5_robot.urdf"))) for l in lines)


KINDS_URDF = """<?xml version="1.0"?>
<robot name="kinds">
  <link name="base"><inertial><mass value="3"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="cart"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="puck"><inertial><mass value="0.5"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"/></inertial></link>
  <link name="drone"><inertial><mass value="2"/><inertia ixx="0.2" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>
  <link name="sensor"/>
  <joint name="rail" type="prismatic">
    <parent link="base"/><child link="cart"/><origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/>
    <axis xyz="1 0 0"/><limit lower="-0.2" upper="0.5" effort="0" velocity="0"/>
  </joint>
  <joint name="table" type="planar"><parent link="base"/><child link="puck"/><axis xyz="0 0 1"/></joint>
  <joint name="fly" type="floating"><parent link="base"/><child link="drone"/><origin xyz="0 0 2"/></joint>
  <joint name="mount" type="fixed"><parent link="drone"/><child link="sensor"/></joint>
</robot>
"""


@pytest.mark.parametrize("floating", [False, True])
def test_urdf_joint_kinds_limits_and_floating_base(tmp_path, floating):
    from impulsim.model.builder import ModelBuilder
    from impulsim.model.kinds import JointKind
    p = tmp_path / "kinds.urdf"
    p.write_text(KINDS_URDF)
    model, state = ModelBuilder.from_urdf(p, floating_base=floating).build()
    kinds = {n: JointKind(int(k)).name for n, k in zip(model.joint_names, model.joint_kind)}
    assert kinds == {"rail": "SLIDER", "table": "POINT_ON_PLANE", "table/normal": "DIRECTION"}
    # the slider's axis is the joint frame's x turned by the origin's yaw: world y
    j = model.joint("rail")
    k = int(model.joint_body_b[j])
    assert np.allclose(quat_to_matrix(state.body_quat[k]) @ model.joint_axis_b[j], [0, 1, 0], atol=1e-15)
    assert model.limit_names == ("rail/limit",) and (model.limit_lower[0], model.limit_upper[0]) == (-0.2, 0.5)
    # "drone" is free (floating joint), "sensor" (massless, fixed to it) is part of it
    assert "sensor" not in model.body_names and model.body_mass[model.body("drone")] == 2.0
    assert all(model.body_names[model.joint_body_b[j]] != "drone" for j in range(model.n_joints))
    base = model.body("base")
    assert bool(model.body_static[base]) != floating
    if floating:
        assert model.body_mass[base] == 3.0


def test_an_imported_robot_runs_with_lgs_and_its_limits_solved_together():
    """load_model_file gives the impulse method solver lgs: the URDF's revolute limit is then solved together
    through the joints (limit_coupling); another method ignores the option."""
    scene = load_model_file(Path(__file__).parent / "data" / "double_pendulum.urdf")
    assert scene.settings.options == {"solver": "lgs"} and scene.model.n_limits == 1
    method = scene.simulation(contacts=False).method
    assert method.solver == "lgs" and method._limit_coupling is not None
    assert scene.simulation(method="featherstone").method.name == "featherstone"


FOLDED_ARM = """<?xml version="1.0"?>
<robot name="folded">
  <link name="world"/>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 1"/></joint>
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
  </link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="l1">
    <inertial><origin xyz="0.15 0 0"/><mass value="1"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.008" iyz="0" izz="0.008"/></inertial>
    <collision><origin xyz="0.15 0 0"/><geometry><box size="0.3 0.05 0.05"/></geometry></collision>
  </link>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.3 0 0"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="l2">
    <inertial><origin xyz="-0.15 0 -0.05"/><mass value="1"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.008" iyz="0" izz="0.008"/></inertial>
    <collision><origin xyz="-0.2 0 -0.1"/><geometry><box size="0.3 0.05 0.05"/></geometry></collision>
  </link>
</robot>
"""


def test_links_of_a_robot_that_overlap_in_the_files_pose_do_not_collide_and_are_reported(tmp_path):
    """l2 folds back into the base, two joints away, and l1 starts inside it: the import takes those pairs out
    of collision detection and reports them; the arm then swings under gravity with every joint and limit held (before, the pair's
    contact pushed it apart at once: 5 of 12 example-robot-data arms flew apart so)."""
    path = tmp_path / "folded.urdf"
    path.write_text(FOLDED_ARM)
    scene = load_model_file(path)
    m = scene.model
    lines = [ln for ln in scene.builder.import_report.unmapped if "overlap by" in ln]
    # the fixed base is merged into the static "world_geometry"; the first link sits 2.5 cm into it
    assert len(lines) == 2 and all("'world_geometry'" in ln for ln in lines), lines
    excluded = {tuple(p) for p in m.collision_exclude.tolist()}
    base = m.body("world_geometry")
    assert all((min(base, k), max(base, k)) in excluded for k in (m.body("l1"), m.body("l2")))
    sim = scene.simulation()
    for _ in range(300):
        sim.step()
    from impulsim.dynamics.diagnostics import constraint_errors
    assert constraint_errors(m, sim.state).max() <= 1e-5
