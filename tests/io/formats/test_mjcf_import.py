"""MJCF import of gymnasium's MuJoCo models: masses, centres, inertia tensors and the joint tree equal
MuJoCo's compiled values (mj_kinematics at qpos0), to 1e-9."""
import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from impulsim.io.formats import FormatWarning  # noqa: E402
from impulsim.io.mjcf import load_mjcf  # noqa: E402
from impulsim.math import quat_to_matrix  # noqa: E402
from tests.io.formats.sources import MJCF_MODELS, mjcf_path  # noqa: E402

TOL = 1e-9


def _compiled(path):
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    mujoco.mj_kinematics(m, d)
    return m, d


@pytest.mark.parametrize("rel", MJCF_MODELS)
def test_mjcf_masses_inertias_and_joint_tree_equal_mujocos(rel):
    path = mjcf_path(rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, state = load_mjcf(path).build()
    m, d = _compiled(path)
    name = lambda i: mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, i) or f"body{i}"  # noqa: E731
    roots = sorted({int(w) for w in m.body_weldid[1:] if w != 0})
    assert sorted(model.body_names[k] for k in range(model.n_bodies) if model.body_inv_mass[k] > 0) == \
        sorted(name(r) for r in roots)
    total = 0.0
    for r in roots:
        members = [b for b in range(m.nbody) if m.body_weldid[b] == r]
        mass = sum(m.body_mass[b] for b in members)
        com = sum(m.body_mass[b] * d.xipos[b] for b in members) / mass
        I = np.zeros((3, 3))
        for b in members:
            R = d.ximat[b].reshape(3, 3)
            rr = d.xipos[b] - com
            I += R @ np.diag(m.body_inertia[b]) @ R.T + m.body_mass[b] * (rr @ rr * np.eye(3) - np.outer(rr, rr))
        k = model.body(name(r))
        Rk = quat_to_matrix(state.body_quat[k])
        assert abs(model.body_mass[k] - mass) <= TOL * max(1, mass)
        assert np.max(np.abs(state.body_pos[k] - com)) <= TOL
        assert np.max(np.abs(Rk @ np.diag(model.body_inertia[k]) @ Rk.T - I)) <= TOL * max(1, np.abs(I).max())
        total += mass
    assert abs(total - sum(m.body_mass[b] for b in range(1, m.nbody) if m.body_weldid[b] != 0)) <= TOL * total
    # single hinge and slide joints: same bodies, anchor and axis as MuJoCo's
    for j in range(m.njnt):
        b = int(m.jnt_bodyid[j])
        if m.body_jntnum[b] != 1 or int(m.jnt_type[j]) not in (2, 3):
            continue
        jn = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        jj = model.joint(jn)
        parent = int(m.body_weldid[m.body_parentid[b]])
        assert model.body_names[model.joint_body_b[jj]] == name(b)
        assert model.body_names[model.joint_body_a[jj]] == ("world" if parent == 0 else name(parent))
        k = int(model.joint_body_b[jj])
        Rk = quat_to_matrix(state.body_quat[k])
        assert np.max(np.abs(Rk @ model.joint_axis_b[jj] - d.xaxis[j])) <= TOL
        assert np.max(np.abs(state.body_pos[k] + Rk @ model.joint_anchor_b[jj] - d.xanchor[j])) <= TOL


def test_humanoid_maps_multi_hinge_bodies_to_universal_and_ball_joints_and_says_what_it_drops():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        builder = load_mjcf(mjcf_path("humanoid.xml"))
    kinds = {j.name: j.kind.name for j in builder.joints}
    assert kinds["right_hip_x+right_hip_z+right_hip_y"] == "BALL"
    assert kinds["right_shoulder1+right_shoulder2"] == "UNIVERSAL"
    lines = builder.import_report.unmapped
    assert len([w for w in caught if issubclass(w.category, FormatWarning)]) == len(lines)
    assert any('joint "right_knee": damping, armature not mapped' in l for l in lines)
    assert any("tendons not mapped" in l for l in lines)


def test_body_with_joints_that_have_no_single_impulsim_joint_is_refused(tmp_path):
    from impulsim.io.formats import FormatError
    f = tmp_path / "bad.xml"
    f.write_text('<mujoco>\n<worldbody>\n<body name="b">\n<joint name="s" type="slide" axis="1 0 0"/>\n'
                 '<joint name="h" type="hinge" axis="0 1 0"/>\n<geom size="0.1"/>\n</body>\n</worldbody>\n</mujoco>\n')
    with pytest.raises(FormatError, match=r'bad.xml:3: body "b": joints slide "s", hinge "h" have no single'):
        load_mjcf(f)
