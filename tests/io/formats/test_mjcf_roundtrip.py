"""Round trip: scene → MJCF (export) → MuJoCo's compiler → import gives the same model arrays and state.

Frames may differ by construction (the import's user frame is MuJoCo's inertial frame, i.e. impulsim's
principal frame), so everything is compared in the world at the initial state: masses, principal moments,
centres, orientations, joint kinds, bodies, anchors and axes, limits, shapes (kind, size, pose; hull
vertices as sets, to MuJoCo's float32) and motors. Digits are printed with 17 significant figures; MuJoCo's compiler recomputes
frames (quaternion normalisation, mesh re-centring), hence 1e-12 rather than bit equality.
"""
import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from impulsim.io import load_scene  # noqa: E402
from impulsim.io.mjcf import load_mjcf  # noqa: E402
from impulsim.io.mjcf_export import export_mjcf  # noqa: E402
from impulsim.math import quat_to_matrix  # noqa: E402
from tests.io.formats.sources import DATA  # noqa: E402

TOL = 1e-12


def _world_shapes(model, state, k):
    R, p = quat_to_matrix(state.body_quat[k]), state.body_pos[k]
    out = []
    for s in np.nonzero(model.shape_body == k)[0]:
        v = model.shape_verts[model.shape_vert_start[s]:model.shape_vert_start[s + 1]]
        out.append((int(model.shape_kind[s]), model.shape_params[s], p + R @ model.shape_pos[s],
                    R @ quat_to_matrix(model.shape_quat[s]), p + v @ R.T))
    return out


def test_scene_to_mjcf_and_back_gives_the_same_model(tmp_path):
    scene = load_scene(DATA / "roundtrip.yaml")
    a, sa = scene.model, scene.state
    export_mjcf(a, sa, tmp_path / "roundtrip.xml", h=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b, sb = load_mjcf(tmp_path / "roundtrip.xml").build()
    assert a.body_names == b.body_names and a.joint_names == b.joint_names and a.motor_names == b.motor_names
    assert np.array_equal(a.body_static, b.body_static)
    for k in range(1, a.n_bodies):
        Ra, Rb = quat_to_matrix(sa.body_quat[k]), quat_to_matrix(sb.body_quat[k])
        if a.body_inv_mass[k] > 0:
            assert abs(a.body_mass[k] - b.body_mass[k]) <= TOL * a.body_mass[k]
            assert np.allclose(Ra @ np.diag(a.body_inertia[k]) @ Ra.T, Rb @ np.diag(b.body_inertia[k]) @ Rb.T,
                               rtol=0, atol=TOL * a.body_inertia[k].max())
            assert np.max(np.abs(sa.body_pos[k] - sb.body_pos[k])) <= TOL
            assert np.max(np.abs(Ra - Rb)) <= TOL
        for sha, shb in zip(_world_shapes(a, sa, k), _world_shapes(b, sb, k), strict=True):
            assert sha[0] == shb[0]
            assert np.allclose(sha[1], shb[1], rtol=0, atol=TOL)
            if sha[4].size:
                # hulls: MuJoCo re-centres the mesh frame and keeps vertices in float32 (relative rounding
                # 6e-8 on coordinates below 2 m): each vertex has its partner within 2e-7 m
                assert sha[4].shape == shb[4].shape
                gaps = np.linalg.norm(sha[4][:, None, :] - shb[4][None, :, :], axis=2)
                assert np.max(np.min(gaps, axis=1)) <= 2e-7 and np.max(np.min(gaps, axis=0)) <= 2e-7
            else:
                assert np.max(np.abs(sha[2] - shb[2])) <= TOL
                assert np.max(np.abs(sha[3] - shb[3])) <= TOL
    assert np.array_equal(a.joint_kind, b.joint_kind)
    assert np.array_equal(a.joint_body_a, b.joint_body_a) and np.array_equal(a.joint_body_b, b.joint_body_b)
    for j in range(a.n_joints):
        k = a.joint_body_b[j]
        for arr in ("joint_anchor_b", "joint_axis_b"):
            va = quat_to_matrix(sa.body_quat[k]) @ getattr(a, arr)[j]
            vb = quat_to_matrix(sb.body_quat[k]) @ getattr(b, arr)[j]
            assert np.max(np.abs(va - vb)) <= TOL, (a.joint_names[j], arr)
    assert np.array_equal(a.limit_joint, b.limit_joint) and np.array_equal(a.limit_coord, b.limit_coord)
    assert np.allclose(a.limit_lower, b.limit_lower, rtol=0, atol=TOL)
    assert np.allclose(a.limit_upper, b.limit_upper, rtol=0, atol=TOL)
    assert np.array_equal(a.motor_joint, b.motor_joint)
    assert a.n_prims == b.n_prims and np.array_equal(a.prim_kind, b.prim_kind)


def test_exported_scene_moves_in_mujoco_as_in_featherstone_and_lagrange():
    """The exported model's dynamics: MuJoCo's RK4 run of the export follows the RK4 methods (hinges, a
    ball, a slider, a free body) over 0.3 s to 1e-6 (measured: 1e-8 m, 5e-12 rad)."""
    from impulsim.bench.compare import compare_file
    rows = {r.method: r for r in compare_file(DATA / "roundtrip.yaml", ("lagrange", "featherstone"), duration=0.3,
                                              limits=False)}
    assert "impulsim's MJCF export" in rows["mujoco"].note
    for name in ("lagrange", "featherstone"):
        assert rows[name].com_diff < 1e-6 and rows[name].coord_diff < 1e-6, rows[name]
