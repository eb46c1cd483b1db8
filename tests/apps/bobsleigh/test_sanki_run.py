"""The Sanki-like track with the default bob and pilot: the run reaches the finish upright."""
import numpy as np
import pytest

from impulsim.apps.bobsleigh.pilot import Pilot
from impulsim.apps.bobsleigh.run import run


@pytest.mark.slow
def test_default_pilot_reaches_the_sanki_finish_upright():
    """1814 m with three uphill stretches: the run ends at the finish; no rollover point ever carried a
    force; the nose stays inside the channel (|b| < 1.6 m, h above −5 cm); the top speed is within 10 % of
    the 135 km/h bobs reach at Sanki (public)."""
    r = run("sanki", pilot=Pilot(), start_speed=10.0, max_time=100.0)
    assert r.outcome == "finish", r.summary()
    rollover = [k for k in r.trace if k.startswith("contact") and "_rollover_" in k]
    assert len(rollover) == 15 and all(np.all(r.trace[k] == 0.0) for k in rollover)
    assert np.abs(r.trace["b"]).max() < 1.6 and r.trace["h"].min() > -0.05
    assert 121.5 < 3.6 * r.trace["speed"].max() < 148.5
