"""Bad robot files: one line ``file:line: element: problem``, for URDF (lines found in the XML) and MJCF
(MuJoCo's message reformatted)."""
import pytest

from impulsim.cli import main
from impulsim.io.formats import FormatError, load_model_file

pytest.importorskip("yourdfpy")
pytest.importorskip("mujoco")

URDF_HEAD = '<?xml version="1.0"?>\n<robot name="r">\n  <link name="base"/>\n'
LINK = ('  <link name="arm">\n    <inertial><mass value="1"/>'
        '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>\n{geom}  </link>\n')


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def _one_line(exc):
    msg = str(exc.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


def test_urdf_unknown_joint_type(tmp_path):
    p = _write(tmp_path, "r.urdf", URDF_HEAD + LINK.format(geom="") +
               '  <joint name="j" type="hinge">\n    <parent link="base"/><child link="arm"/>\n  </joint>\n</robot>\n')
    with pytest.raises(FormatError) as exc:
        load_model_file(p)
    assert _one_line(exc) == f"{p}:7: joint \"j\": unknown joint type 'hinge' (URDF has revolute, continuous, " \
                             f"prismatic, fixed, floating, planar)"


def test_urdf_missing_mesh(tmp_path):
    geom = '    <collision>\n      <geometry><mesh filename="package://nopkg/meshes/arm.stl"/></geometry>\n    </collision>\n'
    p = _write(tmp_path, "r.urdf", URDF_HEAD + LINK.format(geom=geom) +
               '  <joint name="j" type="continuous">\n    <parent link="base"/><child link="arm"/>\n  </joint>\n</robot>\n')
    with pytest.raises(FormatError) as exc:
        load_model_file(p)
    msg = _one_line(exc)
    assert msg.startswith(f'{p}:4: link "arm": collision[0]: mesh \'package://nopkg/meshes/arm.stl\': mesh file ')
    assert msg.endswith("does not exist")


def test_urdf_broken_xml(tmp_path):
    p = _write(tmp_path, "r.urdf", URDF_HEAD + '  <link name="arm">\n</robot>\n')
    with pytest.raises(FormatError) as exc:
        load_model_file(p)
    assert _one_line(exc).startswith(f"{p}:5: XML: ")


def test_mjcf_unknown_joint_type(tmp_path):
    p = _write(tmp_path, "m.xml", '<mujoco>\n  <worldbody>\n    <body>\n      <joint type="revolute"/>\n'
               '      <geom size="0.1"/>\n    </body>\n  </worldbody>\n</mujoco>\n')
    with pytest.raises(FormatError) as exc:
        load_model_file(p)
    assert _one_line(exc) == f"{p}:4: <joint>: invalid keyword: 'revolute'"


def test_mjcf_missing_mesh(tmp_path):
    p = _write(tmp_path, "m.xml", '<mujoco>\n  <asset>\n    <mesh name="m" file="nothere.stl"/>\n  </asset>\n'
               '  <worldbody>\n    <geom type="mesh" mesh="m"/>\n  </worldbody>\n</mujoco>\n')
    with pytest.raises(FormatError) as exc:
        load_model_file(p)
    assert _one_line(exc) == f"{p}:3: <mesh>: file 'nothere.stl' does not exist"


def test_mjcf_broken_xml(tmp_path):
    p = _write(tmp_path, "m.xml", '<mujoco>\n  <worldbody>\n    <body>\n  </worldbody>\n</mujoco>\n')
    with pytest.raises(FormatError) as exc:
        load_model_file(p)
    # tinyxml names the element left open and the line it starts on
    assert _one_line(exc) == f"{p}:3: XML: mismatched element (XMLElement name=body)"


def test_cli_prints_the_line_and_exits_2(tmp_path, capsys):
    p = _write(tmp_path, "m.xml", '<mujoco>\n  <worldbody>\n    <body>\n      <joint type="revolute"/>\n'
               '      <geom size="0.1"/>\n    </body>\n  </worldbody>\n</mujoco>\n')
    assert main(["check", str(p)]) == 2
    assert capsys.readouterr().err.strip() == f"impulsim: error: {p}:4: <joint>: invalid keyword: 'revolute'"
