"""The velocity correction of contacts alone runs in one compiled loop; it must give exactly the states and
iteration counts of the sweeps called one by one from Python (the path taken when joints share the loop),
with and without shock propagation, on a wall knocked by a ball (collisions, resting contacts, friction)."""
import numpy as np
import pytest

from impulsim.experiments import bender_contacts as S
from impulsim.methods import make


def _run(compiled, shock, steps=120):
    model, state = S.wall(6, 3, ball=True)
    method = make("impulse", model, **S.WALL_SETTINGS, shock_propagation=shock)
    method.compiled_contact_velocities = compiled
    counts = []
    for _ in range(steps):
        info = method.step(state, S.WALL_H)
        counts.append((info.iters_vel, info.residual_vel, info.n_contacts))
    return state, counts


@pytest.mark.parametrize("shock", [None, 2])
def test_compiled_contact_velocities_match_the_sweeps_called_one_by_one(shock):
    a, counts_a = _run(True, shock)
    b, counts_b = _run(False, shock)
    assert counts_a == counts_b
    assert max(c[0] for c in counts_a) > 1          # the loop iterated: more than one sweep in some step
    for name in ("body_pos", "body_quat", "body_vel", "body_omega"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
