"""Microseconds per step of FeatherstoneMethod.run and .step against MuJoCo RK4 (mj_step) on the scenes of
cost_accuracy.py, in one process: python benchmarks/featherstone_run_vs_mujoco.py chain tree [--stages]

CPU time (process), medians of 15 blocks of 200 steps (run, MuJoCo) or 7 blocks of 20 (step), three rounds.
--stages adds the cost of one evaluation's parts, each called 200 times in a compiled loop (fastest of 15
blocks): the poses and velocities, the rest of the evaluation (loads and the ABA) and the articulated
inertias inside it; an RK4 step of ``run`` takes four evaluations, three of them with the poses."""
import sys, time, numpy as np
sys.path.insert(0, __import__("os").path.dirname(__file__))
import cost_accuracy as C
import impulsim as ims
import mujoco
from impulsim.bench import mujoco_peer as P
from impulsim.methods.featherstone import run_loop
run_loop.COMPILE_PAYS_STEPS = 0     # take the compiled loop even before Numba's cache holds it
from numba import njit
from impulsim.methods.featherstone import aba, fused
from impulsim.methods.featherstone.groups import model_of


@njit
def _poses(k, tree, mdl, ws, q, qd):
    for _ in range(k):
        fused.pose_and_velocities(tree, mdl, ws, q, qd, True)


@njit
def _dynamics(k, tree, mdl, ws, q, qd, qdot, qdd):
    for _ in range(k):
        fused.dynamics(tree, mdl, ws, 0.0, q, qd, qdot, qdd)


@njit
def _inertias(k, tree, ws):
    for _ in range(k):
        aba.articulated_inertias(tree[2], tree[5], ws[8], ws[9], ws[10], ws[11], ws[12], ws[20])


def stages(m):
    """Microseconds of the parts of one evaluation at the method's current (q, q̇)."""
    i = m.integrator
    q, qd, qdot, qdd = m.q.copy(), m.qd.copy(), np.zeros_like(i.kq[0]), np.zeros_like(i.kv[0])
    mdl = model_of(m.model)
    out = {}
    for name, f, args in (("poses and velocities", _poses, (i.tree, mdl, i.ws, q, qd)),
                          ("loads and ABA", _dynamics, (i.tree, mdl, i.ws, q, qd, qdot, qdd)),
                          ("  of which articulated inertias", _inertias, (i.tree, i.ws))):
        f(1, *args)
        ts = []
        for _ in range(15):
            t0 = time.process_time()
            f(200, *args)
            ts.append((time.process_time() - t0) / 200)
        out[name] = min(ts) * 1e6
    return out


def med(f, n, blocks=15):
    ts = []
    for _ in range(blocks):
        t0 = time.process_time()
        for _ in range(n): f()
        ts.append((time.process_time() - t0) / n)
    return np.median(ts) * 1e6
for scene in [a for a in sys.argv[1:] if not a.startswith("--")]:
    model, state = C.SCENES[scene]()
    m = ims.make_method("featherstone", model, **C.TOL)
    m.run(state, 1e-5, 10)
    assert m.run_path == "compiled", m.run_path
    model2, state2 = C.SCENES[scene]()
    peer = P.build(model2, state2, 1e-3, "RK4")
    d = P.initial_data(peer, model2, state2)
    for _ in range(100): mujoco.mj_step(peer.mj_model, d)
    N = 200
    for rep in range(3):
        ours = med(lambda: m.run(state, 1e-5, N), 1) / N
        step = med(lambda: m.step(state, 1e-5), 20, 7)
        mj = med(lambda: mujoco.mj_step(peer.mj_model, d), N)
        print(f"{scene}: run {ours:.1f} us/step, step {step:.1f}, MuJoCo RK4 {mj:.1f}, ratio run/mj {ours/mj:.2f}", flush=True)
    if "--stages" in sys.argv:
        for name, us in stages(m).items():
            print(f"{scene}: {name} {us:.2f} us per evaluation", flush=True)
