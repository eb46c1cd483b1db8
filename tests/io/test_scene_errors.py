"""Bad scene files give one line naming file, line and element, whether the scene reader or the model
compiler finds the problem."""
import pytest

from impulsim.errors import ModelError
from impulsim.io import load_scene, scene_from_string
from impulsim.io.yamlnodes import SceneError

FILE = "arm.yaml"
BASE = """\
settings: {h: 0.001, eps_d: 1.0e-6}
materials:
  steel: {density: 7800}
bodies:
  - name: upper
    shapes: [box: {size: [0.05, 0.05, 0.5]}]
    density: 1000
    position: [0, 0, -0.25]
  - name: forearm
    shapes: [box: {size: [0.05, 0.05, 0.5]}]
    material: steel
    position: [0, 0, -0.75]
joints:
  - {name: shoulder, type: hinge, bodies: [world, upper], anchor: [0, 0, 0], axis: [1, 0, 0]}
  - name: elbow
    type: hinge
    bodies: [upper, forearm]
    anchor: [0, 0, -0.5]
    axis: [1, 0, 0]
servos:
  - {name: s, joint: elbow, kp: 10, setpoints: [[0, 0], [1, 0.5]]}
springs:
  - {name: k, bodies: [world, forearm], stiffness: 10, anchor_a: [0, 0, 1]}
loads:
  - {body: upper, force: [1, 0, 0], end: 0.5}
"""


def test_base_scene_is_valid():
    scene = scene_from_string(BASE, FILE)
    assert scene.model.n_bodies == 3 and scene.model.n_joints == 2


# (what is wrong, text to replace, replacement, line, element, problem)
CASES = [
    ("missing body", "bodies: [upper, forearm]", "bodies: [upper, forarm]", 15, 'joints[1] "elbow"',
     'body "forarm" does not exist'),
    ("negative mass", "    density: 1000\n", "    mass: -1.5\n", 7, 'bodies[0] "upper"',
     "mass must be positive"),
    ("zero-length axis", "axis: [1, 0, 0]\nservos", "axis: [0, 0, 0]\nservos", 19, 'joints[1] "elbow"',
     "axis has zero length"),
    ("YAML syntax", "position: [0, 0, -0.75]", "position: [0, 0, -0.75", 13, "", "YAML syntax error"),
    ("unknown key", "    density: 1000", "    densty: 1000", 7, 'bodies[0] "upper"',
     'unknown key "densty" (did you mean "density"?)'),
    ("wrong type", "position: [0, 0, -0.25]", "position: [0, 0, low]", 8, 'bodies[0] "upper"',
     "must be a number"),
    ("vector length", "position: [0, 0, -0.25]", "position: [0, -0.25]", 8, 'bodies[0] "upper"',
     "must be a list of 3 numbers"),
    ("missing required", "  - name: elbow\n    type: hinge\n", "  - name: elbow\n", 15, 'joints[1] "elbow"',
     'missing required key "type"'),
    ("missing name", "  - name: forearm\n", "  - nam: forearm\n", 9, "bodies[1]", 'missing required key "name"'),
    ("bad step size", "h: 0.001", "h: -0.001", 1, "settings", "h must be positive"),
    ("unknown option", "eps_d: 1.0e-6", "eps_dd: 1.0e-6", 1, "settings", 'unknown setting "eps_dd"'),
    ("unknown joint type", "type: hinge\n    bodies: [upper", "type: hinj\n    bodies: [upper", 16,
     'joints[1] "elbow"', 'unknown type "hinj" (did you mean "hinge"?)'),
    ("key of another joint type", "axis: [1, 0, 0]}", "axis: [1, 0, 0], length: 1}", 14,
     'joints[0] "shoulder"', 'unknown hinge joint key "length"'),
    ("unknown shape", "shapes: [box: {size: [0.05, 0.05, 0.5]}]\n    density",
     "shapes: [cube: {size: [0.05, 0.05, 0.5]}]\n    density", 6, 'bodies[0] "upper": shapes[0]',
     'unknown shape kind "cube"'),
    ("negative size", "shapes: [box: {size: [0.05, 0.05, 0.5]}]\n    density",
     "shapes: [box: {size: [0.05, -0.05, 0.5]}]\n    density", 6, 'bodies[0] "upper": shapes[0] (box)',
     "size must be positive"),
    ("duplicate body name (compiler)", "  - name: forearm", "  - name: upper", 9, 'bodies[1] "upper"',
     "the name is already used"),
    ("hinge without anchor (compiler)", "    anchor: [0, 0, -0.5]\n", "", 15, 'joints[1] "elbow"',
     "needs anchor"),
    ("unknown material (compiler)", "material: steel", "material: stele", 9, 'bodies[1] "forearm"',
     'material "stele" does not exist'),
    ("servo on unknown joint (compiler)", "joint: elbow", "joint: knee", 21, 'servos[0] "s"',
     'joint "knee" does not exist'),
    ("spring to unknown body (compiler)", "bodies: [world, forearm], stiffness", "bodies: [world, hand], stiffness",
     23, 'springs[0] "k"', 'body "hand" does not exist'),
    ("decreasing set-points (compiler)", "[[0, 0], [1, 0.5]]", "[[1, 0], [0, 0.5]]", 21, 'servos[0] "s"',
     "set-point times must not decrease"),
    ("load on unknown body", "{body: upper, force", "{body: uper, force", 25, "loads[0]",
     'body "uper" does not exist'),
    ("duplicate key", "    density: 1000\n", "    density: 1000\n    density: 900\n", 8, "bodies[0]",
     'duplicate key "density"'),
    ("zero quaternion", "position: [0, 0, -0.25]", "position: [0, 0, -0.25]\n    orientation: [0, 0, 0, 0]",
     9, 'bodies[0] "upper"', "zero quaternion"),
    ("negative material density", "steel: {density: 7800}", "steel: {density: -7800}", 3,
     'materials "steel"', "density must not be negative"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_scene_gives_one_line_with_file_line_and_element(case):
    _, old, new, line, element, problem = case
    assert BASE.count(old) == 1, "the mutation must hit exactly one place"
    with pytest.raises(ModelError) as info:
        scene_from_string(BASE.replace(old, new), FILE)
    message = str(info.value)
    assert isinstance(info.value, SceneError)
    assert "\n" not in message
    assert message.startswith(f"{FILE}:{line}: "), message
    assert element in message, message
    assert problem in message, message


def test_compiler_errors_carry_the_builder_where(tmp_path):
    """Errors raised inside compile_model name the element's file:line passed as where=."""
    path = tmp_path / "broken.yaml"
    path.write_text(BASE.replace("bodies: [upper, forearm]", "bodies: [upper, forarm]"))
    with pytest.raises(SceneError) as info:
        load_scene(path)
    assert str(info.value) == f'{path}:15: joints[1] "elbow": body "forarm" does not exist'


@pytest.mark.parametrize("text, problem", [
    ("", "the scene file is empty"),
    ("- a\n- b\n", "must be a mapping"),
    ("joints: []\n", 'missing required key "bodies"'),
    ("bodies: {a: 1}\n", "bodies must be a list"),
    ("bodies: []\nfoo: 1\n", 'unknown top-level key "foo"'),
    ("bodies:\n\t- name: a\n", "YAML syntax error"),
])
def test_malformed_files_give_one_line(text, problem):
    with pytest.raises(SceneError) as info:
        scene_from_string(text, FILE)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{FILE}:") and problem in message, message


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(SceneError, match="no such scene file"):
        load_scene(tmp_path / "nope.yaml")
