"""The Moreau step keeps its memory in place: the failed-step snapshot (impulsim.methods.memory) reuses its
plan of the method's attributes from step to step instead of walking the method again before every step,
with joints and with contacts. (That a failed Moreau step still leaves no trace, warm-start memory included,
is tests/reliability/test_transactional_step.py.)"""
import pytest

from impulsim.io import load_scene
from tests.reliability.helpers import CHAIN_SCENE, CONTACT_SCENE


@pytest.mark.parametrize("path", [CHAIN_SCENE, CONTACT_SCENE], ids=["joints", "contacts"])
def test_the_snapshot_plan_is_made_once_not_every_step(path):
    sim = load_scene(path).simulation(method="moreau")
    made = 0
    for _ in range(200):
        plan = sim.method.__dict__.get("_memory_plan")
        sim.step()
        made += sim.method.__dict__.get("_memory_plan") is not plan
    # made at the first step, again when a contact buffer grows (a few times while the pile lands); it was
    # made before every one of the 200 steps when the step replaced its warm-start arrays
    assert made <= 5, made

