"""Shock propagation resolves each level before freezing it (Bender 5.3.2)."""
import numpy as np
import pytest

from impulsim.bench.contact_scenes import tower
from impulsim.methods import make

EPS_VC = 1e-3     # [m/s] contact velocity tolerance of the runs below


def _first_step_speed(level_iterations):
    """Largest body speed [m/s] after one 5 ms step of a 6-box column at rest, the shock pass after one sweep."""
    model, state = tower(6)
    method = make("impulse", model, eps_vc=EPS_VC, eps_d=1e-5, eps_v=1e-5, shock_propagation=1,
                  shock_level_iterations=level_iterations)
    method.step(state, 0.005)
    return float(np.abs(state.body_vel).max()), method.contacts.level_sweeps


def test_resolved_levels_leave_the_column_at_rest():
    """Each level is swept until its error is below eps_vc / levels, so the column, which starts at rest and
    must stay there, keeps less than eps_vc in all (the levels' errors add up towards the top)."""
    speed, sweeps = _first_step_speed(30)
    assert speed <= EPS_VC
    assert sweeps > 2 * 7          # more than one sweep per level in the position and velocity passes


def test_the_level_sweeps_are_capped():
    _, sweeps = _first_step_speed(1)
    assert sweeps <= 2 * 7         # 6 boxes and the ground: levels 0 … 5 (+1 for the top), one sweep each


def test_level_iterations_are_checked():
    model, _ = tower(2)
    with pytest.raises(ValueError, match="shock_level_iterations"):
        make("impulse", model, shock_propagation=3, shock_level_iterations=0)
