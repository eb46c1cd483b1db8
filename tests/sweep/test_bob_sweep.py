"""The bob sweep: each case is the bob run its parameter paths name (the same run, to the last digit, as the
run set up by hand), runner friction slows the bob, and a bob sweep gives the same rows on 2 Dask workers."""
import math

import pytest

from impulsim.apps.bobsleigh.bob import load_bob
from impulsim.apps.bobsleigh.drive.setup import DriveSetup
from impulsim.apps.bobsleigh.pilot import Pilot
from impulsim.apps.bobsleigh.run import run
from impulsim.apps.bobsleigh.sweep import METRICS, bob_case
from impulsim.sweep import run_function_sweep

pytest.importorskip("distributed")


def test_a_setup_path_is_the_run_with_that_setup_and_friction_slows_the_bob():
    cases = [bob_case({"track": "test_chute", "setup.runner.mu_t": mu}) for mu in (0.002, 0.004, 0.008)]
    assert [c["outcome"] for c in cases] == ["finish"] * 3
    times, tops = [c["run_time"] for c in cases], [c["top_speed"] for c in cases]
    # more runner friction takes more energy out of the bob: slower at its fastest and later at the finish
    assert times[0] < times[1] < times[2] and tops[0] > tops[1] > tops[2]
    by_hand = run("test_chute", setup={"runner": {"mu_t": 0.008}})
    assert cases[2]["run_time"] == by_hand.run_time
    assert cases[2]["top_speed"] == float(by_hand.trace["speed"].max())


def test_a_spring_set_and_a_pilot_parameter_are_the_runs_with_them():
    soft = bob_case({"setup.spring_set": "soft"})
    bob = load_bob("two_man")        # the driving simulator's soft set, the file's other values
    by_hand = run("test_chute", bob=DriveSetup(spring_set="soft", directness=bob.directness).apply(bob))
    assert soft["run_time"] == by_hand.run_time
    standard = bob_case({"setup.spring_set": 1.0})
    assert standard["run_time"] == run("test_chute").run_time != soft["run_time"]
    pulled = bob_case({"pilot.line_pull": 0.8, "start_speed": 9.0})
    assert pulled["run_time"] == run("test_chute", pilot=Pilot(line_pull=0.8), start_speed=9.0).run_time


def test_a_bob_sweep_gives_the_same_rows_on_two_workers_and_keeps_a_bad_path_as_a_row(tmp_path):
    params = {"track": ["test_chute"], "setup.runner.mu_t": [0.003, 0.006]}
    here = run_function_sweep(bob_case, params, metrics=METRICS, out=tmp_path / "here", workers=0)
    two = run_function_sweep(bob_case, params, metrics=METRICS, out=tmp_path / "two", workers=2)
    strip = lambda t: [{k: v for k, v in r.items() if k not in ("run_time_s", "worker", "cpu_time")}  # noqa: E731
                       for r in t.to_pylist()]
    assert [r["outcome"] for r in here.to_pylist()] == ["finish", "finish"]
    assert strip(here) == strip(two)
    bad = run_function_sweep(bob_case, {"setup.runer.mu_t": [0.003]}, metrics=METRICS,
                             out=tmp_path / "bad", workers=0).to_pylist()
    assert bad[0]["status"] == "failed" and "'runer'" in bad[0]["error"] and bad[0]["run_time"] is None
    with pytest.raises(ValueError, match="'pilot.gian'"):
        bob_case({"pilot.gian": 2.0})
    short = bob_case({"max_time": 0.5})
    assert short["outcome"] == "time limit" and math.isnan(short["run_time"]) and short["sim_time"] >= 0.5
