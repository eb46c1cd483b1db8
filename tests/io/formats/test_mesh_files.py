"""Mesh files in scene files: static bodies get the triangle mesh, moving bodies convex pieces; the mass
of a body built from a mesh file is its density times the mesh's volume."""
import warnings

import numpy as np
import pytest

trimesh = pytest.importorskip("trimesh")

from impulsim.geometry import ConvexHull, TriangleMesh  # noqa: E402
from impulsim.io import SceneError, load_scene  # noqa: E402
from impulsim.io.formats import FormatWarning  # noqa: E402


def _l_shape():
    """An L made of two boxes (1 × 0.2 × 0.2 and 0.2 × 0.2 × 0.8 on top of its end): volume 0.04 + 0.032 m³."""
    a = trimesh.creation.box((1.0, 0.2, 0.2))
    b = trimesh.creation.box((0.2, 0.2, 0.8))
    b.apply_translation((0.4, 0.0, 0.5))
    return trimesh.boolean.union([a, b], engine="manifold")


@pytest.mark.parametrize("suffix", [".stl", ".obj", ".ply", ".glb"])
def test_convex_mesh_file_on_a_moving_body_has_the_mass_of_its_volume(tmp_path, suffix):
    box = trimesh.creation.box((0.3, 0.2, 0.1))
    box.export(tmp_path / f"part{suffix}")
    (tmp_path / "scene.yaml").write_text(
        "bodies:\n"
        "  - name: part\n"
        "    density: 500\n"
        f"    shapes: [mesh: {{file: part{suffix}, scale: 2.0}}]\n")
    scene = load_scene(tmp_path / "scene.yaml")
    shapes = scene.builder.bodies[0].shapes
    assert len(shapes) == 1 and isinstance(shapes[0], ConvexHull)
    # STL and GLB store float32 coordinates (relative rounding 6e-8 per coordinate, three in a volume)
    assert scene.model.body_mass[1] == pytest.approx(500 * 0.6 * 0.4 * 0.2, rel=1e-6)
    # principal moments of the 0.6 × 0.4 × 0.2 box
    m = scene.model.body_mass[1]
    expected = sorted(m / 12 * np.array([0.4**2 + 0.2**2, 0.6**2 + 0.2**2, 0.6**2 + 0.4**2]))
    assert np.allclose(sorted(scene.model.body_inertia[1]), expected, rtol=1e-6)


def test_non_convex_mesh_on_a_moving_body_becomes_convex_parts_and_says_so(tmp_path):
    pytest.importorskip("coacd")
    _l_shape().export(tmp_path / "l.stl")
    (tmp_path / "scene.yaml").write_text(
        "bodies:\n  - {name: ground, static: true, shapes: [mesh: {file: l.stl}]}\n"
        "  - {name: l, density: 1000, position: [0, 0, 2], shapes: [mesh: {file: l.stl}]}\n")
    with pytest.warns(FormatWarning, match=r"scene.yaml:3: bodies\[1\] \"l\": mesh l.stl is not convex: \d+ convex parts"):
        scene = load_scene(tmp_path / "scene.yaml")
    static, moving = scene.builder.bodies[0].shapes, scene.builder.bodies[1].shapes
    assert len(static) == 1 and isinstance(static[0], TriangleMesh) and static[0].closed
    assert len(moving) >= 2 and all(isinstance(s, ConvexHull) for s in moving)
    # CoACD's parts approximate the L: their volume is within 5 % of the L's 0.072 m³
    assert scene.model.body_mass[2] == pytest.approx(1000 * 0.072, rel=0.05)


def test_missing_mesh_file_in_a_scene_names_file_and_line(tmp_path):
    (tmp_path / "scene.yaml").write_text("bodies:\n  - name: part\n    shapes:\n      - mesh: {file: nothere.stl}\n")
    with pytest.raises(SceneError, match=r'scene.yaml:4: bodies\[0\] "part": shapes\[0\] \(mesh\): mesh file .*nothere.stl'
                                         r".* does not exist"):
        load_scene(tmp_path / "scene.yaml")


URDF_MESH = """<?xml version="1.0"?>
<robot name="meshy">
  <link name="base">
    <collision><geometry><mesh filename="package://mypkg/meshes/l.stl"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision><geometry><mesh filename="../meshes/l.stl" scale="0.5 0.5 0.5"/></geometry></collision>
    <visual><geometry><mesh filename="package://mypkg/meshes/l.stl"/></geometry></visual>
  </link>
  <joint name="j" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/></joint>
</robot>
"""


@pytest.mark.parametrize("convex", ["hull", "decompose"])
def test_urdf_mesh_paths_and_non_convex_collision_meshes(tmp_path, convex):
    if convex == "decompose":
        pytest.importorskip("coacd")
    from impulsim.io.urdf import load_urdf
    from impulsim.io.meshfiles import VisualMesh
    (tmp_path / "mypkg" / "meshes").mkdir(parents=True)
    (tmp_path / "mypkg" / "urdf").mkdir()
    _l_shape().export(tmp_path / "mypkg" / "meshes" / "l.stl")
    p = tmp_path / "mypkg" / "urdf" / "meshy.urdf"
    p.write_text(URDF_MESH)
    with pytest.warns(FormatWarning, match=r'meshy.urdf:6: link "arm": collision\[0\]: mesh l.stl is not convex'):
        builder = load_urdf(p, convex=convex)
    base, arm = builder.bodies
    assert base.static and len(base.shapes) == 1 and isinstance(base.shapes[0], TriangleMesh)   # package://
    assert all(isinstance(s, ConvexHull) for s in arm.shapes)                                  # ../ relative
    assert (len(arm.shapes) == 1) == (convex == "hull")
    # the scale 0.5 halves the L: every hull point within the scaled L's bounds (0.5 × [-0.5, 0.5] in x)
    pts = np.vstack([s.points for s in arm.shapes])
    assert np.max(np.abs(pts[:, 0])) <= 0.25 + 1e-6
    (body, visual), = builder.import_report.visuals
    assert body == "arm" and isinstance(visual, VisualMesh) and visual.file.endswith("l.stl")
