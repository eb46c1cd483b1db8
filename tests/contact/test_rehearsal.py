"""On a first contact step compiled on two cores (contact/rehearsal.py), the process compiles the level-by-level
passes of shock propagation on copies while the second one compiles the rest of the resolution: a pile
reaches those passes only when its sweeps do not converge in time, which made-up contacts never do, and
they compiled after the wait (and were left out of ``impulsim warmup``)."""
from pathlib import Path

import numpy as np

from impulsim.contact.rehearsal import shock_passes_on_a_copy
from impulsim.io import load_scene, scene_from_string

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _passes(sim):
    """Sweeps of the passes on a copy, after checking that the method and state were left alone."""
    before = sim.state.copy()
    sweeps = shock_passes_on_a_copy(sim.method, sim.state, sim.h)
    assert sim.method.contacts.level_sweeps == 0
    assert np.array_equal(sim.state.body_vel, before.body_vel)
    assert np.array_equal(sim.state.body_pos, before.body_pos)
    return sweeps


def test_the_level_passes_run_on_a_copy_where_shock_propagation_is_on():
    sim = load_scene(EXAMPLES / "falling_boxes.yaml").simulation()
    assert sim.method.contacts.opt.shock_propagation is not None
    assert _passes(sim) > 0


def test_without_shock_propagation_no_level_pass_runs():
    text = (EXAMPLES / "falling_boxes.yaml").read_text().replace(", shock_propagation: 20", "")
    sim = scene_from_string(text, name="boxes without shock propagation").simulation()
    assert sim.method.contacts.opt.shock_propagation is None
    assert _passes(sim) == 0
