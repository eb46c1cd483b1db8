"""Microseconds per step against the number of bodies: the impulse method's compiled ``run`` loop and its
``step`` in a Python loop beside MuJoCo's Euler and RK4 integrators, on Bender's chains and trees, measured
in one process in paired blocks.

    PYTHONPATH=src nice python benchmarks/scaling.py                    # the table (about 4 minutes)
    PYTHONPATH=src nice python benchmarks/scaling.py --quick            # 5 rounds instead of 25
    PYTHONPATH=src nice python benchmarks/scaling.py --sizes chain10 tree63 --json out.json
    PYTHONPATH=src python benchmarks/scaling.py --render out.json --before before.json --plot scaling.png

Models (impulsim.experiments.bender): Bender's ball-joint chain of 10, 30, 100, 300 and 1000 links (h = 10 ms;
every link starts at 2 m/s in its own seeded direction) and his binary trees of 63, 127, 255, 511 and 1023
bodies (h = 1/30 s; 10 N m on the root for the first step). Every contender starts from the same state: the
one after the impulse method's first step (which carries the tree's torque and projects the chain's
initial velocities onto its joints), as in ``impulsim bench bender``.

Window: every contender steps within the first WINDOW = 500 steps from that state (Bender's tree runs); one
that would step beyond starts again from the start, untimed. Over longer runs the light leaves of the trees
whip until neither engine holds them at h = 1/30 s, and the time per step would measure that. Before timing,
the impulse method's run over the window must converge at every step; on chains of 150 links and more it
diverges at h = 10 ms, and then every contender runs at h/2, h/4, … (the first step at which it converges; the
table names the larger steps and where they failed).

Contenders: the impulse method with its LGS solver at its defaults (eps 1e-6), contacts off, through
``method.run`` (the compiled loop, compiled before timing) and through ``method.step`` in a Python loop;
MuJoCo on the model converted by impulsim.bench.mujoco_peer (same bodies, masses, inertias and joints;
contacts and the energy computation off), integrators Euler (its default) and RK4, the same h, its other
options at their defaults. On a version of impulsim without ``run`` the run column stays empty.

Timing (benchmarks/paired_blocks.py): rounds of one block of each contender in turn, in CPU time of the
process; a block is sized to take about 10 ms (one step where a single step takes longer, at most 454 steps
so that a block and its lead fit in the window); medians over the rounds of the µs per step and of the
per-round ratios. Models whose rounds take long get fewer rounds (at least 3; at most ``--budget`` seconds of
rounds per model). Beside the times: the LGS solves per step (position and velocity phase) and the largest
joint error over the steps the impulse contenders took, from a re-run with ``step`` that checks every step
and must reach the contenders' last states bit for bit; MuJoCo's warning counters over all its passes (it
warns and resets the state when a step is unstable): a ratio against an unstable MuJoCo run is flagged.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired_blocks as paired  # noqa: E402

import impulsim as ims  # noqa: E402
from impulsim.dynamics import diagnostics  # noqa: E402
from impulsim.errors import SimulationError  # noqa: E402
from impulsim.experiments import bender as scenes  # noqa: E402

try:
    from impulsim.methods.impulse import run_path
except ImportError:          # a version before the compiled run loop
    run_path = None

CHAIN_H, TREE_H = 0.01, 1.0 / 30.0
MODELS = {f"chain{n}": ("chain", n, CHAIN_H) for n in (10, 30, 100, 300, 1000)}
MODELS.update({f"tree{2 ** L - 1}": ("tree", 2 ** L - 1, TREE_H) for L in (6, 7, 8, 9, 10)})
CONTENDERS = ("run", "step", "euler", "rk4")
LABELS = {"run": "impulse run()", "step": "impulse step() loop", "euler": "MuJoCo Euler", "rk4": "MuJoCo RK4"}
ROUNDS, QUICK_ROUNDS, MIN_ROUNDS = 25, 5, 3
BLOCK_S = 0.01
"""Target CPU seconds of one timed block."""
BUDGET_S = 40.0
"""CPU seconds of timed rounds per model at most (the rounds are cut to fit, but not below MIN_ROUNDS)."""
WINDOW = 500
"""Steps from the start within which every contender steps (Bender's tree runs: 500 steps); a contender
that would step beyond it starts again from the start, untimed."""
LADDER = 3
"""Steps tried after Bender's: h/2 … h/2^LADDER."""


def build(key):
    """(model, Bender's initial state) of the model named ``key`` ("chain10", "tree63", …)."""
    scene, n, _ = MODELS[key]
    return scenes.chain(n) if scene == "chain" else scenes.tree(scenes.tree_size_levels(n))


def impulse(model):
    return ims.make_method("impulse", model, solver="lgs", contacts=False)


def start_state(key, model, state, h):
    """The common start: ``state`` after one impulse step of ``h`` [s] (with the tree's kick on the root: the
    angular impulse of 10 N m over 1/30 s, whatever h)."""
    scene, _, bender_h = MODELS[key]
    s = state.copy()
    if scene == "tree":
        s.body_torque[1] = np.asarray(scenes.TREE_TORQUE) * (bender_h / h)
    impulse(model).step(s, h)
    s.body_torque[:] = 0.0
    return s


def has_run(model) -> bool:
    """Whether this version of impulsim steps the model in a compiled ``run`` loop."""
    m = impulse(model)
    return run_path is not None and hasattr(m, "run") and getattr(m, "run_path", None) is not None


def mujoco_momentum(data):
    """Linear momentum [kg m/s] of MuJoCo's bodies (world frame) and every body's centre velocity [m/s]."""
    import mujoco
    m = data.model
    out = np.zeros((m.nbody - 1, 6))
    for i in range(1, m.nbody):
        mujoco.mj_objectVelocity(m, data, mujoco.mjtObj.mjOBJ_BODY, i, out[i - 1], 0)
    v = out[:, 3:]           # at the body frame's origin, which the conversion puts at the centre of mass
    return (m.body_mass[1:, None] * v).sum(axis=0), v


def start_gap(model, state1, data):
    """How far MuJoCo's start is from ours: |Δ linear momentum| [kg m/s], |our linear momentum| and the
    largest |Δ v| of a body centre [m/s] (our body k is MuJoCo's body named "bk")."""
    import mujoco
    p, v = mujoco_momentum(data)
    ours = diagnostics.linear_momentum(model, state1)
    ids = {mujoco.mj_name2id(data.model, mujoco.mjtObj.mjOBJ_BODY, f"b{k}"): k for k in range(1, model.n_bodies)}
    ids.pop(-1, None)
    dv = max(float(np.linalg.norm(v[i - 1] - state1.body_vel[k])) for i, k in ids.items())
    return float(np.linalg.norm(p - ours)), float(np.linalg.norm(ours)), dv


class Windowed:
    """A contender that steps within the window of WINDOW steps from the start: before a block that would
    leave it, it starts again from the start (untimed, in :meth:`prepare`). Counts its steps, keeps the
    furthest step it reached and MuJoCo's warnings of every pass."""

    def __init__(self, name, make):
        self.name, self.make = name, make
        self.steps, self.furthest, self.warnings = 0, 0, {}
        self.fn, self.handle, self.since = None, None, 0
        self.restart()

    def restart(self):
        if self.name in ("euler", "rk4") and self.handle is not None:
            for k, v in paired.mujoco_warnings(self.handle).items():
                self.warnings[k] = self.warnings.get(k, 0) + v
        self.fn, self.handle = self.make()
        self.since = 0

    def prepare(self, k):
        if self.since + k > WINDOW:
            self.restart()

    def __call__(self, k):
        self.fn(k)
        self.since += k
        self.steps += k
        self.furthest = max(self.furthest, self.since)

    def all_warnings(self):
        self.restart()          # adds the last pass's warnings
        return self.warnings


def per_step_estimate(c: Windowed):
    """Warm-up (loads or compiles the kernels) and CPU seconds per step from a few growing blocks."""
    t0 = time.process_time()
    c(1)
    first = time.process_time() - t0
    if c.name in ("euler", "rk4") and first > BLOCK_S:
        return first          # one MuJoCo step longer than a block: its own estimate (no compile to exclude)
    k = 1
    while True:
        c.prepare(k)
        t0 = time.process_time()
        c(k)
        dt = time.process_time() - t0
        if dt >= 0.2 * BLOCK_S or 4 * k > WINDOW:
            return dt / k
        k *= 4


def fails(model, state1, h, steps=WINDOW):
    """The first step (counted from ``state1``) within ``steps`` steps of ``h`` at which the impulse method
    diverges or does not converge, or None."""
    method, s = impulse(model), state1.copy()
    for i in range(steps):
        try:
            info = method.step(s, h)
        except SimulationError:
            return i + 1
        if not (info.converged_pos and info.converged_vel):
            return i + 1
    return None


def replay(model, state1, h, contenders):
    """Re-run the furthest any impulse contender reached from ``state1`` with ``step``, checking every step:
    the largest joint error [m], the mean solves per step (pos, vel), whether each contender's last state is
    bit for bit the state after as many steps, and whether every step converged."""
    method, s = impulse(model), state1.copy()
    worst, solves, same, converged = 0.0, np.zeros(2), {}, True
    furthest = max(c.furthest for c in contenders)
    for i in range(1, furthest + 1):
        info = method.step(s, h)
        worst = max(worst, float(diagnostics.constraint_errors(model, s).max(initial=0.0)))
        solves += (info.iters_pos, info.iters_vel)
        converged &= bool(info.converged_pos and info.converged_vel)
        for c in contenders:
            if c.since == i:
                same[c.name] = all(np.array_equal(getattr(s, a), getattr(c.handle, a))
                                   for a in ("body_pos", "body_quat", "body_vel", "body_omega"))
    return worst, solves / max(furthest, 1), same, converged


def measure(key, rounds=ROUNDS, contenders=CONTENDERS, budget=BUDGET_S):
    """The record of one model: µs per step (median CPU) of every contender, the medians of the per-round
    ratios, the impulse method's solves and largest joint error, MuJoCo's stability, and the start check.

    Every contender steps within the first WINDOW steps from the start (Bender's 500 steps of the tree), the
    window in which the impulse method's run must converge at every step. At Bender's step it does not on
    the long chains; then every contender runs at h/2, h/4, … (the first at which it does): ``h`` is the step
    used, ``failed`` the step number at which each larger one diverged or did not converge."""
    if run_path is not None:
        run_path.COMPILE_PAYS_STEPS = 0     # the run contender compiles its loop on its first call
    model, state = build(key)
    failed = {}
    h = MODELS[key][2]
    for _ in range(LADDER + 1):
        state1 = start_state(key, model, state, h)
        at = fails(model, state1, h)
        if at is None:
            rec = measure_at(key, model, state1, h, rounds, contenders, budget)
            rec["failed"] = failed
            return rec
        failed[f"{h:.6g}"] = at
        h /= 2
    raise SimulationError(f"{key}: the impulse method fails at every step down to {2 * h:.3g} s: {failed}")


def maker(c, model, state1, h):
    """A function that makes contender ``c`` afresh at ``state1``: (block function, its state or MjData)."""
    if c in ("run", "step"):
        def make():
            fn, _, s = paired.impulse_contender(model, state1, h, "lgs", compiled=c == "run")
            return fn, s
        return make
    import mujoco
    fn, data = paired.mujoco_contender(model, state1, h, "Euler" if c == "euler" else "RK4")
    start = mujoco.MjData(data.model)
    mujoco.mj_copyData(start, data.model, data)
    first = [True]

    def make():
        if not first[0]:            # the converted model is built once (a chain of 1000 takes a minute)
            mujoco.mj_copyData(data, data.model, start)
        first[0] = False
        return fn, data
    return make


def measure_at(key, model, state1, h, rounds, contenders, budget):
    """:func:`measure` at the step ``h`` [s] from ``state1``."""
    scene, n, _ = MODELS[key]
    contenders = [c for c in contenders if c != "run" or has_run(model)]
    fns, notes = {}, {}
    for c in contenders:
        try:
            fns[c] = Windowed(c, maker(c, model, state1, h))
        except Exception as exc:        # a version whose converter cannot build this model
            notes[c] = f"not built: {str(exc).splitlines()[0]}"
            continue
        if c in ("euler", "rk4") and "start_momentum" not in notes:     # before MuJoCo's first step
            dp, p, dv = start_gap(model, state1, fns[c].handle)
            notes.update(start_momentum=p, start_momentum_gap=dp, start_velocity_gap=dv)
    per_step = {c: per_step_estimate(fn) for c, fn in fns.items()}
    blocks = {c: min(max(1, int(round(BLOCK_S / t))), WINDOW * 10 // 11) for c, t in per_step.items()}
    round_s = sum((b + paired.lead_of(b)) * per_step[c] for c, b in blocks.items())
    rounds = max(min(rounds, MIN_ROUNDS), min(rounds, int(budget / max(round_s, 1e-9))))
    times = paired.time_rounds(fns, blocks, rounds, prepare=lambda c, k: fns[c].prepare(k))
    rec = dict(model=key, scene=scene, bodies=n, h=h, rounds=rounds, blocks=blocks,
               steps={c: fn.steps for c, fn in fns.items()}, window=WINDOW,
               notes={c: v for c, v in notes.items() if c in CONTENDERS},
               us={c: float(np.median(t)) for c, t in times.items()}, ratios={},
               load_average=os.getloadavg()[0], version=_version())
    rec.update({k: v for k, v in notes.items() if k.startswith("start_")})
    for a in ("run", "step"):
        for b in ("euler", "rk4"):
            if a in times and b in times:
                rec["ratios"][f"{a}/{b}"] = float(np.median(times[a] / times[b]))
    if "run" in times and "step" in times:
        rec["ratios"]["run/step"] = float(np.median(times["run"] / times["step"]))
    ours = [fns[c] for c in ("run", "step") if c in fns]
    if ours:
        worst, solves, same, converged = replay(model, state1, h, ours)
        rec.update(max_joint_error=worst, solves_pos=float(solves[0]), solves_vel=float(solves[1]),
                   replay_identical=same, converged=converged, furthest_step=max(c.furthest for c in ours))
    rec["mujoco_warnings"] = {c: fns[c].all_warnings() for c in ("euler", "rk4") if c in fns}
    rec["mujoco_stable"] = {c: not w for c, w in rec["mujoco_warnings"].items()}
    return rec


def _version():
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.abspath(ims.__file__))).stdout.strip()
    except OSError:
        return ""


def spread(values, digits=3):
    """The value, or the range "lo–hi" of the values of several runs ("–" when there is none)."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    lo, hi = f"{min(values):.{digits}g}", f"{max(values):.{digits}g}"
    return lo if lo == hi else f"{lo}–{hi}"


def stability(recs):
    """"yes" or the warnings of each MuJoCo integrator that warned (in any of the runs ``recs``)."""
    recs = [recs] if isinstance(recs, dict) else recs
    if not any(r.get("mujoco_warnings") for r in recs):
        return "–"
    bad = [(c, w) for r in recs for c, w in r.get("mujoco_warnings", {}).items() if w]
    return "yes" if not bad else "; ".join(
        f"{LABELS[c].split()[1]} NO ({', '.join(f'{k} {v}' for k, v in w.items())})" for c, w in bad)


def ratio(recs, name):
    """The median paired ratio (its range over several runs), marked "(unstable)" when a MuJoCo run it
    compares with warned."""
    recs = [recs] if isinstance(recs, dict) else recs
    unstable = any(not r.get("mujoco_stable", {}).get(name.split("/")[1], True) for r in recs
                   if name in r.get("ratios", {}))
    text = spread([r.get("ratios", {}).get(name) for r in recs])
    return text + (" (unstable)" if unstable and text != "–" else "")


def us(recs, c):
    return spread([r["us"].get(c) for r in recs])


def step_size(rec):
    """h [s], with the larger steps at which the impulse method failed (and the step number)."""
    div = rec.get("failed") or {}
    return f"{rec['h']:.3g}" + (f" ({'; '.join(f'{k}: fails at step {v}' for k, v in div.items())})"
                                if div else "")


HEADER = ("| model | bodies | h [s] | rounds | run() µs | step() µs | MuJoCo Euler µs | MuJoCo RK4 µs | "
          "run / Euler | run / RK4 | step / Euler | solves per step (pos + vel) | max joint error [m] | "
          "MuJoCo stable |")


def row(recs):
    """A row of the table: one record, or the records of several runs of the same model (ranges)."""
    recs = [recs] if isinstance(recs, dict) else recs
    r = recs[0]
    solves = " / ".join(sorted({f"{x['solves_pos']:.2f} + {x['solves_vel']:.2f}" for x in recs
                                if "solves_pos" in x})) or "–"
    return (f"| {r['scene']} | {r['bodies']} | {step_size(r)} | {spread([x['rounds'] for x in recs])} | "
            f"{us(recs, 'run')} | {us(recs, 'step')} | {us(recs, 'euler')} | {us(recs, 'rk4')} | "
            f"{ratio(recs, 'run/euler')} | {ratio(recs, 'run/rk4')} | {ratio(recs, 'step/euler')} | {solves} | "
            f"{spread([x.get('max_joint_error') for x in recs], 2)} | {stability(recs)} |")


BEFORE_HEADER = ("| model | bodies | h [s] | before: step() µs | before: step / Euler | before: step / RK4 | "
                 "now: step() µs | now: run() µs | now: step / Euler | now: run / Euler | now: run / RK4 |")


def before_after_row(recs, olds):
    """One model's before (the step loop of the version without run) and now; every run in its own process,
    so the paired ratios compare across runs and the µs only roughly."""
    r = recs[0]
    return (f"| {r['scene']} | {r['bodies']} | {r['h']:.3g} | {us(olds, 'step')} | {ratio(olds, 'step/euler')} | "
            f"{ratio(olds, 'step/rk4')} | {us(recs, 'step')} | {us(recs, 'run')} | {ratio(recs, 'step/euler')} | "
            f"{ratio(recs, 'run/euler')} | {ratio(recs, 'run/rk4')} |")


def by_model(runs):
    """{model: [its record in each run]} in the order of the first run."""
    out = {}
    for records in runs:
        for r in records:
            out.setdefault(r["model"], []).append(r)
    return out


def plot(records, before, path):
    """``records``, ``before``: the first run of each."""
    """µs per step against bodies (log-log), one line per contender; chains and trees in two panels."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    styles = {"run": ("C0", "o-"), "step": ("C1", "s-"), "euler": ("C2", "^--"), "rk4": ("C3", "v--")}
    for ax, scene in zip(axes, ("chain", "tree")):
        recs = sorted((r for r in records if r["scene"] == scene), key=lambda r: r["bodies"])
        for c, (colour, style) in styles.items():
            pts = [(r["bodies"], r["us"][c]) for r in recs if c in r["us"]]
            if pts:
                ax.plot(*zip(*pts), style, color=colour, label=LABELS[c])
        old = sorted((r for r in before if r["scene"] == scene and "step" in r["us"]), key=lambda r: r["bodies"])
        if old:
            ax.plot([r["bodies"] for r in old], [r["us"]["step"] for r in old], "s:", color="C1", alpha=0.5,
                    label="impulse step() loop, before run()")
        smaller = "".join(f"; {r['h'] * 1e3:.3g} ms at {r['bodies']}" for r in recs
                          if r["h"] != MODELS[r["model"]][2])
        ax.set(xscale="log", yscale="log", xlabel="bodies", ylabel="CPU µs per step",
               title=f"{scene}s (h = {'10 ms' if scene == 'chain' else '1/30 s'}{smaller})")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def render(runs, before_runs=(), plot_path=None):
    """The tables of one or several runs (ranges over the runs), and the plot of the first."""
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    now = by_model(runs)
    for recs in now.values():
        print(row(recs))
    if before_runs:
        old = by_model(before_runs)
        print()
        print(BEFORE_HEADER)
        print("|" + "---|" * (BEFORE_HEADER.count("|") - 1))
        for key, recs in now.items():
            print(before_after_row(recs, old.get(key, [])))
    if plot_path:
        plot(runs[0], before_runs[0] if before_runs else [], plot_path)
        print(f"\nplot: {plot_path}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_ROUNDS} rounds instead of {ROUNDS}")
    ap.add_argument("--sizes", nargs="+", choices=list(MODELS), default=list(MODELS), metavar="MODEL",
                    help="models to measure: " + " ".join(MODELS))
    ap.add_argument("--contenders", default=",".join(CONTENDERS), help="comma-separated subset of "
                    + ",".join(CONTENDERS))
    ap.add_argument("--budget", type=float, default=BUDGET_S, help="CPU seconds of rounds per model at most")
    ap.add_argument("--json", metavar="OUT", help="save the records")
    ap.add_argument("--render", metavar="JSON", nargs="+", help="print the tables of saved records (of one or "
                    "several runs: ranges) instead of measuring")
    ap.add_argument("--before", metavar="JSON", nargs="+", help="records of the version before run() (one or "
                    "several runs), for the before/after table and the plot")
    ap.add_argument("--plot", metavar="PNG", help="write the plot")
    args = ap.parse_args(argv)
    before = [json.load(open(f)) for f in args.before or ()]
    if args.render:
        render([json.load(open(f)) for f in args.render], before, args.plot)
        return
    contenders = tuple(c for c in args.contenders.split(",") if c)
    unknown = set(contenders) - set(CONTENDERS)
    if unknown:
        ap.error(f"unknown contenders {sorted(unknown)}; choose from {','.join(CONTENDERS)}")
    rounds = QUICK_ROUNDS if args.quick else ROUNDS
    print(f"impulsim {_version()}; load average {os.getloadavg()[0]:.2f}; up to {rounds} rounds; "
          f"CPU µs per step, medians", flush=True)
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1), flush=True)
    records, wall, cpu = [], time.perf_counter(), time.process_time()
    for key in args.sizes:
        rec = measure(key, rounds, contenders, args.budget)
        records.append(rec)
        print(row(rec), flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(records, f, indent=1)
    print(f"{time.perf_counter() - wall:.0f} s ({time.process_time() - cpu:.0f} s CPU); load average "
          f"{os.getloadavg()[0]:.2f}")
    if before or args.plot:
        render([records], before, args.plot)


if __name__ == "__main__":
    main()
