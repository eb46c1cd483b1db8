"""Editing a running scene from the page: the edit panel driven in headless Chromium through Playwright.

Each test drives the page's own controls (scene tree, parameter fields, buttons) while the simulation
plays, and asserts what the physics must do. Skipped like the other browser tests without viser,
Playwright or Chromium (failed in CI without Chromium).
"""
import time
from pathlib import Path

import numpy as np
import pytest

viser = pytest.importorskip("viser", reason="the viewer needs viser (pip install 'impulsim[viewer]')")
playwright_api = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright")
pytest.importorskip("ruamel.yaml", reason="editing needs ruamel.yaml (pip install 'impulsim[editing]')")

from impulsim.dynamics.diagnostics import constraint_errors, total_energy
from impulsim.math.quaternion import quat_rotate
from tests.editing.scenes import TWO_BALLS
from tests.viewer.browser import free_port, launch, needs_chromium, viser_url
from tests.viewer.test_view_browser import FIRST_WAIT, WAIT, _click, _wait_status, _wait_until

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = needs_chromium()
COLD_WAIT = 600.0
"""Longest wait [s] for something that needs steps of a kind of joint not stepped before: with an empty
Numba cache the kernels compile first (minutes on a loaded machine); warm, these waits end at once."""


def _open(viewer):
    """A page on the viewer, its panel arrived; returns (playwright, context, page)."""
    p = playwright_api.sync_playwright().start()
    ctx = launch(p)
    page = ctx.new_page()
    page.goto(viser_url(viewer.url))
    page.wait_for_selector("canvas", timeout=FIRST_WAIT * 1000)
    _wait_status(page, lambda t, step, state: state == "paused", timeout=FIRST_WAIT)
    page.get_by_label("Scene tree").wait_for(timeout=FIRST_WAIT * 1000)
    return p, ctx, page


def _choose(page, label, option):
    """Pick ``option`` in the dropdown labelled ``label``, as a user does (open it, click the entry)."""
    page.get_by_label(label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()


def _fill_vector(page, label, values):
    """Type three numbers into a 3-vector input (its three boxes follow each other in the page)."""
    first = page.get_by_label(label, exact=True)
    first.wait_for(timeout=WAIT * 1000)
    index = page.locator("input").evaluate_all(
        "(els, id) => els.findIndex(e => e.id === id)", first.get_attribute("id"))
    assert index >= 0
    for i, value in enumerate(values):
        box = page.locator("input").nth(index + i)
        box.fill(str(value))
        box.press("Enter")


def _enter(page, label, value):
    box = page.get_by_label(label, exact=True)
    box.wait_for(timeout=COLD_WAIT * 1000)
    box.fill(str(value))
    box.press("Enter")


@pytest.fixture
def pendulum_view():
    from impulsim.viewer.edit_panel import edit_scene
    viewer = edit_scene(str(EXAMPLES / "pendulum.yaml"), port=free_port(), open_browser=False)
    p, ctx, page = _open(viewer)
    yield viewer, page
    ctx.close()
    p.stop()
    viewer.stop()


def test_mass_edited_while_swinging_scales_the_energy_not_the_swing_and_undo_restores_it(pendulum_view):
    viewer, page = pendulum_view
    engine = viewer.engine
    bob = viewer.model.body("bob")
    start_energy = total_energy(engine.sim.model, engine.sim.state)
    _click(page, "Play")
    _wait_status(page, lambda t, step, state: state == "playing" and t > 0.2, timeout=COLD_WAIT)
    _choose(page, "Scene tree", "body: bob")
    _enter(page, "Mass [kg]", 4)
    _wait_until(lambda: engine.sim.model.body_mass[bob] == 4.0, "the mass edit", timeout=COLD_WAIT)
    assert engine.snapshot().playing, "the edit paused the simulation"
    assert engine.snapshot().error is None
    _click(page, "Pause")
    _wait_status(page, lambda t, step, state: state == "paused")
    time.sleep(0.2)
    heavy = engine.sim.model
    state = engine.sim.state.copy()
    from impulsim.io import load_scene
    scene = load_scene(EXAMPLES / "pendulum.yaml")
    reference = scene.simulation(state=state.copy(), h=engine.sim.h, method=engine.method_name)
    # every term of the energy is linear in the one mass: 4 kg carries exactly four times the energy
    e_heavy, e_light = total_energy(heavy, state), total_energy(reference.model, state)
    assert e_heavy == pytest.approx(4.0 * e_light, rel=1e-12)
    # the state carried over the edit: the 1 kg energy of the running state is the start energy
    # (the method keeps a pendulum's energy to well under a per cent over these few tenths of a second)
    assert e_light == pytest.approx(start_energy, rel=1e-2)
    # a rigid pendulum's swing does not depend on its mass (gravity torque and inertia both scale with it):
    # over half a period (1 s, the bob from one side to the other) the 4 kg bob follows the 1 kg swing
    # to far below its size
    path = []
    for _ in range(10):
        engine.send("step", 100, wait=True, timeout=COLD_WAIT)
        reference.run(100 * reference.h)
        assert engine.sim.state.step_count == reference.state.step_count
        here = engine.sim.state.body_pos[bob].copy()
        assert np.linalg.norm(here - reference.state.body_pos[bob]) < 1e-6
        path.append(here)
    path = np.asarray(path)
    swing = max(np.linalg.norm(p - q) for p in path for q in path)
    assert swing > 0.3, f"the pendulum swung through only {swing:.3f} m in half a period"
    # a mass the scene cannot take is refused, shown on the page, and changes nothing
    _enter(page, "Mass [kg]", -1)
    page.get_by_text("Edit refused").first.wait_for(timeout=WAIT * 1000)
    assert page.get_by_text("mass must be positive").count() >= 1
    assert engine.sim.model.body_mass[bob] == 4.0
    # undo from the page: exactly the scene's 1 kg again, the bob where it was
    before = engine.sim.state.body_pos[bob].copy()
    _click(page, "Undo")
    _wait_until(lambda: engine.sim.model.body_mass[bob] == 1.0, "the undo")
    assert engine.sim.model.body_mass[bob] == 1.0
    assert np.array_equal(engine.sim.state.body_pos[bob], before)


@pytest.fixture
def two_balls_view(tmp_path):
    from impulsim.viewer.edit_panel import edit_scene
    path = tmp_path / "two_balls.yaml"
    path.write_text(TWO_BALLS)
    viewer = edit_scene(str(path), port=free_port(), open_browser=False)
    p, ctx, page = _open(viewer)
    yield viewer, page
    ctx.close()
    p.stop()
    viewer.stop()


def test_a_hinge_added_in_assembling_mode_from_the_page_closes_within_tolerance(two_balls_view):
    viewer, page = two_balls_view
    engine, live = viewer.engine, viewer.engine.live
    # select the two bodies in the scene tree: they become the new joint's bodies A and B
    _choose(page, "Scene tree", "body: a")
    _choose(page, "Scene tree", "body: b")
    page.get_by_text("New joint", exact=True).click()
    _choose(page, "Joint type", "hinge")
    _wait_until(lambda: viewer.edit_panel.new_a.value == "a" and viewer.edit_panel.new_b.value == "b",
                "the selection of both bodies")
    # the joint points 0.2 m right of a and 0.2 m left of b: 0.25 m apart and drifting apart when added
    _fill_vector(page, "Anchor on A [m]", (0.2, 0, 0))
    _fill_vector(page, "Anchor on B [m]", (-0.2, 0, 0))
    _fill_vector(page, "Hinge axis (world)", (0, 1, 0))
    _wait_until(lambda: tuple(viewer.edit_panel.new_anchor_b.value) == (-0.2, 0.0, 0.0), "the anchors")
    _click(page, "Play")
    _wait_status(page, lambda t, step, state: state == "playing" and t > 0.1, timeout=COLD_WAIT)
    page.get_by_role("button", name="Add joint", exact=True).click()
    _wait_until(lambda: "joint_1" in engine.sim.model.joint_names, "the new joint", timeout=COLD_WAIT)
    added_at = engine.snapshot().t
    assert engine.snapshot().error is None
    # assembling mode ends when the joint is within the method's tolerance; the page keeps playing
    _wait_until(lambda: live.assembling is None, "the assembly", timeout=COLD_WAIT)
    _click(page, "Pause")
    _wait_status(page, lambda t, step, state: state == "paused")
    time.sleep(0.2)                    # the thread is between steps: its state is consistent to read
    eps = live.sim.method.eps_d
    assert live.joint_error("joint_1") <= eps
    assert engine.snapshot().t > added_at
    # and the joint stays closed while the two balls fall and swing on together
    engine.send("step", 200, wait=True, timeout=COLD_WAIT)
    assert engine.snapshot().error is None
    assert live.joint_error("joint_1") <= eps
    assert constraint_errors(engine.sim.model, engine.sim.state).max() <= eps
    a, b = (engine.sim.model.body(n) for n in "ab")
    s = engine.sim.state
    # the two anchors meet in the world (spheres: the body frame is the user frame); the hinge axis of
    # each ball stays along the other's
    point_a = s.body_pos[a] + quat_rotate(s.body_quat[a], np.array([0.2, 0.0, 0.0]))
    point_b = s.body_pos[b] + quat_rotate(s.body_quat[b], np.array([-0.2, 0.0, 0.0]))
    assert np.linalg.norm(point_a - point_b) <= 2 * eps
    axis_a, axis_b = (quat_rotate(s.body_quat[k], np.array([0.0, 1.0, 0.0])) for k in (a, b))
    assert np.linalg.norm(np.cross(axis_a, axis_b)) <= 2 * eps
    assert engine.live.doc.element("joints", "joint_1")["type"] == "hinge"
