"""``impulsim bench methods``: Bender's Table 3.7 in one run, the double-pendulum accuracy table and the
contact scenes, for every method of the library.

Part 1 (Bender Sec. 3.4, Table 3.7): trees of 31/63/127/255 bodies on ball joints, h = 1/30 s, 10 N m on
the root for the first step. Per method: median wall time per step after warm-up [ms] beside the thesis's
figure (3.4 GHz Pentium 4), the first step apart (it includes Numba compilation on a cold cache), and the
largest joint error over the run [m] (the drift; the Lagrange variants are run with and without Baumgarte).
Physics re-check after timing: the state is finite, the joints have not come apart (error < 1 cm) and
the energy after the kick has not grown by more than the most kinetic energy the motion can have (the
harness's STABLE_DRIFT times the energy above a lower bound of the potential; a reduced-coordinate method
keeps its joints exactly even while it blows up, so the joint error alone would pass it).
Featherstone (RK4 and semi-implicit Euler) and Moreau run with ``contacts=False``: the other methods detect
no contacts in a jointed system either, and the tree's neighbouring boxes overlap at their joints, so
contact handling would push them apart (Featherstone then blows up within a few steps).
Each row also gives its time over the impulse LGS 1e-6 time on the same tree and over its own time on the
next smaller tree; ``python -m impulsim.bench.lagrange_stages`` breaks the Baraff step into its stages
and times Baraff and LGS step by step in alternation (the sturdier ratio on a busy machine).
The impulse LGS rows appear when ``make("impulse", model, solver="lgs")`` works.

Part 2: the double pendulum (two 1 m rods released horizontally) against the reduced-coordinate SciPy
reference of :func:`impulsim.experiments.bender.double_pendulum_reference`: angle error after 1 s and 10 s for several h, for
every method variant; one log-log plot ``bench_methods_accuracy.png`` in the working directory.

Part 3 (:mod:`impulsim.bench.method_contacts`): a box sliding to rest on an incline and a ball bouncing with
e = 0.5, run by every contact-capable method at the same steps: stopping-distance and apex errors against
the analytic values, and ms per step. Methods without a contact model get a row that says so.

The records carry a "table" key (one Markdown table each when printed).
"""
from __future__ import annotations

import math
import time

import numpy as np

import impulsim as ims
from impulsim.bench import first_line
from impulsim.bench.harness import STABLE_DRIFT
from impulsim.bench.method_contacts import contact_records
from impulsim.methods import make
from impulsim.methods.lagrange.method import LagrangeMethod
from impulsim.experiments.bender import double_pendulum, double_pendulum_reference
from impulsim.experiments.wagner import H, TORQUE, ball_tree, tree_layout

WARMUP = 3
LEVELS = {31: 5, 63: 6, 127: 7, 255: 8}
# Bender, Table 3.7 [ms per step]
THESIS = {"impulse iterative 1e-3": (2.73, 7.86, 20.35, 51.47), "impulse iterative 1e-4": (7.07, 21.87, 63.77, 176.96),
          "impulse iterative 1e-6": (15.87, 54.25, 169.07, 494.15), "impulse LGS 1e-3": (3.51, 6.95, 18.38, 57.72),
          "impulse LGS 1e-4": (3.99, 7.09, 19.05, 57.61), "impulse LGS 1e-6": (4.53, 7.89, 19.66, 59.48),
          "Lagrange dense": (212.12, 2190.0, 25200.0, 175450.0), "Lagrange Baraff": (7.72, 16.84, 35.29, 82.05)}
SIZES = (31, 63, 127, 255)
QUICK_SIZES = (31, 63)
TREES, ACCURACY = "Table 3.7 trees", "double pendulum accuracy"
SLOW = ("Lagrange dense", "Moreau")
"""Methods run for 15 steps instead of 60 on the two big trees (0.2–0.5 s per step there)."""


def tree_methods(model):
    """(label, factory) of every variant timed on the trees; LGS only where it exists."""
    out = []
    for tol in (1e-3, 1e-4, 1e-6):
        out.append((f"impulse iterative {tol:.0e}".replace("e-0", "e-"),
                    lambda m, t=tol: make("impulse", m, solver="iterative", eps_d=t, eps_v=t)))
    if lgs_available(model):
        for tol in (1e-3, 1e-4, 1e-6):
            out.append((f"impulse LGS {tol:.0e}".replace("e-0", "e-"),
                        lambda m, t=tol: make("impulse", m, solver="lgs", eps_d=t, eps_v=t)))
    out.append(("Lagrange dense", lambda m: LagrangeMethod(m, solver="dense")))
    out.append(("Lagrange Baraff", lambda m: LagrangeMethod(m, solver="baraff")))
    out.append(("Lagrange Baraff, no stabilization", lambda m: LagrangeMethod(m, solver="baraff", stabilization="none")))
    # contacts off: see the module docstring; the joint check is a diagnostic this benchmark makes itself
    for integ in ("rk4", "euler"):
        out.append((f"Featherstone {integ}", lambda m, i=integ: make("featherstone", m, integrator=i, contacts=False,
                                                                     measure_joints=False)))
    out.append(("Moreau", lambda m: make("moreau", m, contacts=False)))
    return out


def lgs_available(model) -> bool:
    try:
        make("impulse", model, solver="lgs")
        return True
    except Exception:
        return False


def time_tree(label, factory, n_bodies, steps) -> dict:
    model, state = ball_tree(LEVELS[n_bodies])
    t0 = time.perf_counter()
    method = factory(model)
    state.body_torque[1] = TORQUE
    walls, drift, energy = [], 0.0, -np.inf
    for k in range(steps):
        start = time.perf_counter()
        method.step(state, H)
        walls.append(time.perf_counter() - start)
        if k == 0:
            first = time.perf_counter() - t0
            state.body_torque[1] = 0.0
            e1 = ims.diagnostics.total_energy(model, state)
        drift = max(drift, float(ims.diagnostics.constraint_errors(model, state).max()))
        energy = max(energy, ims.diagnostics.total_energy(model, state))
    # after the kick no load does work: the energy may only fall (or rise by the integrator's error)
    gain = (energy - e1) / (e1 - lowest_potential(model, LEVELS[n_bodies]))
    thesis = THESIS.get(label.replace(", no stabilization", ""))
    return {"table": TREES, "tree": n_bodies, "method": label, "steps": steps,
            "median step [ms]": 1e3 * float(np.median(walls[WARMUP:])),
            "thesis [ms]": thesis[SIZES.index(n_bodies)] if thesis and "no stab" not in label else "",
            "first step [s]": first, "max joint error [m]": drift, "energy gain / available": float(gain),
            "physics": _tree_physics(state, drift, gain)}


def lowest_potential(model, levels) -> float:
    """A lower bound of the tree's potential energy [J]: every centre of mass straight below the pivot at the
    length of its path of bodies (joints intact). E − this bound is the most kinetic energy the motion can
    have, the scale of the energy check."""
    g = float(np.linalg.norm(model.gravity))
    reach = {"world": 0.0}          # distance from the pivot to each body's lower end along the tree [m]
    bound = 0.0
    for name, parent, _, _, length in tree_layout(levels):
        bound -= model.body_mass[model.body(name)] * g * (reach[parent] + 0.5 * length)
        reach[name] = reach[parent] + length
    return bound


def _tree_physics(state, drift, gain) -> str:
    if not (np.isfinite(state.body_pos).all() and np.isfinite(gain)):
        return "FAILED: the state is not finite"
    if drift >= 1e-2:
        return f"FAILED: joint error {drift:.2e} m"
    if gain > STABLE_DRIFT:
        return f"FAILED: gained {gain:.3g} × the energy available to the motion"
    return "ok"


def table_3_7(quick: bool) -> list[dict]:
    records = []
    sizes = QUICK_SIZES if quick else SIZES
    for n in sizes:
        model, _ = ball_tree(LEVELS[n])
        for label, factory in tree_methods(model):
            steps = 8 if quick else (15 if label in SLOW and n >= 127 else 60)
            try:
                records.append(time_tree(label, factory, n, steps))
            except Exception as exc:        # another method under construction must not stop the table
                records.append({"table": TREES, "tree": n, "method": label,
                                "physics": f"FAILED to run: {first_line(exc)}"})
    if not lgs_available(ball_tree(5)[0]):
        records.append({"table": TREES, "method": "impulse LGS",
                        "physics": 'not available: make("impulse", model, solver="lgs") failed'})
    add_ratios(records)
    return records + figures(records)


def add_ratios(records) -> None:
    """Columns "÷ LGS 1e-6" (time over the impulse LGS 1e-6 time on the same tree) and "÷ previous tree"
    (time over the same method's time on the next smaller tree: about 2 when linear in the body count)."""
    t = {(r["method"], r["tree"]): r["median step [ms]"] for r in records if "median step [ms]" in r}
    for r in records:
        if "median step [ms]" not in r:
            continue
        lgs = t.get(("impulse LGS 1e-6", r["tree"]))
        smaller = SIZES.index(r["tree"]) - 1
        before = t.get((r["method"], SIZES[smaller])) if smaller >= 0 else None
        ratios = {"÷ LGS 1e-6": r["median step [ms]"] / lgs if lgs else "",
                  "÷ previous tree": r["median step [ms]"] / before if before else ""}
        items = list(r.items())
        at = [k for k, _ in items].index("median step [ms]") + 1
        r.clear()
        r.update(items[:at] + list(ratios.items()) + items[at:])   # beside the time they divide


def figures(records) -> list[dict]:
    """The targets: Baraff linear in body count, and within 2× of impulse LGS (10⁻⁶)."""
    # only runs whose physics passed count: a method that blew up has no meaningful time
    t = {(r["method"], r["tree"]): r["median step [ms]"] for r in records
         if "median step [ms]" in r and r["physics"] == "ok"}
    out = []
    if ("Lagrange Baraff", 255) in t and ("Lagrange Baraff", 127) in t:
        ratio = t[("Lagrange Baraff", 255)] / t[("Lagrange Baraff", 127)]
        out.append({"table": TREES, "method": "figure: Baraff tree 255 / tree 127 (target <= 2.3)",
                    "value": ratio, "physics": "reached" if ratio <= 2.3 else "missed"})
    for n in SIZES:
        if ("impulse LGS 1e-6", n) in t and ("Lagrange Baraff", n) in t:
            ratio = t[("Lagrange Baraff", n)] / t[("impulse LGS 1e-6", n)]
            out.append({"table": TREES, "tree": n, "method": "figure: Baraff / impulse LGS 1e-6 (target <= 2)",
                        "value": ratio, "physics": "reached" if ratio <= 2.0 else "missed"})
    return out


# ---------------------------------------------------------------------------------------------------
# accuracy on the double pendulum

def accuracy_methods(model):
    out = [("impulse iterative", lambda m: make("impulse", m, solver="iterative", eps_d=1e-10, eps_v=1e-10))]
    if lgs_available(model):
        out.append(("impulse LGS", lambda m: make("impulse", m, solver="lgs", eps_d=1e-10, eps_v=1e-10)))
    for integ in ("euler", "rk2", "rk4", "rk45"):
        out.append((f"Lagrange Baraff {integ}", lambda m, i=integ: LagrangeMethod(m, integrator=i)))
    out.append(("Lagrange dense rk4", lambda m: LagrangeMethod(m, solver="dense")))
    for integ in ("rk4", "euler"):
        out.append((f"Featherstone {integ}", lambda m, i=integ: make("featherstone", m, integrator=i)))
    out.append(("Moreau", lambda m: make("moreau", m)))
    for name in ims.METHODS:          # any further method registered in the library, with its defaults
        if name not in ("impulse", "lagrange", "featherstone", "moreau"):
            out.append((name, lambda m, n=name: make(n, m)))
    return out


def pendulum_error(ref, factory, h, t_end, theta0=(math.pi / 2, math.pi / 2)):
    model, state = double_pendulum(*theta0)
    try:
        method = factory(model)
    except Exception as exc:
        return None, f"unsupported: {exc}"
    sim = ims.Simulation(model, state, method=method, h=h)
    errors = {}
    try:
        for t in t_end:
            sim.run(t - sim.t)
            t1 = theta0[0] + ims.diagnostics.joint_coordinate(model, sim.state, "shoulder")
            t2 = t1 + ims.diagnostics.joint_coordinate(model, sim.state, "elbow")
            r1, r2 = ref(t)
            wrap = lambda a: (a + math.pi) % (2 * math.pi) - math.pi
            errors[t] = max(abs(wrap(t1 - r1)), abs(wrap(t2 - r2)))
    except Exception as exc:
        return errors, f"failed: {first_line(exc)}"
    return errors, "ok"


def accuracy(quick: bool, plot_path="bench_methods_accuracy.png") -> list[dict]:
    model, _ = double_pendulum(math.pi / 2, math.pi / 2)
    t_ends = (1.0,) if quick else (1.0, 10.0)
    cache = {t: double_pendulum_reference(model, t) for t in t_ends}
    hs = (1e-2, 5e-3) if quick else (2e-2, 1e-2, 5e-3, 2e-3, 1e-3)
    records = []
    for label, factory in accuracy_methods(model):
        for h in hs:
            errors, status = pendulum_error(lambda t: cache[t], factory, h, t_ends)
            rec = {"table": ACCURACY, "method": label, "h [s]": h}
            for t in t_ends:
                rec[f"error after {t:g} s [rad]"] = errors.get(t, "") if errors else ""
            rec["physics"] = status
            records.append(rec)
    _plot(records, t_ends, plot_path)
    records.append({"table": ACCURACY, "method": f"plot written to {plot_path}"})
    return records


def _plot(records, t_ends, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(t_ends), figsize=(6 * len(t_ends), 4.5), squeeze=False)
    for ax, t in zip(axes[0], t_ends):
        key = f"error after {t:g} s [rad]"
        for label in dict.fromkeys(r["method"] for r in records):
            pts = [(r["h [s]"], r[key]) for r in records if r["method"] == label and isinstance(r.get(key), float)]
            if pts:
                h, e = zip(*pts)
                ax.loglog(h, np.maximum(e, 1e-16), "o-", label=label)
        ax.set_xlabel("step size h [s]")
        ax.set_ylabel("max angle error [rad]")
        ax.set_title(f"double pendulum, error after {t:g} s")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(quick: bool = False) -> list[dict]:
    """Records for ``impulsim bench methods``; ``quick`` keeps to the two small trees, 1 s of the pendulum
    and two steps of the contact scenes."""
    return table_3_7(quick) + accuracy(quick) + contact_records(quick)
