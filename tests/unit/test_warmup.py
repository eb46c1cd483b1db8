"""Compile messages and ahead-of-time compilation (impulsim.warmup, ``impulsim warmup``)."""
import io
import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from numba.core import event

from impulsim import compiling as C
from impulsim import warmup as W
from impulsim.cli import main

SRC = Path(W.__file__).resolve().parents[1]


def _fresh_kernel(module="impulsim.fake_for_test"):
    """A new (never compiled) kernel that counts as impulsim's."""
    def kernel(x):
        return x * 2.0 + 1.0
    kernel.__module__ = module
    return njit(kernel)


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_kernel_groups_name_the_part_of_impulsim():
    assert W.kernel_group("impulsim.contact.stage") == "contact"
    assert W.kernel_group("impulsim.methods.featherstone.aba") == "featherstone method"
    assert W.kernel_group("impulsim.dynamics") == "dynamics"
    assert W.kernel_group("numba.np.arrayobj") == "" and W.kernel_group("impulsim") == ""


def test_a_burst_ends_with_one_line_when_not_on_a_terminal():
    out = io.StringIO()
    with W.CompileReporter(out, show_after=0.0) as rep:
        assert _fresh_kernel()(np.float64(1.0)) == 3.0
        assert _fresh_kernel()(np.float64(2.0)) == 5.0
        rep.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "\r" not in out.getvalue()
    assert lines[0].startswith("compiled 2 kernels in ") and lines[0].endswith(f"({W.ONCE})")
    assert rep.total_kernels == 2


def test_short_bursts_say_nothing():
    out = io.StringIO()
    with W.CompileReporter(out, show_after=1e9) as rep:
        _fresh_kernel()(np.float64(1.0))
        rep.finish()
    assert out.getvalue() == "" and rep.total_kernels == 1


def test_on_a_terminal_the_line_is_redrawn_erased_between_kernels_and_ended():
    out = _Tty()
    inner = _fresh_kernel("impulsim.contact.inner")

    def outer(x):
        return inner(x) + 1.0
    outer.__module__ = "impulsim.contact.fake"
    with W.CompileReporter(out, show_after=0.0) as rep:
        assert njit(outer)(np.float64(1.0)) == 4.0       # compiles inner inside outer's compile
        assert out.getvalue().endswith("\r\033[K")       # no kernel compiling: the line is erased
        rep.finish()
    text = out.getvalue()
    assert text.startswith("\rcompiling contact kernels (once; cached for later runs) … 0 done, ")
    assert "… 1 done, " in text
    last = text.split("\r")[-1]
    assert last.startswith("compiled 2 kernels in ") and last.endswith(f" s ({W.ONCE})\033[K\n")


def test_kernels_outside_impulsim_are_not_counted_and_uninstall_stops_listening():
    out = io.StringIO()
    rep = W.CompileReporter(out, show_after=0.0).install()
    _fresh_kernel("somewhere.else")(np.float64(1.0))
    rep.uninstall()
    _fresh_kernel()(np.float64(1.0))
    assert rep.total_kernels == 0 and out.getvalue() == ""


_COUNT_LISTENERS = ("import impulsim; from numba.core import event; "
                    "print(sum(type(ls).__module__ == 'impulsim.compiling' "
                    "for ls in event._registered.get('numba:compile', [])))")


def test_library_use_installs_one_listener_that_is_silent_off_a_terminal(monkeypatch, capsys):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p))
    fresh = subprocess.run([sys.executable, "-c", _COUNT_LISTENERS], env=env, capture_output=True, text=True,
                           timeout=300)
    assert fresh.stdout.strip() == "1", fresh.stderr                 # import impulsim installs it
    assert C.install_default() is C.default_reporter()        # installed once, whoever asks again
    listeners = event._registered.get("numba:compile", [])
    assert len([ls for ls in listeners if type(ls).__qualname__.startswith("CompileReporter")]) == 1
    monkeypatch.delenv("IMPULSIM_COMPILE_MESSAGES", raising=False)
    monkeypatch.setattr(C.default_reporter(), "show_after", 0.0)
    _fresh_kernel()(np.float64(1.0))            # pytest's stderr is no terminal
    C.default_reporter().finish()
    assert capsys.readouterr().err == ""


def test_warmup_groups_are_checked():
    assert {t.group for t in W.warmup_tasks()} == set(W.warmup_groups())
    assert {t.group for t in W.warmup_tasks(["contact"])} == {"contact"}
    with pytest.raises(ValueError, match="unknown warm-up group"):
        W.warmup_tasks(["nope"])


def test_applications_add_their_groups_after_the_librarys():
    """The bobsleigh simulator declares its task under the entry-point group ``impulsim.warmup``: it comes after
    the library's groups, runs an action instead of a scene, and carries its own weight for the shares."""
    every = W.warmup_groups()
    assert every[:len(W.LIBRARY_GROUPS)] == W.LIBRARY_GROUPS and "bobsleigh" in every[len(W.LIBRARY_GROUPS):]
    (task,) = W.warmup_tasks(["bobsleigh"])
    assert task.action is not None and task.scene == "" and W.group_cpu_s("bobsleigh") == task.cpu_s > 0


def test_warmup_command_with_an_unknown_group_is_one_line(capsys):
    assert main(["warmup", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown warm-up group(s) nope" in err


_LISTEN = textwrap.dedent("""
    import json, sys
    from numba.core import event
    seen = []
    class L(event.Listener):
        def on_start(self, ev): pass
        def on_end(self, ev): seen.append(ev.data["dispatcher"].py_func.__qualname__)
    event.register("numba:compile", L())
""")
"""The start of a script that lists, in ``seen``, every kernel its process compiles."""

# ------------------------------------------------------------------------------------ parallel warm-up
def test_shares_deal_every_group_out_once_and_balance_the_cost():
    every = W.warmup_groups()
    cost = {g: W.group_cpu_s(g) for g in every}
    assert all(c > 0 for c in cost.values())

    def worst(parts):
        return max(sum(cost[g] for g in part) for part in parts)
    for jobs in (1, 2, 3, 4, 5, 9):
        parts = W.shares(None, jobs)
        assert len(parts) == min(jobs, len(every)) and all(parts)
        assert sorted(g for part in parts for g in part) == sorted(every)
        sums = [sum(cost[g] for g in part) for part in parts]
        assert sums == sorted(sums, reverse=True)
        for part in parts:            # each share in the order of the groups
            assert list(part) == [g for g in every if g in part]
        for i, j in itertools.permutations(range(len(parts)), 2):   # no move or swap of groups does better
            for g in parts[i]:
                for h in (None, *parts[j]):
                    moved = [list(p) for p in parts]
                    moved[i].remove(g)
                    moved[j].append(g)
                    if h is not None:
                        moved[j].remove(h)
                        moved[i].append(h)
                    if all(moved):
                        assert worst(moved) >= worst(parts), (parts, moved)
    assert W.shares(["moreau", "impulse"], 4) == [("impulse",), ("moreau",)]
    with pytest.raises(ValueError, match="--jobs must be 1 or more, not 0"):
        W.shares(None, 0)


def test_default_jobs_is_one_process_per_usable_core_and_group(monkeypatch):
    from impulsim import forked_compile
    monkeypatch.setattr(forked_compile, "usable_cores", lambda: 1)
    assert W.default_jobs() == 1
    monkeypatch.setattr(forked_compile, "usable_cores", lambda: 2)
    assert W.default_jobs() == 2 and W.default_jobs(["lagrange"]) == 1
    monkeypatch.setattr(forked_compile, "usable_cores", lambda: 64)
    assert W.default_jobs() == len(W.warmup_groups())


def test_warmup_with_no_jobs_is_one_line(capsys):
    assert main(["warmup", "--jobs", "0", "moreau"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--jobs must be 1 or more, not 0" in err


_FAKE_WORKER = textwrap.dedent("""
    import json, sys
    reports, code, last_words = json.loads(sys.argv[1])
    for report in reports:
        print(json.dumps(report), flush=True)
    print("not a report", flush=True)
    sys.stderr.write(last_words)
    sys.exit(code)
""")


_ONE_TASK_EACH = [("Featherstone method", "featherstone"), ("Lagrange method", "lagrange"),
                  ("Moreau method", "moreau")]
"""Stand-in tasks for the tests of the machinery that deals groups out and reports: one task a group, so that
a stand-in worker's lines follow from its share alone (the library's groups have several tasks)."""


def _one_task_each(monkeypatch):
    monkeypatch.setattr(W, "_tasks", lambda: [W.WarmupTask(name, group) for name, group in _ONE_TASK_EACH])


def test_parallel_warmup_prints_the_workers_lines_and_names_every_failed_task(monkeypatch):
    """Workers (here stand-ins that report without compiling) print their tasks' lines through the parent; a
    task that a worker reports failed, and those of a worker that ended before reporting them, are named in
    their lines and in the error."""
    _one_task_each(monkeypatch)
    numbered = list(enumerate(W.warmup_tasks(["featherstone", "lagrange", "moreau"]), 1))
    number = {t.group: i for i, t in numbered}
    behaviour = {                     # share's first group -> (reports, exit code, stderr)
        "featherstone": ([{"line": f"[{number['featherstone']}/3] F: ready (1.0 s)"},
                          {"done": number["featherstone"], "error": None}], 0, ""),
        "lagrange": ([{"line": f"[{number['lagrange']}/3] L: failed: diverged"},
                      {"done": number["lagrange"], "error": "diverged"}], 1, ""),
        "moreau": ([], 3, "Traceback (most recent call last):\nMemoryError: out of memory\n"),
    }
    seen_shares = []

    def fake_command(groups, share, quiet):
        seen_shares.append(share)
        return [sys.executable, "-c", _FAKE_WORKER, json.dumps(behaviour[share[0]])]

    monkeypatch.setattr(W, "worker_command", fake_command)
    out = io.StringIO()
    with pytest.raises(W.ImpulsimError) as err:
        W.warmup_command(["featherstone", "lagrange", "moreau"], stream=out, jobs=3)
    assert sorted(seen_shares) == [("featherstone",), ("lagrange",), ("moreau",)]
    lines = out.getvalue().splitlines()
    assert f"[{number['featherstone']}/3] F: ready (1.0 s)" in lines and lines.count("not a report") == 3
    moreau = dict(numbered)[number["moreau"]].name
    assert (f"[{number['moreau']}/3] {moreau}: failed: its warm-up process ended with exit code 3 "
            f"(MemoryError: out of memory)") in lines
    message = str(err.value)
    assert message.startswith("warm-up: 2 of 3 tasks failed")
    assert "Lagrange method: diverged" in message and f"{moreau}: its warm-up process ended" in message
    assert "Featherstone" not in message


_SLOW_FAKE_WORKER = textwrap.dedent("""
    import json, sys, time
    time.sleep(float(sys.argv[2]))
    for number in json.loads(sys.argv[1]):
        print(json.dumps({"line": f"task {number} ready"}), flush=True)
        print(json.dumps({"done": number, "error": None}), flush=True)
""")


def test_on_a_terminal_a_parallel_warmup_shows_how_far_it_got_on_a_live_line(monkeypatch):
    _one_task_each(monkeypatch)
    groups = ["featherstone", "lagrange", "moreau"]
    numbers = {t.group: i for i, t in enumerate(W.warmup_tasks(groups), 1)}

    def fake_command(_groups, share, quiet):
        wait = "0" if "featherstone" in share else str(W.SHOW_AFTER + 4 * W.TICK)
        return [sys.executable, "-c", _SLOW_FAKE_WORKER, json.dumps([numbers[g] for g in share]), wait]

    monkeypatch.setattr(W, "worker_command", fake_command)
    out = _Tty()
    W.warmup_command(groups, stream=out, jobs=2)
    text = out.getvalue()
    assert "\rcompiling in 2 processes (once; cached for later runs) … 1 of 3 tasks done, 1 s\033[K" in text
    assert "\r\033[Ktask " in text          # the live line is erased before a line is printed
    assert text.splitlines()[-1].startswith("warm-up done in ")


_WORKER_WITH_STAND_IN_TASKS = textwrap.dedent(f"""
    import sys
    import impulsim.warmup as W
    W._tasks = lambda: [W.WarmupTask(name, group) for name, group in {_ONE_TASK_EACH!r}]
    def run_task(task):
        print("a stray print")                     # goes to stderr, not among the reports
        if task.group == "lagrange":
            raise W.ImpulsimError("diverged")
    W.run_task = run_task
    sys.exit(W.worker_main(sys.argv[1:]))
""")


def test_a_worker_reports_its_tasks_numbered_among_all(monkeypatch):
    _one_task_each(monkeypatch)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p))
    run = subprocess.run([sys.executable, "-c", _WORKER_WITH_STAND_IN_TASKS, "featherstone,lagrange,moreau",
                          "lagrange,moreau"], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stderr
    reports = [json.loads(line) for line in run.stdout.splitlines()]
    tasks = dict(enumerate(W.warmup_tasks(["featherstone", "lagrange", "moreau"]), 1))
    lag, mor = (next(i for i, t in tasks.items() if t.group == g) for g in ("lagrange", "moreau"))
    assert [r for r in reports if "done" in r] == [{"done": lag, "error": "diverged"}, {"done": mor, "error": None}]
    texts = [r["line"] for r in reports if "line" in r]
    assert texts[0] == f"[{lag}/3] {tasks[lag].name}: failed: diverged"
    assert texts[1].startswith(f"[{mor}/3] {tasks[mor].name}: ready (") and len(texts) == 2
    assert run.stderr.count("a stray print") == 2


def test_the_impulse_tasks_take_every_compiled_run_loop():
    """Each of the impulse method's compiled run loops (LGS, iterative, joint limits; with force elements and
    without, run_path._loop) is taken by an impulse task, so that the warm-up compiles it."""
    from impulsim.dynamics.forces import has_force_elements
    from impulsim.io import scene_from_string
    from impulsim.methods.impulse import run_path
    loops = set()
    for task in W.warmup_tasks(["impulse"]):
        method = scene_from_string(task.scene).simulation(method=task.method, **dict(task.options)).method
        loops.add((run_path.compiled_path(method), has_force_elements(method.model)))
    # the loop with joint limits too, with force elements and without (imported robots with joint damping)
    wanted = {(path, elements) for path in run_path.PATHS for elements in (False, True)}
    assert wanted <= loops


def test_the_contact_group_steps_contacts_with_every_method_that_has_them():
    """Each method with contacts has a task in the contact group, on a scene with shapes on several bodies
    (a first contact step after the warm-up compiled 10-13 s for Featherstone and Lagrange without)."""
    from impulsim.io import scene_from_string
    methods = set()
    for task in W.warmup_tasks(["contact"]):
        sim = scene_from_string(task.scene).simulation(method=task.method, **dict(task.options))
        if len(sim.method.model.shape_body) > 1:
            methods.add(type(sim.method).__name__)
    assert {"ImpulseMethod", "FeatherstoneMethod", "LagrangeMethod", "MoreauMethod"} <= methods


_COMPILES_IN_TASKS = _LISTEN + textwrap.dedent("""
    from impulsim.warmup import run_task, warmup_tasks
    for task in warmup_tasks(sys.argv[1:]):
        run_task(task)
    print(json.dumps(seen))
""")


@pytest.mark.slow
def test_parallel_warmup_leaves_nothing_for_a_later_process_to_compile(tmp_path):
    """On an empty cache, ``impulsim warmup --jobs 2`` of two groups compiles them in two processes, each
    task's line printed; a later process then runs every task of both groups and compiles no kernel.
    (The two cheapest groups, Lagrange and Moreau, keep the test short; that the impulse tasks take every
    compiled run loop is checked above, and that their kernels load from the cache, in
    test_warmup_fills_the_cache_that_a_later_process_loads.)"""
    groups = ["lagrange", "moreau"]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p))
    env.pop("IMPULSIM_KERNEL_CACHE", None)
    code = f"import sys; from impulsim.cli import main; sys.exit(main(['warmup', '--jobs', '2', *{groups!r}]))"
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=3600)
    assert warm.returncode == 0, warm.stderr
    tasks = W.warmup_tasks(groups)
    ready = [ln for ln in warm.stderr.splitlines() if ": ready (" in ln]
    assert sorted(ln.split(": ready (")[0] for ln in ready) == sorted(
        f"[{i}/{len(tasks)}] {t.name}" for i, t in enumerate(tasks, 1))
    assert "(2 processes side by side)" in warm.stderr.splitlines()[-1]
    later = subprocess.run([sys.executable, "-c", _COMPILES_IN_TASKS, *groups], env=env, capture_output=True,
                           text=True, timeout=600)
    assert later.returncode == 0, later.stderr
    assert json.loads(later.stdout.strip().splitlines()[-1]) == []
