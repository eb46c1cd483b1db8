"""A pendulum and a double pendulum, each written as URDF and as MJCF, under impulse, Lagrange and
Featherstone against MuJoCo's RK4 at h = 1 ms: joint angles after 1 s (every step compared) to 1e-6 rad.

MuJoCo reads the same file itself (its URDF and MJCF compilers), so the test checks the import (frames,
inertia conventions, axes) and the methods together. The tolerances of the methods are tight (1e-12) so
that what remains is the integrators' error at h = 1 ms.
"""
import warnings

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("yourdfpy")

from impulsim.bench.compare import mujoco_model, run_impulsim, run_mujoco  # noqa: E402
from impulsim.io.formats import load_model_file  # noqa: E402
from tests.io.formats.sources import DATA  # noqa: E402

H, DURATION = 1e-3, 1.0
# contacts off on both sides (the files' floors are never reached)
TIGHT = {"impulse": dict(solver="lgs", eps_d=1e-12, eps_v=1e-12, contacts=False),
         "lagrange": dict(eps_d=1e-12, eps_v=1e-12, contacts=False),
         "featherstone": dict(eps_d=1e-12, eps_v=1e-12)}
FILES = ["pendulum.urdf", "pendulum.xml", "double_pendulum.urdf", "double_pendulum.xml"]
def _runs(name, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scene = load_model_file(DATA / name)
    ref = run_mujoco(mujoco_model(DATA / name, scene, H, contacts=False), scene.model.body_names,
                     scene.model.joint_names, DURATION)
    ours = run_impulsim(scene, method, H, DURATION, **TIGHT[method])
    assert not ours.error, ours.error
    assert set(ours.coord) == set(ref.coord) and ours.coord
    return ours, ref


def _largest_angle_difference(ours, ref):
    return max(np.max(np.abs(np.array(ours.coord[k]) - np.array(ref.coord[k]))) for k in ref.coord)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("method", ["lagrange", "featherstone"])
def test_rk4_methods_follow_mujoco_rk4_to_1e_6_rad(name, method):
    ours, ref = _runs(name, method)
    # the pendulum swings through large angles: the comparison is not of a motion at rest
    assert max(np.max(np.abs(v)) for v in ref.coord.values()) > 1.0
    assert _largest_angle_difference(ours, ref) < 1e-6


@pytest.mark.parametrize("name", FILES)
def test_impulse_method_is_second_order_and_its_extrapolation_meets_mujoco(name):
    """The impulse method does not reach 1e-6 rad at h = 1 ms: its step (Bender's prediction of the joint
    state with a corrected velocity) is second order, not fourth. Measured at 1 ms: 6.0e-6 rad (pendulum),
    4.8e-5 rad (double pendulum). The test shows that this difference is the method's truncation error and
    not an import mismatch: halving h divides it by 4 (±5 %), and the Richardson extrapolation
    (4 q(h/2) − q(h)) / 3 meets MuJoCo's RK4 to 1e-8 rad (measured: 7e-12 to 2e-10)."""
    ours, ref = _runs(name, "impulse")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scene = load_model_file(DATA / name)
    half = run_impulsim(scene, "impulse", H / 2, DURATION, sample_every=2, **TIGHT["impulse"])
    ref_half = run_mujoco(mujoco_model(DATA / name, scene, H / 2, contacts=False), scene.model.body_names,
                          scene.model.joint_names, DURATION, sample_every=2)
    err = _largest_angle_difference(ours, ref)
    err_half = _largest_angle_difference(half, ref_half)
    assert 1e-7 < err and 3.8 < err / err_half < 4.2
    extrapolated = max(np.max(np.abs((4 * np.array(half.coord[k]) - np.array(ours.coord[k])) / 3
                                     - np.array(ref.coord[k]))) for k in ref.coord)
    assert extrapolated < 1e-8
