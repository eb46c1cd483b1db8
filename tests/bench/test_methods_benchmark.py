"""``impulsim bench methods`` in its quick form (one tree instead of two): every method has its rows in the
three tables, and the contact-capable methods meet the analytic answers of the shared contact scenes."""
import math

import numpy as np
import pytest

import impulsim as ims
from impulsim.bench import markdown_tables, method_contacts
from impulsim.bench import lagrange as benchmark

G = 9.81
V0 = 2.0
"""Start speed of the incline's box [m/s]."""
V1 = math.sqrt(2 * G * 1.0)
"""Impact speed of the ball dropped from 1 m [m/s]: the fastest motion of that scene."""
# A method of first order at contact events catches an impact up to one step early or late, so an apex is off
# by up to one step of travel at the impact speed, V1 h; a stop likewise by one step at the start speed, V0 h.
# (Measured at 1 ms: Featherstone RK4 0.91 mm of the 2 mm allowed, the other methods ≤ 0.3 mm; apexes ≤ 2.7 mm
# of 4.4 mm.)
NEW = ("Featherstone rk4", "Featherstone euler", "Moreau")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(benchmark, "QUICK_SIZES", (31,))
        mp.chdir(tmp_path_factory.mktemp("bench"))      # the accuracy plot is written to the working directory
        return benchmark.run(quick=True)


def rows(records, table, method):
    return [r for r in records if r.get("table") == table and r["method"] == method]


@pytest.mark.parametrize("method", NEW)
def test_featherstone_and_moreau_time_the_tree_and_keep_its_physics(records, method):
    (row,) = rows(records, benchmark.TREES, method)
    assert row["physics"] == "ok"
    assert row["median step [ms]"] > 0 and row["÷ LGS 1e-6"] > 0
    # the energy check is what can fail a reduced-coordinate method (its joint error is zero by construction)
    assert row["energy gain / available"] <= 1.0


@pytest.mark.parametrize("method", NEW)
def test_featherstone_and_moreau_are_in_the_accuracy_table(records, method):
    found = rows(records, benchmark.ACCURACY, method)
    assert [r["h [s]"] for r in found] == [1e-2, 5e-3]
    assert all(r["physics"] == "ok" for r in found)
    # RK4 (Featherstone) and the midpoint rule (Moreau) converge: the error falls with h
    assert found[1]["error after 1 s [rad]"] < found[0]["error after 1 s [rad]"]


def test_every_contact_method_runs_both_steps(records):
    labels = [label for label, _ in method_contacts.contact_methods()]
    assert {"impulse iterative", "impulse LGS", *NEW} <= set(labels)
    for label in labels:
        assert [r["h [s]"] for r in rows(records, "contact scenes", label)] == [5e-3, 1e-3]


def test_contact_scenes_meet_the_analytic_stop_and_apexes_within_one_step_of_travel(records):
    contact = [r for r in records if r.get("table") == "contact scenes" and "h [s]" in r]
    assert contact
    for r in contact:
        h = r["h [s]"]
        assert abs(r["stopping distance error [m]"]) <= V0 * h, r["method"]
        apexes = np.array([r[f"apex {k} error [m]"] for k in (1, 2, 3)])
        assert np.all(np.abs(apexes) <= V1 * h), r["method"]       # a missing apex (NaN) fails too
        assert r["incline [ms/step]"] > 0 and r["ball [ms/step]"] > 0
        assert r["physics"] == "ok"


def test_methods_without_contacts_are_listed_not_dropped(records):
    contact = {r["method"]: r["physics"] for r in records if r.get("table") == "contact scenes" and "h [s]" not in r}
    assert set(contact) == set(ims.METHODS) - {"impulse", "featherstone", "moreau", "lagrange"}
    assert all(p.startswith("unsupported") for p in contact.values()), contact


def test_a_blown_up_tree_fails_the_energy_check():
    model, state = benchmark.ball_tree(5)
    e = ims.diagnostics.total_energy(model, state)
    available = e - benchmark.lowest_potential(model, 5)
    assert available > 0
    state.body_omega[1:] = 50.0           # far more kinetic energy than the motion could ever have
    gain = (ims.diagnostics.total_energy(model, state) - e) / available
    assert benchmark._tree_physics(state, 0.0, gain).startswith("FAILED")
    assert benchmark._tree_physics(state, 0.0, 0.0) == "ok"


def test_records_print_as_one_table_per_table_key():
    text = markdown_tables([{"table": "a", "x": 1}, {"table": "b", "y": 2.0}, {"table": "a", "x": 3}])
    assert text.index("### a") < text.index("### b")
    assert "| x |" in text and "| y |" in text and "| table |" not in text
