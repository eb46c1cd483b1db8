"""The made-up contacts of a compile on two cores (contact/rehearsal.py) take the step through every kernel
of the contact resolution, the level-by-level passes of shock propagation included: a pile reaches those
only when its sweeps do not converge in time, and they compiled in the user's process at the first pile."""
from pathlib import Path

from impulsim.contact.rehearsal import rehearsal_pair, rehearse_contacts
from impulsim.io import load_scene, scene_from_string

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _rehearse(sim):
    method = sim.method
    state = sim.state.copy()
    rehearse_contacts(method, method.contacts.detector, state, sim.h, rehearsal_pair(method.model))
    return method


def test_the_rehearsal_runs_the_level_passes_where_shock_propagation_is_on():
    sim = load_scene(EXAMPLES / "falling_boxes.yaml").simulation()
    assert sim.method.contacts.opt.shock_propagation is not None
    assert _rehearse(sim).contacts.level_sweeps > 0


def test_without_shock_propagation_the_rehearsal_runs_no_level_pass():
    text = (EXAMPLES / "falling_boxes.yaml").read_text().replace(", shock_propagation: 20", "")
    sim = scene_from_string(text, name="boxes without shock propagation").simulation()
    assert sim.method.contacts.opt.shock_propagation is None
    assert _rehearse(sim).contacts.level_sweeps == 0
