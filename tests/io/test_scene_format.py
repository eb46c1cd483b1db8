"""Scene files describe exactly what the builder does: a YAML scene and the same scene written with
ModelBuilder calls compile to identical Models, for every joint type, shape kind and element."""
import inspect
import math
from dataclasses import fields

import numpy as np
import pytest

import impulsim as ims
from impulsim.geometry import Sphere
from impulsim.io import SHAPE_TYPES, load_scene, register_shape_type, scene_from_string
from impulsim.io.elements import (BODY_READERS, JOINT_PARAMS, JOINT_READERS, LIMIT_READERS, MATERIAL_KEYS,
                                  MOTOR_READERS, SERVO_READERS, SPRING_READERS)
from impulsim.io.rotations import rpy_to_quat
from impulsim.io.yamlnodes import SceneError
from impulsim.math import quat_to_matrix
from impulsim.model.builder import ModelBuilder
from impulsim.model.kinds import JointKind
from impulsim.model.specs import JointSpec

ROUNDING = 1e-14
"""Round-off of a few float64 products of unit-size numbers (a dozen ulps)."""


def assert_models_equal(m1, m2):
    """Every array and name tuple of two models is identical (the source locations may differ)."""
    for f in fields(m1):
        if f.name == "source":
            continue
        a, b = getattr(m1, f.name), getattr(m2, f.name)
        if isinstance(a, np.ndarray):
            assert a.shape == b.shape and np.array_equal(a, b), f.name
        else:
            assert a == b, f.name


TWO_BODIES = """
bodies:
  - {name: a, shapes: [box: {size: [0.1, 0.1, 1.0]}], density: 500, position: [0, 0, 0]}
  - {name: b, shapes: [box: {size: [0.1, 0.1, 1.0]}], density: 500, position: [0, 0, -1]}
"""

JOINT_CASES = {
    "ball": dict(anchor=[0, 0, -0.5]),
    "distance": dict(anchor_a=[0, 0, -0.5], anchor_b=[0, 0, 0.5], length=0.2),
    "point_on_line": dict(anchor=[0, 0, -0.5], axis=[0, 0, 1]),
    "point_on_plane": dict(anchor=[0, 0, -0.5], axis=[0, 0, 1]),
    "rotation_lock": dict(),
    "direction": dict(axis=[1, 0, 0]),
    "double_rotation": dict(axis_a=[1, 0, 0], axis_b=[0, 1, 0]),
    "hinge": dict(anchor=[0, 0, -0.5], axis=[1, 0, 0]),
    "cylindrical": dict(anchor=[0, 0, -0.5], axis=[0, 0, 1]),
    "slider": dict(anchor=[0, 0, -0.5], axis=[0, 0, 1]),
    "universal": dict(anchor=[0, 0, -0.5], axis_a=[1, 0, 0], axis_b=[0, 1, 0]),
    "fixed": dict(anchor=[0, 0, -0.5]),
    "velocity": dict(anchor=[0, 0, -0.5], velocity=[0.1, 0, 0], angular_velocity=[0, 0, 0.2]),
    "thread": dict(anchor_a=[0, 0, -0.5], anchor_b=[0, 0, 0.5], length=0.2),
}


def _two_body_builder():
    b = ModelBuilder("joint")
    for name, z in (("a", 0.0), ("b", -1.0)):
        b.add_body(name, shapes=[ims.Box(size=(0.1, 0.1, 1.0))], density=500, position=(0, 0, z))
    return b


def test_every_joint_kind_has_a_scene_type():
    assert set(JOINT_PARAMS) == {k.name.lower() for k in JointKind}
    assert set(JOINT_CASES) == set(JOINT_PARAMS)


@pytest.mark.parametrize("kind", sorted(JOINT_CASES))
def test_joint_from_yaml_equals_builder(kind):
    params = JOINT_CASES[kind]
    extra = "".join(f", {k}: {v}" for k, v in params.items())
    text = TWO_BODIES + f"joints:\n  - {{name: j, type: {kind}, bodies: [a, b]{extra}}}\n"
    scene = scene_from_string(text, "joint.yaml")
    b = _two_body_builder()
    b.add_joint(kind, "j", "a", "b", **params)
    model, state = b.build()
    assert_models_equal(scene.model, model)
    assert np.array_equal(scene.state.body_pos, state.body_pos)


KITCHEN_SINK = """
name: sink
gravity: [0, 0, -3.7]
materials:
  rubber: {restitution: 0.8, static_friction: 0.9, dynamic_friction: 0.7, density: 1100}
bodies:
  - name: ground
    static: true
    shapes: [box: {size: [10, 10, 0.1]}]
  - name: ball
    shapes: [sphere: {radius: 0.2, material: rubber}]
    material: rubber
    position: [0, 0, 1]
    velocity: [1, 0, 0]
    angular_velocity: [0, 2, 0]
    collision_group: 2
    collision_mask: 5
  - name: can
    shapes:
      - cylinder: {radius: 0.1, length: 0.4, position: [0, 0, 0.1], orientation: {axis: [1, 0, 0], angle: 0.3}}
      - capsule: {radius: 0.05, length: 0.2, orientation: {rpy_deg: [10, 20, 30]}}
    mass: 2.5
    position: [1, 0, 1]
    orientation: [0.9, 0.1, 0.2, 0.3]
  - name: brick
    mass: 3
    inertia: [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.3]]
    com: [0.01, 0, 0]
    position: [2, 0, 1]
    orientation: {axis: [0, 0, 1], angle_deg: 45}
  - name: conveyor
    kinematic: true
    position: [3, 0, 0]
    velocity: [0.5, 0, 0]
joints:
  - {name: hinge1, type: hinge, bodies: [ground, can], anchor_a: [1, 0, 1.5], anchor_b: [0, 0, 0.5], axis_a: [0, 1, 0]}
  - {name: slide, type: slider, bodies: [can, brick], anchor: [2, 0, 1], axis: [1, 0, 0]}
motors:
  - {name: m1, joint: hinge1, effort: 0.5, coordinate: angle}
servos:
  - {name: s1, joint: slide, mode: position, kp: 10, ki: 1, kd: 0.5, limit: 7, setpoints: [[0, 0], [1, 0.2]], interpolate: true}
  - {name: s2, joint: hinge1, mode: angular_velocity, kp: 3, setpoints: 1.5}
springs:
  - {name: k1, bodies: [world, ball], stiffness: 40, damping: 0.3, rest_length: 0.5, anchor_a: [0, 0, 2], anchor_b: [0, 0, 0.1]}
collisions:
  exclude: [[ball, can]]
  allow: [[can, brick]]
"""


def _kitchen_sink_builder():
    b = ModelBuilder("sink", gravity=(0, 0, -3.7))
    b.add_material("rubber", restitution=0.8, static_friction=0.9, dynamic_friction=0.7, density=1100)
    b.add_body("ground", static=True, shapes=[ims.Box(size=(10, 10, 0.1))])
    b.add_body("ball", shapes=[ims.Sphere(radius=0.2, material="rubber")], material="rubber",
               position=(0, 0, 1), velocity=(1, 0, 0), angular_velocity=(0, 2, 0), collision_group=2,
               collision_mask=5)
    cyl_q = np.array([math.cos(0.15), math.sin(0.15), 0, 0])
    cap_q = rpy_to_quat(*np.radians([10, 20, 30]))
    b.add_body("can", shapes=[ims.Cylinder(radius=0.1, length=0.4, position=(0, 0, 0.1), orientation=cyl_q),
                              ims.Capsule(radius=0.05, length=0.2, orientation=cap_q)],
               mass=2.5, position=(1, 0, 1), orientation=np.array([0.9, 0.1, 0.2, 0.3]) / np.linalg.norm(
                   [0.9, 0.1, 0.2, 0.3]))
    b.add_body("brick", mass=3, inertia=[[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.3]], com=(0.01, 0, 0),
               position=(2, 0, 1), orientation=(math.cos(math.pi / 8), 0, 0, math.sin(math.pi / 8)))
    b.add_body("conveyor", kinematic=True, position=(3, 0, 0), velocity=(0.5, 0, 0))
    b.add_hinge("hinge1", "ground", "can", anchor_a=(1, 0, 1.5), anchor_b=(0, 0, 0.5), axis_a=(0, 1, 0))
    b.add_slider("slide", "can", "brick", anchor=(2, 0, 1), axis=(1, 0, 0))
    b.add_motor("m1", "hinge1", effort=0.5, coordinate="angle")
    b.add_servo("s1", "slide", "position", kp=10, ki=1, kd=0.5, limit=7, setpoints=[(0, 0), (1, 0.2)],
                interpolate=True)
    b.add_servo("s2", "hinge1", "angular_velocity", kp=3, setpoints=[(0.0, 1.5)])
    b.add_spring("k1", "world", "ball", stiffness=40, damping=0.3, rest_length=0.5, anchor_a=(0, 0, 2),
                 anchor_b=(0, 0, 0.1))
    b.exclude_collision("ball", "can")
    b.allow_collision("can", "brick")
    return b


def test_every_element_from_yaml_equals_builder():
    scene = scene_from_string(KITCHEN_SINK, "sink.yaml")
    model, state = _kitchen_sink_builder().build()
    assert_models_equal(scene.model, model)
    for f in fields(state):
        assert np.array_equal(np.asarray(getattr(scene.state, f.name)), np.asarray(getattr(state, f.name)),
                              equal_nan=True), f.name


def test_axis_angle_and_rpy_match_rotation_matrices():
    """axis-angle: R = cos a I + sin a [n]x + (1 - cos a) n nᵀ; rpy: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    roll, pitch, yaw = 0.3, -0.7, 1.9
    text = TWO_BODIES.replace("position: [0, 0, 0]}",
                              f"position: [0, 0, 0], orientation: {{rpy: [{roll}, {pitch}, {yaw}]}}}}")
    text = text.replace("position: [0, 0, -1]}",
                        "position: [0, 0, -1], orientation: {axis: [1, 2, 2], angle_deg: 100}}")
    scene = scene_from_string(text, "rot.yaml")
    c, s = np.cos, np.sin
    Rx = np.array([[1, 0, 0], [0, c(roll), -s(roll)], [0, s(roll), c(roll)]])
    Ry = np.array([[c(pitch), 0, s(pitch)], [0, 1, 0], [-s(pitch), 0, c(pitch)]])
    Rz = np.array([[c(yaw), -s(yaw), 0], [s(yaw), c(yaw), 0], [0, 0, 1]])
    n, a = np.array([1, 2, 2]) / 3.0, np.radians(100)
    K = np.array([[0, -n[2], n[1]], [n[2], 0, -n[0]], [-n[1], n[0], 0]])
    R_axis = np.cos(a) * np.eye(3) + np.sin(a) * K + (1 - np.cos(a)) * np.outer(n, n)
    model, state = scene.model, scene.state
    for k, expected in ((1, Rz @ Ry @ Rx), (2, R_axis)):
        # the box's principal frame is its user frame (diagonal inertia), so body_quat is the user pose
        assert np.array_equal(model.body_frame_quat[k], [1, 0, 0, 0])
        np.testing.assert_allclose(quat_to_matrix(state.body_quat[k]), expected, atol=ROUNDING)


def test_shape_kinds_give_their_analytic_mass():
    """Mass = density × volume: sphere 4/3 π r³, box abc, cylinder π r² l, capsule π r² l + 4/3 π r³."""
    rho, r, l = 700.0, 0.1, 0.3
    cases = {"sphere": ("{radius: 0.1}", 4 / 3 * math.pi * r ** 3),
             "box": ("{size: [0.1, 0.2, 0.3]}", 0.1 * 0.2 * 0.3),
             "cylinder": ("{radius: 0.1, length: 0.3}", math.pi * r * r * l),
             "capsule": ("{radius: 0.1, length: 0.3}", math.pi * r * r * l + 4 / 3 * math.pi * r ** 3)}
    assert set(cases) <= set(SHAPE_TYPES)
    for kind, (params, volume) in cases.items():
        text = f"bodies:\n  - {{name: s, shapes: [{kind}: {params}], density: {rho}}}\n"
        scene = scene_from_string(text, f"{kind}.yaml")
        assert scene.model.body_mass[1] == pytest.approx(rho * volume, rel=ROUNDING), kind


UNIT_TETRAHEDRON = "[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]"
TETRAHEDRON_FACES = "[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]"   # counter-clockwise seen from outside


def test_point_set_shapes_and_the_half_space():
    """The unit tetrahedron has volume 1/6 as a convex hull and as a closed mesh; a half-space has no
    volume and may only sit on a static (or kinematic) body."""
    text = f"""
bodies:
  - {{name: ground, static: true, shapes: [half_space: ]}}
  - {{name: hull, shapes: [convex_hull: {{points: {UNIT_TETRAHEDRON}}}], density: 600}}
  - {{name: mesh, shapes: [mesh: {{vertices: {UNIT_TETRAHEDRON}, triangles: {TETRAHEDRON_FACES}}}], density: 600}}
"""
    scene = scene_from_string(text, "sets.yaml")
    np.testing.assert_allclose(scene.model.body_mass[2:], 600 / 6, rtol=ROUNDING)
    kinds = [type(b.shapes[0]) for b in scene.builder.bodies]
    assert kinds == [ims.geometry.HalfSpace, ims.geometry.ConvexHull, ims.geometry.TriangleMesh]
    with pytest.raises(SceneError, match=r'^sets.yaml:3: bodies\[0\] "ground": shapes\[0\]: HalfSpace has no volume'):
        scene_from_string(text.replace("static: true, ", ""), "sets.yaml")


def test_registered_shape_type_is_read_from_yaml():
    class Ball(Sphere):
        """A sphere under another name, standing in for a new shape class."""

    def diameter(el, node, what):
        from impulsim.io.yamlnodes import number
        return number(el, node, what, positive=True) / 2

    register_shape_type("ball_by_diameter", Ball, {"radius": diameter}, ("radius",))
    try:
        scene = scene_from_string("bodies:\n  - {name: s, shapes: [ball_by_diameter: {radius: 0.4}], "
                                  "density: 1000}\n", "ext.yaml")
        assert scene.builder.bodies[0].shapes[0].radius == 0.2
        assert isinstance(scene.builder.bodies[0].shapes[0], Ball)
    finally:
        del SHAPE_TYPES["ball_by_diameter"]


def test_scene_keys_cover_the_builder_arguments():
    """When the builder gains an argument, the scene format must learn it too."""
    def args(method, skip=("self", "where")):
        return {p for p in inspect.signature(getattr(ModelBuilder, method)).parameters if p not in skip}

    assert args("add_body") == set(BODY_READERS)
    assert args("add_motor") == set(MOTOR_READERS)
    assert args("add_limit") == set(LIMIT_READERS)
    assert args("add_servo") == set(SERVO_READERS)
    assert args("add_spring") - {"body_a", "body_b"} | {"bodies"} == set(SPRING_READERS)
    frame = {f.name for f in fields(JointSpec)} - {"name", "kind", "body_a", "body_b", "where"}
    assert frame == set(JOINT_READERS)
    assert args("add_joint") - {"kind", "name", "body_a", "body_b"} == set(JOINT_READERS)
    from impulsim.model.specs import Material
    assert set(MATERIAL_KEYS) == {f.name for f in fields(Material)} - {"name"}


def test_settings_reach_the_method():
    text = TWO_BODIES + ("settings: {h: 0.002, duration: 0.5, record_every: 3, eps_d: 1e-5, eps_v: 2.0e-5,\n"
                         "           max_iter_pos: 50, max_iter_vel: 60, integrator: euler, solver: iterative}\n")
    scene = scene_from_string(text, "s.yaml")
    s = scene.settings
    assert (s.h, s.duration, s.record_every, s.method) == (0.002, 0.5, 3, "impulse")
    method = scene.make_method()
    assert (method.eps_d, method.eps_v, method.max_iter_pos, method.max_iter_vel) == (1e-5, 2e-5, 50, 60)
    assert method.integrator.name == "EULER"
    sim = scene.simulation()
    assert sim.h == 0.002 and sim.method.eps_d == 1e-5


def test_merge_keys_share_definitions_kept_under_templates():
    definitions = "link: &link {shapes: [box: {size: [0.1, 0.1, 1]}], mass: 1}\n"
    bodies = """bodies:
  - {<<: *link, name: a, position: [0, 0, -0.5]}
  - {<<: *link, name: b, position: [0, 0, -1.5], mass: 2}
"""
    with pytest.raises(SceneError, match='unknown top-level key "link"'):
        scene_from_string(definitions + bodies, "m.yaml")
    scene = scene_from_string("templates:\n  " + definitions + bodies, "m.yaml")
    assert list(scene.model.body_mass) == [0.0, 1.0, 2.0]
    assert scene.state.body_pos[2, 2] == -1.5


def test_load_scene_reads_a_file_and_names_the_scene_after_it(tmp_path):
    path = tmp_path / "two_links.yaml"
    path.write_text(TWO_BODIES)
    scene = load_scene(path)
    assert scene.name == "two_links" and scene.file == str(path)
    assert scene.model.body_names == ("world", "a", "b")


def test_timed_load_gives_the_angular_impulse_of_its_window():
    """A torque τ acting for exactly one step h gives a free body the angular momentum τ h (no gravity)."""
    h, tau = 0.01, np.array([0.0, 0.0, 2.0])
    text = f"""
gravity: [0, 0, 0]
settings: {{h: {h}}}
bodies: [{{name: top, shapes: [sphere: {{radius: 0.1}}], mass: 1}}]
loads: [{{body: top, torque: [0, 0, 2.0], end: {h}}}]
"""
    scene = scene_from_string(text, "load.yaml")
    sim = scene.simulation()
    sim.step()
    L1 = ims.diagnostics.angular_momentum(scene.model, sim.state)
    for _ in range(3):
        sim.step()
    L4 = ims.diagnostics.angular_momentum(scene.model, sim.state)
    np.testing.assert_allclose(L1, tau * h, atol=ROUNDING)
    np.testing.assert_allclose(L4, tau * h, atol=ROUNDING)
