"""Edits while running, through the API: each asserts what the physics or the document must do."""
import numpy as np
import pytest

from impulsim.editing import EditError, LiveScene, SceneDocument
from impulsim.dynamics.diagnostics import constraint_errors
from tests.editing.scenes import TWO_BALLS

CHAIN = """\
# a chain of four links on ball joints, swinging
settings: {h: 0.005, duration: 1, eps_d: 1.0e-8, eps_v: 1.0e-8}
bodies:
  - {name: l0, shapes: [box: {size: [0.1, 0.1, 1.0]}], mass: 1, position: [0, 0, -0.5], velocity: [1.0, 0.3, 0]}
  - {name: l1, shapes: [box: {size: [0.1, 0.1, 1.0]}], mass: 1, position: [0, 0, -1.5], velocity: [-0.5, 1.0, 0]}
  - {name: l2, shapes: [box: {size: [0.1, 0.1, 1.0]}], mass: 1, position: [0, 0, -2.5], velocity: [0.2, -1.0, 0]}
  - {name: l3, shapes: [box: {size: [0.1, 0.1, 1.0]}], mass: 1, position: [0, 0, -3.5], velocity: [1.0, 0.5, 0]}
joints:
  - {name: j0, type: ball, bodies: [world, l0], anchor: [0, 0, 0]}
  - {name: j1, type: ball, bodies: [l0, l1], anchor: [0, 0, -1]}
  - {name: j2, type: ball, bodies: [l1, l2], anchor: [0, 0, -2]}
  - {name: j3, type: ball, bodies: [l2, l3], anchor: [0, 0, -3]}
"""

MOTION = ("body_pos", "body_quat", "body_vel", "body_omega")


def live(text=CHAIN, **kw):
    return LiveScene(SceneDocument.from_text(text, "chain.yaml"), **kw)


def motion_of(scene, name):
    k = scene.model.body(name)
    return [getattr(scene.state, f)[k].copy() for f in MOTION]


def test_removing_a_link_leaves_the_rest_swinging_from_the_same_state():
    scene = live()
    scene.run(0.3)
    before = {n: motion_of(scene, n) for n in ("l0", "l1", "l2")}
    scene.remove("bodies", "l3")                 # takes joint j3 with it
    assert "l3" not in scene.model.body_names and "j3" not in scene.model.joint_names
    for name, values in before.items():          # untouched bodies keep their motion bit for bit
        assert all(np.array_equal(a, b) for a, b in zip(values, motion_of(scene, name)))
    # the edited run goes on exactly as a three-link chain started from that state would
    reference = live(CHAIN.split("  - {name: l3")[0] + "joints:" + CHAIN.split("joints:")[1].split("  - {name: j3")[0])
    reference.sim.state.assign(scene.state)
    reference.sim.state.t, reference.sim.state.step_count = scene.state.t, scene.state.step_count
    for _ in range(40):
        scene.step()
        reference.step()
    for name in ("l0", "l1", "l2"):
        assert all(np.array_equal(a, b) for a, b in zip(motion_of(scene, name), motion_of(reference, name)))
    assert constraint_errors(scene.model, scene.state).max() < 1e-7


def test_changing_a_mass_while_running_keeps_every_body_where_it_was():
    scene = live()
    scene.run(0.2)
    before = {n: motion_of(scene, n) for n in ("l0", "l1", "l2", "l3")}
    scene.set("bodies.l2.mass", 3.0)
    assert scene.model.body_mass[scene.model.body("l2")] == pytest.approx(3.0)
    for name, values in before.items():
        assert all(np.array_equal(a, b) for a, b in zip(values, motion_of(scene, name)))


def test_an_edit_that_cannot_compile_is_refused_and_changes_nothing():
    scene = live()
    scene.run(0.1)
    text, state = scene.doc.text(), scene.state.copy()
    with pytest.raises(EditError, match="refused, nothing changed") as err:
        scene.add("joints", {"name": "bad", "type": "ball", "bodies": ["l0", "nowhere"], "anchor": [0, 0, 0]})
    assert "\n" not in str(err.value)
    assert scene.doc.text() == text
    assert all(np.array_equal(getattr(state, f), getattr(scene.state, f)) for f in MOTION)
    scene.step()                                  # and the simulation runs on


def test_an_element_a_method_cannot_honour_is_refused():
    scene = live(method="featherstone")
    with pytest.raises(EditError, match="nothing changed"):
        # a loop: Featherstone's reduced coordinates need a tree
        scene.add("joints", {"name": "loop", "type": "ball", "bodies": ["world", "l3"], "anchor": [0, 0, -4]})
    assert "loop" not in scene.model.joint_names


def test_a_hinge_added_in_assembling_mode_closes_and_then_the_first_body_stops():
    text = """\
settings: {h: 0.002, duration: 1, eps_d: 1.0e-7, eps_v: 1.0e-7}
bodies:
  - {name: post, shapes: [box: {size: [0.1, 0.1, 1.0]}], mass: 1, position: [0, 0, -0.5]}
  - {name: arm, shapes: [box: {size: [0.1, 0.1, 0.6]}], mass: 1, position: [0.3, 0, -1.25]}
joints:
  - {name: top, type: ball, bodies: [world, post], anchor: [0, 0, 0]}
"""
    scene = live(text)
    scene.run(0.05)
    # the arm's top (0.3, 0, -0.95) is 0.3 m from the post's lower end: the new hinge starts broken
    scene.assemble({"name": "elbow", "type": "hinge", "bodies": ["post", "arm"], "anchor_a": [0, 0, -0.5],
                    "anchor_b": [0, 0, 0.3], "axis": [0, 1, 0]})
    assert scene.assembling is not None and scene.joint_error("elbow") > 0.1
    for _ in range(200):
        scene.step()
        if scene.assembling is None:
            break
    assert scene.assembling is None
    assert scene.joint_error("elbow") <= 1e-7
    post = scene.model.body("post")
    assert np.all(scene.state.body_vel[post] == 0) and np.all(scene.state.body_omega[post] == 0)


@pytest.mark.parametrize("axis", [(0, 1, 0), (0, 0, 1)])
def test_a_joint_assembled_between_falling_bodies_stays_closed_after(axis):
    """Two free balls fall for 2 s (about 20 m/s), then a hinge is assembled between them: once it is within
    eps_d, every following step keeps it within eps_d (stopping only the first ball left 18 m/s between
    them and the joint opened by 3 cm at the next step)."""
    scene = live(TWO_BALLS)
    scene.run(2.0)
    scene.assemble({"name": "pin", "type": "hinge", "bodies": ["a", "b"], "anchor_a": [0.2, 0, 0],
                    "anchor_b": [-0.2, 0, 0], "axis": list(axis)})
    for _ in range(400):
        scene.step()
        if scene.assembling is None:
            break
    assert scene.assembling is None
    for _ in range(100):
        scene.step()
        assert scene.joint_error("pin") <= 1e-6


def test_a_kinematic_body_moves_on_at_its_velocity_with_its_joints_kept_and_back():
    scene = live()
    scene.run(0.1)
    # the last link moves on in a straight line; the three links above hang between the fixed point and it
    scene.set_kinematic("l3", True)
    k = scene.model.body("l3")
    v = scene.state.body_vel[k].copy()
    for _ in range(20):
        scene.step()
        assert np.allclose(scene.state.body_vel[k], v, atol=1e-12)      # prescribed: nothing pushes it
        assert constraint_errors(scene.model, scene.state).max() < 1e-6   # every joint kept
    scene.set_kinematic("l3", False)
    scene.run(0.1)
    assert constraint_errors(scene.model, scene.state).max() < 1e-6
    assert not np.allclose(scene.state.body_vel[scene.model.body("l3")], v)


CYLINDER = """\
# Wagner's Fig. 6.10: a cylinder of 1 m held at both ends by ball joints to points 1.1 m apart
settings: {h: 0.002, duration: 1, eps_d: 1.0e-6, eps_v: 1.0e-6, max_iter_pos: 50}
bodies:
  - name: cyl
    shapes: [cylinder: {radius: 0.05, length: 1.0}]
    mass: 1
    position: [0.5, 0, 0]
    orientation: {axis: [0, 1, 0], angle_deg: 90}
joints:
  - {name: left, type: ball, bodies: [world, cyl], anchor_a: [0, 0, 0], anchor_b: [0, 0, -0.5]}
  - {name: right, type: ball, bodies: [world, cyl], anchor_a: [1.1, 0, 0], anchor_b: [0, 0, 0.5]}
"""


def test_locking_a_component_makes_the_over_determined_cylinder_hang_between_its_points():
    scene = live(CYLINDER, solver="iterative")
    info = scene.step()
    assert not info.converged_pos                 # both joints cannot hold: 0.1 m apart from each other
    scene.lock_components("right", keep=("y", "z"))   # the right joint may now slide along x
    for _ in range(100):
        info = scene.step()
    assert info.converged_pos
    assert max(scene.joint_error("left"), scene.joint_error("right")) <= 1e-6
    k = scene.model.body("cyl")
    assert np.allclose(scene.state.body_pos[k], [0.5, 0, 0], atol=1e-5)   # it hovers, horizontal


def test_undo_of_ten_mixed_edits_restores_the_document_and_the_model():
    scene = live()
    text = scene.doc.text()
    arrays = {k: v.copy() for k, v in vars(scene.model).items() if isinstance(v, np.ndarray)}
    scene.run(0.05)
    scene.set("bodies.l0.mass", 2.0)
    scene.remove("bodies", "l3")
    scene.set_active("joints", "j2", False)
    scene.add("bodies", {"name": "ball", "shapes": [{"sphere": {"radius": 0.1}}], "mass": 0.5,
                         "position": [2, 0, 0]})
    scene.add("springs", {"name": "s", "bodies": ["world", "ball"], "stiffness": 50, "rest_length": 0.5})
    scene.set_kinematic("l1", True)
    scene.set("settings.eps_d", 1e-7)
    scene.set_active("joints", "j2", True)
    scene.paste(scene.copy(["ball"]), offset=(0, 1, 0))
    scene.set("bodies.ball.velocity", [0, 0, 1.0])
    scene.run(0.05)
    for _ in range(10):
        scene.undo()
    assert scene.doc.text() == text
    for key, value in arrays.items():
        assert np.array_equal(getattr(scene.model, key), value), key
    with pytest.raises(EditError, match="nothing to undo"):
        scene.undo()
    for _ in range(10):
        scene.redo()
    assert "ball_copy" in scene.model.body_names and "l3" not in scene.model.body_names


def test_save_and_load_give_the_same_model(tmp_path):
    scene = live()
    scene.run(0.05)
    scene.set("bodies.l0.mass", 2.5)
    scene.set_active("joints", "j3", False)
    path = scene.save(tmp_path / "edited.yaml")
    assert "# a chain of four links" in path.read_text()          # comments kept
    again = LiveScene.load(path)
    for key, value in vars(scene.model).items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(getattr(again.model, key), value), key
    assert "j3" not in again.model.joint_names and "active: false" in path.read_text()


def test_merging_another_scene_adds_its_bodies_as_one_undoable_edit(tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text("bodies:\n  - {name: crate, shapes: [box: {size: [0.2, 0.2, 0.2]}], mass: 2, "
                     "position: [3, 0, 0]}\n")
    scene = live()
    scene.run(0.05)
    scene.merge(other)
    assert "crate" in scene.model.body_names
    scene.undo()
    assert "crate" not in scene.model.body_names


def test_reset_puts_every_body_at_its_start_and_keeps_the_edits():
    scene = live()
    scene.run(0.2)
    scene.set("bodies.l0.mass", 2.0)
    scene.reset()
    assert scene.t == 0.0
    start = SceneDocument.from_text(CHAIN).compile().state
    assert np.array_equal(scene.state.body_pos, start.body_pos)
    assert scene.model.body_mass[scene.model.body("l0")] == pytest.approx(2.0)
