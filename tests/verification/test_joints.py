"""Every joint kind: constrained directions hold within eps_d / eps_v after every step, and the
freedoms the joint allows are really used."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.math import quat_mul, quat_conj, quat_rotate, quat_rotate_inv, quat_to_rotvec
from tests.verification.methods import methods_with, make_method

EPS_D = 1e-6
EPS_V = 1e-6
H = 5e-3
STEPS = 2000
# a measure derived from the relative pose equals a primitive's error to first order; the factor 2
# covers the second-order difference at errors of 1e-6
DERIVED_TOL = 2 * EPS_D
# a freedom counts as used when its coordinate sweeps more than this [m or rad] during the run
USED = 0.05

ANCHOR = (0.25, 0.0, 0.0)
X, Y, Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)

JOINTS = {
    "ball": dict(anchor=ANCHOR),
    "distance": dict(anchor_a=(0.15, 0, 0), anchor_b=(-0.1, 0, 0)),
    "point_on_line": dict(anchor=ANCHOR, axis=Y),
    "point_on_plane": dict(anchor=ANCHOR, axis=X),
    "rotation_lock": dict(),
    "direction": dict(axis=X),
    "double_rotation": dict(axis_a=Z, axis_b=Y),
    "hinge": dict(anchor=ANCHOR, axis=Z),
    "cylindrical": dict(anchor=ANCHOR, axis=X),
    "slider": dict(anchor=ANCHOR, axis=X),
    "universal": dict(anchor=ANCHOR, axis_a=Z, axis_b=Y),
    "fixed": dict(anchor=ANCHOR),
}


def two_bodies(kind, seed=1):
    """Two free boxes (no gravity) joined by one joint, with seeded random velocities."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder(kind, gravity=(0, 0, 0))
    b.add_body("A", shapes=[ims.Box(size=(0.3, 0.2, 0.1))], density=500, velocity=rng.normal(size=3),
               angular_velocity=2 * rng.normal(size=3))
    b.add_body("B", shapes=[ims.Box(size=(0.2, 0.3, 0.15))], density=500, position=(0.5, 0, 0),
               velocity=rng.normal(size=3), angular_velocity=2 * rng.normal(size=3))
    b.add_joint(kind, "j", "A", "B", **JOINTS[kind])
    return b.build()


def relative_measures(model, state, q_rel0):
    """(anchor offset of B from A in A's frame [m], rotation of B relative to A since the start,
    as a rotation vector in A's frame [rad], centre offset in A's frame [m])."""
    a, b = 1, 2
    qa, qb = state.body_quat[a], state.body_quat[b]
    pa = state.body_pos[a] + quat_rotate(qa, model.joint_anchor_a[0])
    pb = state.body_pos[b] + quat_rotate(qb, model.joint_anchor_b[0])
    offset = quat_rotate_inv(qa, pb - pa)
    rot = quat_to_rotvec(quat_mul(quat_mul(quat_conj(qa), qb), quat_conj(q_rel0)))
    centres = quat_rotate_inv(qa, state.body_pos[b] - state.body_pos[a])
    return offset, rot, centres


def split(v, axis):
    along = float(np.dot(v, axis))
    return along, float(np.linalg.norm(v - along * axis))


def run_joint(method, kind):
    model, state = two_bodies(kind)
    sim = ims.Simulation(model, state, method=make_method(method, model, eps_d=EPS_D, eps_v=EPS_V), h=H)
    q_rel0 = quat_mul(quat_conj(state.body_quat[1]), state.body_quat[2])
    samples = []
    for _ in range(STEPS):
        info = sim.step()
        assert info.converged_pos and info.converged_vel
        assert diagnostics.constraint_errors(model, sim.state).max() <= EPS_D
        assert diagnostics.velocity_errors(model, sim.state).max() <= EPS_V
        samples.append(relative_measures(model, sim.state, q_rel0))
    offsets, rots, centres = (np.array(x) for x in zip(*samples))
    return model, offsets, rots, centres


def sweep(values):
    return float(values.max() - values.min())


@pytest.mark.parametrize("method", methods_with("all_joint_kinds"))
@pytest.mark.parametrize("kind", list(JOINTS))
def test_joint_holds_its_constraints_and_uses_its_freedoms(method, kind):
    model, offsets, rots, centres = run_joint(method, kind)
    axis = model.joint_axis_a[0]
    along_t, perp_t = np.array([split(o, axis) for o in offsets]).T if axis.any() else (None, None)
    along_r, perp_r = np.array([split(r, axis) for r in rots]).T if axis.any() else (None, None)
    rot_norm = np.linalg.norm(rots, axis=1)
    check = CHECKS[kind]
    check(model, offsets, rots, centres, along_t, perp_t, along_r, perp_r, rot_norm)


def _point_fixed(offsets):
    assert np.linalg.norm(offsets, axis=1).max() <= DERIVED_TOL


def _all_components_used(v):
    assert min(sweep(v[:, i]) for i in range(3)) > USED


def check_ball(m, offsets, rots, centres, *_):
    _point_fixed(offsets)
    _all_components_used(rots)


def check_distance(m, offsets, rots, centres, *_):
    lengths = np.linalg.norm(offsets, axis=1)
    assert np.abs(lengths - m.prim_target[0]).max() <= DERIVED_TOL
    _all_components_used(offsets / lengths[:, None])


def check_point_on_line(m, offsets, rots, centres, along_t, perp_t, *_):
    assert perp_t.max() <= DERIVED_TOL
    assert sweep(along_t) > USED
    _all_components_used(rots)


def check_point_on_plane(m, offsets, rots, centres, along_t, perp_t, *_):
    assert np.abs(along_t).max() <= DERIVED_TOL
    in_plane = offsets - along_t[:, None] * m.joint_axis_a[0]
    assert sorted(sweep(in_plane[:, i]) for i in range(3))[1] > USED   # two in-plane directions


def check_rotation_lock(m, offsets, rots, centres, *_, rot_norm=None):
    assert np.linalg.norm(rots, axis=1).max() <= DERIVED_TOL
    _all_components_used(centres)


def check_direction(m, offsets, rots, centres, along_t, perp_t, along_r, perp_r, rot_norm):
    assert perp_r.max() <= DERIVED_TOL
    assert sweep(along_r) > USED
    _all_components_used(centres)


def check_double_rotation(m, offsets, rots, centres, *_):
    # two independent rotation directions are used; the third is locked by the constraint itself
    assert sorted(sweep(rots[:, i]) for i in range(3))[1] > USED


def check_hinge(m, offsets, rots, centres, along_t, perp_t, along_r, perp_r, rot_norm):
    _point_fixed(offsets)
    assert perp_r.max() <= DERIVED_TOL
    assert sweep(along_r) > USED


def check_cylindrical(m, offsets, rots, centres, along_t, perp_t, along_r, perp_r, rot_norm):
    assert perp_t.max() <= DERIVED_TOL and perp_r.max() <= DERIVED_TOL
    assert sweep(along_t) > USED and sweep(along_r) > USED


def check_slider(m, offsets, rots, centres, along_t, perp_t, along_r, perp_r, rot_norm):
    assert perp_t.max() <= DERIVED_TOL and rot_norm.max() <= DERIVED_TOL
    assert sweep(along_t) > USED


def check_universal(m, offsets, rots, centres, *_):
    _point_fixed(offsets)
    # both cross-axis angles change: B's rotation has components about axis_a (z) and axis_b (y)
    assert sweep(rots[:, 2]) > USED and sweep(rots[:, 1]) > USED


def check_fixed(m, offsets, rots, centres, *_):
    _point_fixed(offsets)
    assert np.linalg.norm(rots, axis=1).max() <= DERIVED_TOL


CHECKS = {"ball": check_ball, "distance": check_distance, "point_on_line": check_point_on_line,
          "point_on_plane": check_point_on_plane, "rotation_lock": check_rotation_lock,
          "direction": check_direction, "double_rotation": check_double_rotation, "hinge": check_hinge,
          "cylindrical": check_cylindrical, "slider": check_slider, "universal": check_universal,
          "fixed": check_fixed}
