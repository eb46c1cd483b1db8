"""Display-only geometry of imported models: placed where the source file puts it, and drawn by the viewer."""
import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from impulsim.io import load_scene  # noqa: E402
from impulsim.io.shape_meshes import visual_meshes  # noqa: E402
from impulsim.math import quat_to_matrix  # noqa: E402
from tests.io.formats.sources import DATA, ROBOTS  # noqa: E402


def _scene(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_scene(path)


def test_mjcf_display_geom_sits_where_mujoco_puts_it():
    """double_pendulum.xml's sphere (contype = conaffinity = 0) is display only: its mesh, placed with the
    lower link's pose, is centred on MuJoCo's geom_xpos to round-off and as wide as its 0.05 m radius."""
    path = DATA / "double_pendulum.xml"
    scene = _scene(path)
    (mesh,) = visual_meshes(scene.model, scene.builder.import_report.visuals)
    k = mesh.body
    world = scene.state.body_pos[k] + mesh.vertices @ quat_to_matrix(scene.state.body_quat[k]).T
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    sphere = int(np.flatnonzero(m.geom_type == mujoco.mjtGeom.mjGEOM_SPHERE)[0])
    centre = 0.5 * (world.min(axis=0) + world.max(axis=0))
    assert np.allclose(centre, d.geom_xpos[sphere], atol=1e-9)
    assert np.allclose(np.linalg.norm(world - d.geom_xpos[sphere], axis=1).max(), 0.05, rtol=1e-9)


def test_urdf_visuals_cover_every_linked_body():
    """A URDF's <visual> meshes are kept for display: every body with a visual gets one merged mesh."""
    path = ROBOTS / "ur_description/urdf/ur5_robot.urdf"
    if not path.is_file():
        pytest.skip("example-robot-data is not installed")
    scene = _scene(path)
    visuals = scene.builder.import_report.visuals
    meshes = visual_meshes(scene.model, visuals)
    assert {m.body for m in meshes} == {scene.model.body_names.index(b) for b, _ in visuals}
    assert all(len(m.faces) > 0 and np.isfinite(m.vertices).all() for m in meshes)


def test_viewer_draws_the_display_geometry_with_its_body():
    pytest.importorskip("viser", reason="the viewer needs viser (pip install 'impulsim[viewer]')")
    from impulsim.viewer.app import view_scene
    from tests.viewer.browser import free_port
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        viewer = view_scene(str(DATA / "double_pendulum.xml"), port=free_port(), open_browser=False)
    try:
        assert len(viewer.visual_handles) == 1
        assert viewer.visual_handles[0].name.startswith("/bodies/lower")    # a child: it moves with the link
        shapes = [viewer.handles[m.body] for m in viewer.meshes]
        # the display meshes alone by default; the collision shapes on demand, and hidden again
        assert shapes and all(h.opacity == 0.0 for h in shapes)
        viewer.show_collision_shapes(True)
        assert all(h.opacity == 1.0 for h in shapes) and viewer.visual_handles[0].visible
        viewer.show_collision_shapes(False)
        assert all(h.opacity == 0.0 for h in shapes)
        assert "collision shapes" in viewer.inputs
    finally:
        viewer.stop()
