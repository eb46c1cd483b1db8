"""One model, every method: each method either honours an element it declares (the law holds) or refuses
the model with one clear error naming the element and the methods that honour it. No method is skipped."""
import warnings
from pathlib import Path

import numpy as np
import pytest

import impulsim as ims
from impulsim.methods.capabilities import page
from tests.verification.methods import METHODS, CLASS_OF, declared, make_method

ROOT = Path(__file__).resolve().parents[2]
H = 1e-3


def test_the_committed_matrix_is_the_one_the_code_declares():
    assert (ROOT / "docs" / "methods_capabilities.md").read_text() == page(), \
        "regenerate: impulsim methods --markdown (or capabilities.page())"


def test_every_tested_method_is_a_registered_class_with_a_declaration():
    assert set(CLASS_OF) == set(METHODS)
    for name in METHODS:
        assert declared(name), name


def test_cli_prints_the_matrix(capsys):
    from impulsim.cli import main
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert "joint limits" in out and "lagrange" in out and "featherstone" in out


# scenes ---------------------------------------------------------------------------------------------------
def bouncing_ball(e=0.8):
    b = ims.ModelBuilder("bounce")
    b.add_material("rubber", restitution=e)
    b.add_body("floor", static=True, shapes=[ims.HalfSpace()], material="rubber")
    b.add_body("ball", shapes=[ims.Sphere(radius=0.1)], mass=1.0, position=(0, 0, 0.6), material="rubber")
    return b.build()


def limited_hinge(e):
    """An arm on a hinge about z turning at 2 rad/s without gravity, stops at ±0.5 rad with restitution e."""
    b = ims.ModelBuilder("limit", gravity=(0, 0, 0))
    b.add_body("arm", shapes=[ims.Box(size=(1.0, 0.05, 0.05))], mass=1.0, position=(0.5, 0, 0),
               velocity=(0, 1.0, 0), angular_velocity=(0, 0, 2.0))
    b.add_hinge("pivot", "world", "arm", anchor=(0, 0, 0), axis=(0, 0, 1))
    b.add_limit("stop", "pivot", -0.5, 0.5, restitution=e)
    return b.build()


def driven_hinge(rate=5.0):
    """A hinged arm under gravity driven by a velocity joint between the same two bodies (a mouse drag)."""
    b = ims.ModelBuilder("driven")
    b.add_body("arm", shapes=[ims.Box(size=(1.0, 0.05, 0.05))], mass=1.0, position=(0.5, 0, 0))
    b.add_hinge("pivot", "world", "arm", anchor=(0, 0, 0), axis=(0, 0, 1))
    b.add_velocity_joint("drive", "world", "arm", anchor=(0, 0, 0), angular_velocity=(0, 0, rate))
    return b.build()


def carried_box():
    """A box on a ball joint under a kinematic carrier, both moving at 0.5 m/s along x, no gravity."""
    b = ims.ModelBuilder("carried", gravity=(0, 0, 0))
    b.add_body("carrier", kinematic=True, position=(0, 0, 0), velocity=(0.5, 0, 0))
    b.add_body("box", shapes=[ims.Box(size=(0.1, 0.1, 0.1))], mass=1.0, position=(0, 0, -0.5),
               velocity=(0.5, 0, 0))
    b.add_ball("hook", "carrier", "box", anchor=(0, 0, 0))
    return b.build()


def universal_arm():
    b = ims.ModelBuilder("cardan")
    b.add_body("arm", shapes=[ims.Box(size=(0.05, 0.05, 1.0))], mass=1.0, position=(0, 0, -0.5))
    b.add_universal("cardan", "world", "arm", anchor=(0, 0, 0), axis_a=(1, 0, 0), axis_b=(0, 1, 0))
    return b.build()


def _refused(method, model, element, feature_word, **kw):
    with pytest.raises(ims.UnsupportedFeatureError) as err:
        make_method(method, model, **kw)
    msg = str(err.value)
    assert element in msg and feature_word in msg and "methods that do:" in msg, msg
    assert "\n" not in msg
    return msg


# laws: honoured where declared, refused elsewhere ------------------------------------------------------------
@pytest.mark.parametrize("method", list(METHODS))
def test_ball_bounces_at_the_material_restitution_or_is_refused(method):
    model, state = bouncing_ball(0.8)
    if "contacts" not in declared(method):
        _refused(method, model, '"ball"', "contacts")
        return
    m = make_method(method, model)
    ball, vz = model.body("ball"), []
    for _ in range(500):
        m.step(state, H)
        vz.append(state.body_vel[ball, 2])
    vz = np.array(vz)
    k = int(np.argmax(np.diff(vz) > 1.0))         # the step of the impact
    before, after = vz[k], vz[k + 1:k + 40].max()
    assert before < -2.5
    assert after / -before == pytest.approx(0.8, rel=0.01)


@pytest.mark.parametrize("e", [1.0, 0.5])
@pytest.mark.parametrize("method", list(METHODS))
def test_limit_restitution_or_refusal(method, e):
    model, state = limited_hinge(e)
    if "limits" not in declared(method):
        _refused(method, model, '"stop"', "joint limits")
        return
    m = make_method(method, model)
    for _ in range(500):            # the stop is reached at 0.25 s; at 0.5 s the arm turns back
        m.step(state, H)
    omega = state.body_omega[1, 2]
    assert omega == pytest.approx(-2.0 * e, rel=0.01)
    assert abs(ims.diagnostics.joint_coordinate(model, state, "pivot")) <= 0.5 + 2.0 * H


@pytest.mark.parametrize("method", list(METHODS))
def test_velocity_joint_beside_a_hinge_or_refusal(method):
    model, state = driven_hinge(5.0)
    if "velocity_joints" not in declared(method):
        _refused(method, model, '"drive"', "velocity joints")
        return
    if method.startswith("lagrange"):
        # the drive repeats two rows of the hinge: the plain solvers refuse, the SVD solvers take it
        msg = str(pytest.raises(ims.UnsupportedFeatureError, make_method, method, model).value)
        assert '"drive"' in msg and '"pivot"' in msg and "svd" in msg
        m = ims.make_method("lagrange", model, solver="dense_svd", consistent_start=True, eps_v=1e-8)
    else:
        m = make_method(method, model, eps_d=1e-8, eps_v=1e-8)
    for _ in range(100):
        info = m.step(state, H)
    assert state.body_omega[1] == pytest.approx([0, 0, 5.0], abs=1e-7)
    assert info.converged_vel


@pytest.mark.parametrize("method", list(METHODS))
def test_kinematic_carrier_or_refusal(method):
    model, state = carried_box()
    if "kinematic_bodies" not in declared(method):
        _refused(method, model, '"carrier"', "kinematic bodies")
        return
    m = make_method(method, model)
    for _ in range(500):
        m.step(state, H)
    assert state.body_pos[1][0] == pytest.approx(0.25, abs=1e-9)         # the carrier moved as prescribed
    assert state.body_pos[2] == pytest.approx([0.25, 0, -0.5], abs=1e-5)  # the box hangs under it


@pytest.mark.parametrize("method", list(METHODS))
def test_universal_joint_or_refusal(method):
    model, state = universal_arm()
    if "joint_universal" not in declared(method):
        _refused(method, model, '"cardan"', "universal joints")
        return
    m = make_method(method, model)
    for _ in range(200):
        m.step(state, H)
    assert np.max(ims.diagnostics.constraint_errors(model, state)) < 1e-4


@pytest.mark.parametrize("method", list(METHODS))
def test_wagner_constraints_or_refusal(method):
    from impulsim.methods.lagrange.constraints import PointToFunction
    b = ims.ModelBuilder("lift", gravity=(0, 0, -9.81))
    b.add_body("box", shapes=[ims.Box(size=(0.1, 0.1, 0.1))], mass=1.0)
    model, state = b.build()
    c = PointToFunction("lift", "box", lambda t: (np.array([0.0, 0.0, 0.1 * t]), np.array([0.0, 0.0, 0.1]),
                                                  np.zeros(3)))
    if "constraints" not in declared(method):
        _refused(method, model, "constraints", "Wagner's constraints", constraints=[c])
        return
    m = make_method(method, model, constraints=[c])
    for _ in range(500):
        m.step(state, H)
    assert state.body_pos[1] == pytest.approx([0, 0, 0.05], abs=1e-4)


# ignoring on request ---------------------------------------------------------------------------------------
def _without_contacts():
    """The Lagrange method as a method that declared no contacts (every registered method that takes
    ``ignore`` honours contacts)."""
    import dataclasses
    from impulsim.methods.lagrange.method import LagrangeMethod

    class WithoutContacts(LagrangeMethod):
        capabilities = dataclasses.replace(LagrangeMethod.capabilities, contacts=())
    return WithoutContacts


def test_ignoring_contacts_warns_once_and_counts_in_every_step():
    model, state = bouncing_ball()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = _without_contacts()(model, ignore=("contacts",))
        infos = [m.step(state, H) for _ in range(3)]
    assert len(caught) == 1 and "contacts" in str(caught[0].message)
    assert all(info.ignored == {"contacts": 2} for info in infos)


def test_only_contacts_and_limits_can_be_ignored():
    model, _ = universal_arm()
    with pytest.raises(ValueError, match="cannot be ignored"):
        ims.make_method("featherstone", model, ignore=("joints",))
