"""The recording's diagnostics in plain Python give exactly the values of the compiled kernels they replace.

The diagnostics avoid compiling kernels of their own (a recording evaluates them after every step); they
repeat the kernels' floating-point operations in the same order, so the values must be equal to the last
bit, not just close. The references below are the compiled array-argument kernels of prim_errors and
coordinates, over random poses and velocities (fixed seeds), far from the scenes' initial states.
"""
from pathlib import Path

import numpy as np
import pytest

from impulsim.dynamics import diagnostics as D
from impulsim.dynamics.coordinates import coordinate_value
from impulsim.dynamics.prim_errors import position_error, velocity_error, impulse_points, projection
from impulsim.io import load_scene
from impulsim.math import quaternion as Q
from impulsim.model.kinds import Prim

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENES = ("double_pendulum.yaml", "slider_crank.yaml", "spring_oscillator.yaml", "ball_chain.yaml",
          "featherstone/prismatic_rotor.yaml")


def _randomize(model, state, rng, scale):
    """Random poses (unit quaternions) and velocities of every body; scale [m, m/s, rad/s]."""
    n = model.n_bodies
    state.body_pos[:] = rng.normal(0.0, scale, (n, 3))
    q = rng.normal(size=(n, 4))
    state.body_quat[:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    state.body_vel[:] = rng.normal(0.0, scale, (n, 3))
    state.body_omega[:] = rng.normal(0.0, 10 * scale, (n, 3))


def _reference_errors(model, state):
    """The former compiled evaluation: array-argument kernels, one call per primitive."""
    pos_err, vel_err = np.zeros(model.n_prims), np.zeros(model.n_prims)
    P = np.zeros((3, 3))
    s = state
    for i in range(model.n_prims):
        kind = model.prim_kind[i]
        if kind == Prim.THREAD:
            continue
        a, b = model.prim_body_a[i], model.prim_body_b[i]
        if kind < 7:
            d = position_error(kind, s.body_pos[a], s.body_quat[a], s.body_pos[b], s.body_quat[b],
                               model.prim_anchor_a[i], model.prim_anchor_b[i], model.prim_axis_a[i],
                               model.prim_axis_b[i], model.prim_target[i], model.prim_qrel[i])
            pos_err[i] = np.linalg.norm(d)
        pa, pb = impulse_points(kind, s.body_pos[a], s.body_quat[a], s.body_pos[b], s.body_quat[b],
                                model.prim_anchor_a[i], model.prim_anchor_b[i], model.prim_axis_a[i])
        f = projection(kind, pa, pb, s.body_quat[a], s.body_quat[b], model.prim_axis_a[i], model.prim_axis_b[i], P)
        dv = velocity_error(kind, s.body_vel[a], s.body_omega[a], s.body_vel[b], s.body_omega[b],
                            pa - s.body_pos[a], pb - s.body_pos[b], model.prim_vel_target[i])
        vel_err[i] = np.linalg.norm(P[:f] @ dv)
    return pos_err, vel_err


def _reference_momentum_and_energy(model, state, about):
    """Angular momentum about ``about`` and kinetic energy, with the compiled rotations and np.cross."""
    L, rot = np.zeros(3), 0.0
    dyn = model.body_inv_mass > 0
    for k in np.nonzero(dyn)[0]:
        q = state.body_quat[k]
        w_local = Q.quat_rotate_inv(q, state.body_omega[k])
        L += Q.quat_rotate(q, model.body_inertia[k] * w_local)
        L += np.cross(state.body_pos[k] - about, model.body_mass[k] * state.body_vel[k])
        rot += 0.5 * np.dot(w_local * model.body_inertia[k], w_local)
    lin = 0.5 * np.sum(model.body_mass[dyn] * np.sum(state.body_vel[dyn] ** 2, axis=1))
    return L, float(lin + rot)


@pytest.mark.parametrize("scene", SCENES)
def test_errors_and_coordinates_equal_the_compiled_kernels_bit_for_bit(scene):
    sim = load_scene(EXAMPLES / scene).simulation()
    model, state = sim.model, sim.state.copy()
    rng = np.random.default_rng(7)
    checked = 0
    for trial in range(20):
        _randomize(model, state, rng, scale=(0.01, 1.0, 30.0)[trial % 3])
        pos_ref, vel_ref = _reference_errors(model, state)
        np.testing.assert_array_equal(D.constraint_errors(model, state), pos_ref)
        np.testing.assert_array_equal(D.velocity_errors(model, state), vel_ref)
        for j in range(model.n_joints):
            for coord in (0, 1):
                for rate in (False, True):
                    ref = coordinate_value(coord, rate, j, model.joint_body_a, model.joint_body_b,
                                           model.joint_anchor_a, model.joint_anchor_b, model.joint_axis_a,
                                           model.joint_ref_a, model.joint_ref_b, state.body_pos, state.body_quat,
                                           state.body_vel, state.body_omega)
                    got = D.coordinate_of(coord, rate, model.joint_body_a[j], model.joint_body_b[j],
                                       model.joint_anchor_a[j], model.joint_anchor_b[j], model.joint_axis_a[j],
                                       model.joint_ref_a[j], model.joint_ref_b[j], state.body_pos,
                                       state.body_quat, state.body_vel, state.body_omega)
                    assert got == ref, (scene, j, coord, rate)
                    checked += 1
        for k in range(model.n_bodies):
            v = rng.normal(size=3)
            np.testing.assert_array_equal(D.quat_rotate(state.body_quat[k], v), Q.quat_rotate(state.body_quat[k], v))
            np.testing.assert_array_equal(D.quat_rotate_inv(state.body_quat[k], v),
                                          Q.quat_rotate_inv(state.body_quat[k], v))
        about = rng.normal(size=3)
        L, E = _reference_momentum_and_energy(model, state, about)
        np.testing.assert_array_equal(D.angular_momentum(model, state, about), L)
        assert D.kinetic_energy(model, state) == E
    assert checked == 80 * model.n_joints and model.n_prims > 0
