"""Where a Lagrange–Baraff step on Bender's trees spends its time, and its ratio to the impulse LGS step.

``python -m impulsim.bench.lagrange_stages [--levels 8] [--sizes 31,63,127,255] [--integrators rk4,rk2]``
prints two tables:

* the time of each stage of one evaluation of the equations of motion (the RK4 step makes four) and of
  the step's own work around them, each kernel called alone many times on the state of a running tree
  (min and median [ms]);
* ms per step of Lagrange–Baraff and of ``make("impulse", model, solver="lgs", eps_d=1e-6, eps_v=1e-6)``
  on the trees of Table 3.7 (h = 1/30 s), their ratio, and the growth from one tree to the next. The two
  methods step alternately, one step each, so that a change in the machine's speed during the run
  touches both alike; medians after warm-up.

Physics re-check after timing: both runs stay finite and keep their joints together (error < 1 cm).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import impulsim as ims
from impulsim.errors import SimulationError
from impulsim.methods import make
from impulsim.methods.base import StepInfo
from impulsim.methods.lagrange import baraff
from impulsim.methods.lagrange.evaluate import pack, state_derivative, unpack
from impulsim.methods.lagrange.fused import unit_quaternions
from impulsim.methods.lagrange.groups import factor_of, forest_of, system_of
from impulsim.methods.lagrange.integrators import normalize_quaternions, weighted_sum
from impulsim.methods.lagrange.method import LagrangeMethod
from impulsim.experiments.wagner import H, TORQUE, ball_tree
from impulsim.methods.lagrange.system import generalized_forces, stabilized_terms, world_inertia

LEVELS = {31: 5, 63: 6, 127: 7, 255: 8}
WARMUP = 5
JOINT_TOL = 1e-2
"""Largest joint error [m] a timed run may end with: the trees must not come apart while being timed."""


def _started(factory, levels):
    """(method, model, state) after the first step with the 10 N m torque on the root and a few more."""
    model, state = ball_tree(levels)
    method = factory(model)
    state.body_torque[1] = TORQUE
    method.step(state, H)
    state.body_torque[1] = 0.0
    for _ in range(WARMUP):
        method.step(state, H)
    return method, model, state


def _times(fn, repeats):
    out = np.empty(repeats)
    for i in range(repeats):
        t0 = time.perf_counter()
        fn()
        out[i] = time.perf_counter() - t0
    return out


def _evaluation_stages(lag, model, state):
    """name -> callable for each stage of one evaluation at ``state`` (as the one kernel runs them)."""
    ev, tab, sol, m = lag.eval, lag.table, lag.solver, model
    f = sol.forest
    n = m.n_bodies
    y = pack(state)
    out = np.empty_like(y)
    pos, quat, vel, omega = unpack(y, n)

    def factorization():
        baraff.load_rhs(f.node_kind, f.node_ref, f.node_x, f.element_row_start, ev.force, ev.cp, sol.x)
        baraff.factor(forest_of(f), system_of(tab, ev), sol.svd, True, factor_of(sol))

    def back_substitution():
        baraff.back_substitute(f.order, f.node_kind, f.node_size, f.node_parent, f.node_x, f.node_d, f.node_h,
                               sol.node_form, sol.Q, sol.Y, sol.work, sol.x)
        baraff.unload_solution(f.node_kind, f.node_ref, f.node_x, f.element_row_start, sol.x, ev.acc6, ev.lam)

    return {
        "unit quaternions": lambda: unit_quaternions(y, n, ev.quat_unit),
        "world inertia": lambda: world_inertia(ev.quat_unit, m.body_inertia, m.body_inv_inertia, m.body_inv_mass,
                                               ev.Iw, ev.Iw_inv),
        "generalized forces": lambda: generalized_forces(m.body_inv_mass, omega, ev.acc_held, ev.tau_held, ev.Iw,
                                                         ev.Iw_inv, ev.force, ev.a0),
        "rows J, c, C, Ċ": lambda: ev.rows(state.t, pos, ev.quat_unit, vel, omega),
        "stabilized terms c′": lambda: stabilized_terms(ev.row_c, ev.row_C, ev.row_Cd, tab.row_velocity, ev.alpha,
                                                         ev.beta, ev.cp),
        "assembly + factorization + forward elimination": factorization,
        "back substitution + v̇, λ": back_substitution,
        "state derivative": lambda: state_derivative(m.body_static, quat, vel, omega, ev.acc6, *unpack(out, n)),
        "one evaluation, all of the above (one kernel)": lambda: ev.derivative(state.t, y, out),
    }


def _step_stages(lag, model, state):
    """name -> callable for the step's work around the evaluations."""
    n = model.n_bodies
    rk = lag.integrator
    y = pack(state)
    info = StepInfo()

    def runge_kutta_sums():
        for s in range(len(rk.b)):
            weighted_sum(y, rk.k, rk.a[s], s, H, rk.tmp)
        weighted_sum(y, rk.k, rk.b, len(rk.b), H, rk.out)

    return {
        "step: held loads (begin_step)": lambda: lag.eval.begin_step(state.copy(), H),
        "step: pack state": lambda: pack(state, lag.y0),
        "step: RK4 stage inputs and result (5 sums)": runge_kutta_sums,
        "step: normalize quaternions": lambda: normalize_quaternions(rk.out, n),
        "step: residuals (rows at the end state)": lambda: lag._report(state, info),
        "one whole step": lambda: lag.step(state, H),
    }


def stage_times(levels: int = 8, repeats: int = 300) -> list[dict]:
    """Min and median time [ms] of each stage, on the tree with ``levels`` levels."""
    lag, model, state = _started(lambda m: LagrangeMethod(m, solver="baraff"), levels)
    records = []
    stages = {**_evaluation_stages(lag, model, state), **_step_stages(lag, model, state)}
    for name, fn in stages.items():
        fn()
        t = _times(fn, repeats)
        records.append({"tree": 2 ** levels - 1, "stage": name, "min [ms]": 1e3 * t.min(),
                        "median [ms]": 1e3 * float(np.median(t))})
    return records


def _joint_error(model, state):
    return float(ims.diagnostics.constraint_errors(model, state).max())


def _alternate(integrator, levels, steps):
    """Step times [s] of Baraff and LGS stepped one after the other, and their (model, state)."""
    lag, lm, ls = _started(lambda m: LagrangeMethod(m, solver="baraff", integrator=integrator), levels)
    lgs, gm, gs = _started(lambda m: make("impulse", m, solver="lgs", eps_d=1e-6, eps_v=1e-6), levels)
    t_lag, t_lgs = np.empty(steps), np.empty(steps)
    for k in range(steps):
        t0 = time.perf_counter()
        lag.step(ls, H)
        t1 = time.perf_counter()
        lgs.step(gs, H)
        t_lgs[k], t_lag[k] = time.perf_counter() - t1, t1 - t0
    return t_lag, t_lgs, (lm, ls), (gm, gs)


def paired_steps(sizes=(31, 63, 127, 255), integrators=("rk4",), steps: int = 60) -> list[dict]:
    """ms per step of Lagrange–Baraff (each integrator) and impulse LGS 1e-6, stepped alternately."""
    records = []
    previous = {}
    for n in sizes:
        for integ in integrators:
            try:
                t_lag, t_lgs, (lm, ls), (gm, gs) = _alternate(integ, LEVELS[n], steps)
            except SimulationError as exc:      # a blow-up is a result, not a crash of the table
                records.append({"tree": n, "integrator": integ, "physics": f"FAILED: {str(exc).splitlines()[0]}"})
                continue
            ms_lag, ms_lgs = 1e3 * float(np.median(t_lag)), 1e3 * float(np.median(t_lgs))
            errors = (_joint_error(lm, ls), _joint_error(gm, gs))
            ok = np.isfinite(ls.body_pos).all() and np.isfinite(gs.body_pos).all() and max(errors) < JOINT_TOL
            records.append({"tree": n, "integrator": integ, "Baraff [ms/step]": ms_lag, "LGS 1e-6 [ms/step]": ms_lgs,
                            "Baraff / LGS": ms_lag / ms_lgs,
                            "Baraff / previous tree": ms_lag / previous[integ] if integ in previous else "",
                            "physics": "ok" if ok else f"FAILED: joint errors {errors[0]:.1e}, {errors[1]:.1e} m"})
            previous[integ] = ms_lag
    return records


def main(argv=None) -> None:
    from impulsim.bench import markdown_table
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--levels", type=int, default=8, help="tree of the stage table (8: 255 bodies)")
    p.add_argument("--sizes", default="31,63,127,255")
    p.add_argument("--integrators", default="rk4")
    p.add_argument("--steps", type=int, default=60)
    a = p.parse_args(argv)
    print(markdown_table(stage_times(a.levels)))
    print()
    print(markdown_table(paired_steps(tuple(int(s) for s in a.sizes.split(",")), tuple(a.integrators.split(",")),
                                      a.steps)))


if __name__ == "__main__":
    main()
