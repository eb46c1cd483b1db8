"""MuJoCo as a fair peer: a scan of its solver options on a scene, and the choice a MuJoCo user would make.

MuJoCo's default options (Newton solver, 100 iterations, pyramidal cones, Jacobian chosen by size, islands
on) suit small articulated robots. On a pile of a thousand free bodies a MuJoCo user picks other options,
and a comparison against the defaults would flatter impulsim. :func:`scan` steps the same MJCF scene under
every combination of

- solver: Newton, CG, PGS
- iterations: 100 (the default), 30, 10
- friction cone: pyramidal (the default), elliptic
- constraint Jacobian: dense, sparse, auto (MuJoCo picks sparse from 60 degrees of freedom on: the same as
  sparse on every scene here, measured all the same)
- islands: MuJoCo 4 splits the constraint problem into independent islands unless ``mjDSBL_ISLAND`` is set
  (there is no enable bit; islands are on by default). Scanned on and off.

and records for each: the median time per step (process CPU time, which other processes on a shared machine
do not inflate; wall time beside it), the largest penetration (the most negative contact distance MuJoCo
reports, over all steps of the window), the largest displacement of the bodies that should stay at rest
(``rest_bodies``), an optional scene count (e.g. cubes through a funnel), and whether the run stayed stable
(finite state, no entry in MuJoCo's warning counters).

:func:`best_reasonable` then picks the fastest stable configuration whose quality is within
:data:`QUALITY_FACTOR` times the default configuration's (penetration and rest drift each, plus an absolute
slack :data:`QUALITY_SLACK_M` so that a default of 1e-9 m does not rule out everything): a user would accept
MuJoCo's own accuracy at its defaults, and would not accept a faster setting that lets bodies sink twice as
deep or lets a resting structure creep twice as far.

Physics that differ from impulsim's whatever the options (docs/peers.md): MuJoCo's contacts are soft (the
constraint force grows with penetration, so bodies sink into each other by an amount set by solref/solimp and
the time step), they have no coefficient of restitution (a contact's bounce comes from the soft spring and
its damping), and there is one friction coefficient per contact (no static/dynamic pair).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, asdict
from typing import Callable, Optional

import numpy as np

SOLVERS = ("Newton", "CG", "PGS")
ITERATIONS = (100, 30, 10)
CONES = ("pyramidal", "elliptic")
JACOBIANS = ("dense", "sparse", "auto")
QUALITY_FACTOR = 2.0
"""A configuration is acceptable when its penetration and its rest drift are each at most this factor times
the default configuration's (plus QUALITY_SLACK_M)."""
QUALITY_SLACK_M = 1e-4
"""Absolute slack [m] added to the bound: below 0.1 mm the comparison is within the window's noise."""


@dataclass(frozen=True)
class Config:
    """One combination of MuJoCo's solver options (names as in MJCF)."""
    solver: str = "Newton"
    iterations: int = 100
    cone: str = "pyramidal"
    jacobian: str = "auto"
    islands: bool = True

    @property
    def label(self) -> str:
        return (f"{self.solver} {self.iterations} it, {self.cone}, {self.jacobian}"
                f"{'' if self.islands else ', no islands'}")

    def mjcf_option(self) -> str:
        """The attributes of MJCF's <option> (and its <flag> for islands) that give this configuration."""
        flag = '' if self.islands else '<flag island="disable"/>'
        return (f'solver="{self.solver}" iterations="{self.iterations}" cone="{self.cone}" '
                f'jacobian="{self.jacobian}"', flag)

    def apply(self, m) -> None:
        """Set this configuration on a compiled MjModel ``m`` in place."""
        import mujoco
        m.opt.solver = getattr(mujoco.mjtSolver, f"mjSOL_{self.solver.upper()}")
        m.opt.iterations = int(self.iterations)
        m.opt.cone = getattr(mujoco.mjtCone, f"mjCONE_{self.cone.upper()}")
        m.opt.jacobian = getattr(mujoco.mjtJacobian, f"mjJAC_{self.jacobian.upper()}")
        bit = int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
        m.opt.disableflags = (int(m.opt.disableflags) & ~bit) | (0 if self.islands else bit)


DEFAULT = Config()
"""MuJoCo 4.0's defaults (checked on a compiled empty model: Newton, 100, pyramidal, auto, islands on)."""


def configurations(islands=(True, False)) -> list[Config]:
    """Every combination scanned, the default first."""
    out = [Config(s, i, c, j, isl) for s in SOLVERS for i in ITERATIONS for c in CONES for j in JACOBIANS
           for isl in islands]
    out.remove(DEFAULT)
    return [DEFAULT] + out


@dataclass
class Result:
    """What one configuration did over the scan's window."""
    config: Config
    steps: int                      # steps timed (fewer than asked if the budget ran out)
    cpu_ms: float                   # median process CPU time per step [ms]
    wall_ms: float                  # median wall-clock time per step [ms]
    penetration: float              # largest penetration over the window [m] (−min contact distance, ≥ 0)
    drift: float                    # largest displacement of a rest body from the window's start [m]
    count: Optional[float]          # the scene's count at the end (e.g. bodies through), or None
    stable: bool                    # finite state and no MuJoCo warning
    warnings: dict = field(default_factory=dict)
    avg_contacts: float = 0.0

    def row(self) -> dict:
        d = asdict(self)
        d["config"] = self.config.label
        return d


def load(xml: str, config: Config = DEFAULT):
    """(MjModel, MjData) of ``xml`` with ``config`` applied, positions computed (mj_forward)."""
    import mujoco
    m = mujoco.MjModel.from_xml_string(xml)
    config.apply(m)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return m, d


def penetration(d) -> float:
    """Largest penetration [m] among d's current contacts (0 when none penetrates)."""
    n = d.ncon
    if n == 0:
        return 0.0
    return max(0.0, -float(np.min(d.contact.dist[:n])))


def warning_counts(d) -> dict:
    """MuJoCo's warning counters that are non-zero, by name."""
    import mujoco
    out = {}
    for w in mujoco.mjtWarning.__members__.values():
        if int(w) < int(mujoco.mjtWarning.mjNWARNING) and d.warning[int(w)].number:
            out[w.name] = int(d.warning[int(w)].number)
    return out


def snapshot(m, d):
    """The state of d that decides its next step, warm start included (restore with :func:`restore`)."""
    import mujoco
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    s = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, s, spec)
    return s


def restore(m, d, s) -> None:
    import mujoco
    mujoco.mj_resetData(m, d)
    mujoco.mj_setState(m, d, s, mujoco.mjtState.mjSTATE_INTEGRATION)
    mujoco.mj_forward(m, d)


def run_window(m, d, steps: int, rest_bodies=None, count: Optional[Callable] = None, warmup: int = 2,
               budget_s: float = float("inf")) -> dict:
    """Step (m, d) ``steps`` times from its current state; time each step after ``warmup``; stop early once
    ``budget_s`` of wall-clock time is spent (at least one timed step: a configuration a hundred times slower
than the others needs no median of many). Quality as in :class:`Result`."""
    import mujoco
    rest = np.asarray(rest_bodies if rest_bodies is not None else [], int)
    start = d.xpos[rest].copy()
    cpu, wall, ncon = [], [], []
    pen, drift, t_start = 0.0, 0.0, time.perf_counter()
    for k in range(steps):
        w0, c0 = time.perf_counter(), time.process_time()
        mujoco.mj_step(m, d)
        c1, w1 = time.process_time(), time.perf_counter()
        if k >= warmup:
            cpu.append(c1 - c0)
            wall.append(w1 - w0)
        ncon.append(d.ncon)
        pen = max(pen, penetration(d))
        if len(rest):
            drift = max(drift, float(np.linalg.norm(d.xpos[rest] - start, axis=1).max()))
        if not (np.isfinite(d.qpos).all() and np.isfinite(d.qvel).all()):
            break
        if w1 - t_start > budget_s and k >= warmup:
            break
    warns = warning_counts(d)
    stable = bool(np.isfinite(d.qpos).all() and np.isfinite(d.qvel).all() and not warns)
    return dict(steps=len(cpu), cpu_ms=1e3 * float(np.median(cpu)) if cpu else float("nan"),
                wall_ms=1e3 * float(np.median(wall)) if wall else float("nan"), penetration=pen, drift=drift,
                count=count(m, d) if count else None, stable=stable, warnings=warns,
                avg_contacts=float(np.mean(ncon)) if ncon else 0.0)


def mujoco_error():
    import mujoco
    return mujoco.FatalError


def scan(xml: str, steps: int, configs=None, start=None, rest_bodies=None, count=None, warmup: int = 2,
         budget_s: float = float("inf"), progress: Optional[Callable] = None) -> list[Result]:
    """Run the window of ``steps`` steps under each configuration (default: :func:`configurations`), each from
    the same start: ``start`` (a full-physics state from :func:`snapshot`) or the model's initial state."""
    results = []
    for cfg in configs or configurations():
        m, d = load(xml, cfg)
        if start is not None:
            restore(m, d, start)
        try:
            r = Result(config=cfg, **run_window(m, d, steps, rest_bodies, count, warmup, budget_s))
        except mujoco_error() as exc:    # e.g. the arena too small for this configuration: reported, not hidden
            r = Result(config=cfg, steps=0, cpu_ms=float("nan"), wall_ms=float("nan"), penetration=float("nan"),
                       drift=float("nan"), count=None, stable=False,
                       warnings={"FatalError": str(exc).splitlines()[0]})
        results.append(r)
        if progress:
            progress(r)
    return results


def quality_bound(default: Result, factor: float = QUALITY_FACTOR, slack: float = QUALITY_SLACK_M):
    """(largest penetration, largest rest drift) [m] a configuration may show to count as reasonable."""
    return factor * default.penetration + slack, factor * default.drift + slack


def acceptable(r: Result, default: Result, factor: float = QUALITY_FACTOR, slack: float = QUALITY_SLACK_M) -> bool:
    """Stable, and penetration and rest drift within :func:`quality_bound` of the default's."""
    pen, drift = quality_bound(default, factor, slack)
    return r.stable and r.steps > 0 and r.penetration <= pen and r.drift <= drift


def best_reasonable(results: list[Result], factor: float = QUALITY_FACTOR,
                    slack: float = QUALITY_SLACK_M, default_config=None, engine: str = "MuJoCo") -> Result:
    """The fastest (median CPU time per step) acceptable result; the default configuration's result
    (``default_config``, MuJoCo's DEFAULT if None; another engine's scan passes its own) must be among
    ``results`` (it sets the bound). If the default itself is unstable, the bound is taken from the most
    accurate stable result instead."""
    default_config = DEFAULT if default_config is None else default_config
    default = next((r for r in results if r.config == default_config), None)
    if default is None:
        raise ValueError(f"best_reasonable: the scan must include {engine}'s default configuration")
    ref = default
    if not default.stable:
        stable = [r for r in results if r.stable]
        if not stable:
            raise RuntimeError("best_reasonable: no configuration stayed stable")
        ref = min(stable, key=lambda r: (r.penetration, r.drift))
    ok = [r for r in results if acceptable(r, ref, factor, slack)]
    return min(ok, key=lambda r: r.cpu_ms)


def confirm(xml: str, results: list[Result], default: Result, steps: int, count=None, rest_bodies=None,
            factor: float = QUALITY_FACTOR, slack: float = QUALITY_SLACK_M, progress=None, first: int = 0,
            checks: Optional[int] = None):
    """Check the scan's choice over a long run. The acceptable configurations, fastest in the scan first,
    are run for ``steps`` steps each from the scene's initial state: with ``checks`` None until the first
    keeps the bound (penetration and rest drift within ``factor`` × ``default``'s, plus ``slack``) over the
    whole run; otherwise candidates ``first`` … ``first + checks − 1`` all, the fastest over the long run among
    those that keep the bound chosen (a window's speed ranks configurations only roughly: on the funnel CG 10
    with elliptic cones took 6 ms per step in the window and 8.5 ms over the run, CG 30 pyramidal 9.4 and 4.1).
    A short window can also miss what happens elsewhere in the run (on the funnel, CG 10 without islands
    passed the window at t = 2 s but let cubes sink 0.94 m into each other when the block hit the funnel at
    t = 1.9 s and blew the pile apart). Returns (the chosen long-run Result or None, every long Result)."""
    def long_run(r):
        m, d = load(xml, r.config)
        return Result(config=r.config, **run_window(m, d, steps, rest_bodies, count))
    return confirm_with(long_run, results, default, factor, slack, progress, first, checks)


def confirm_with(long_run: Callable, results: list[Result], default: Result, factor: float = QUALITY_FACTOR,
                 slack: float = QUALITY_SLACK_M, progress=None, first: int = 0, checks: Optional[int] = None):
    """The confirmation rule of :func:`confirm` for any engine: ``long_run(result)`` runs a candidate's
    configuration over the whole run and returns its Result. Returns (the chosen long-run Result or None,
    every long Result)."""
    pen, drift = quality_bound(default, factor, slack)
    ok = sorted((r for r in results if acceptable(r, default, factor, slack)), key=lambda r: r.cpu_ms)
    ok = ok[first:] if checks is None else ok[first:first + checks]
    checked, passed = [], []
    for r in ok:
        long = long_run(r)
        checked.append(long)
        if progress:
            progress(long)
        if long.stable and long.penetration <= pen and long.drift <= drift:
            passed.append(long)
            if checks is None:
                break
    return (min(passed, key=lambda r: r.cpu_ms) if passed else None), checked


def table(results: list[Result], chosen: Optional[Result] = None) -> str:
    """Markdown table of a scan, fastest first; the chosen row marked."""
    lines = ["| configuration | steps | CPU ms/step | wall ms/step | max penetration [m] | rest drift [m] | "
             "count | contacts | stable |", "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(results, key=lambda r: (np.isnan(r.cpu_ms), r.cpu_ms)):
        mark = " **(chosen)**" if chosen is not None and r.config == chosen.config else ""
        mark += " (default)" if r.config == DEFAULT else ""
        warn = "yes" if r.stable else ("no: " + ", ".join(f"{k} {v}" for k, v in r.warnings.items()) or "no: NaN")
        lines.append(f"| {r.config.label}{mark} | {r.steps} | {r.cpu_ms:.3g} | {r.wall_ms:.3g} | "
                     f"{r.penetration:.3g} | {r.drift:.3g} | {'' if r.count is None else r.count} | "
                     f"{r.avg_contacts:.0f} | {warn} |")
    return "\n".join(lines)
