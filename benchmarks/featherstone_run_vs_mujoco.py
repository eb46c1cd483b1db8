"""Microseconds per step of FeatherstoneMethod.run and .step against MuJoCo RK4 (mj_step) on the scenes of
cost_accuracy.py, in one process: python benchmarks/featherstone_run_vs_mujoco.py chain tree

CPU time (process), medians of 15 blocks of 200 steps (run, MuJoCo) or 7 blocks of 20 (step), three rounds."""
import sys, time, numpy as np
sys.path.insert(0, __import__("os").path.dirname(__file__))
import cost_accuracy as C
import impulsim as ims
import mujoco
from impulsim.bench import mujoco_peer as P
from impulsim.methods.featherstone import run_loop
run_loop.COMPILE_PAYS_STEPS = 0     # take the compiled loop even before Numba's cache holds it
def med(f, n, blocks=15):
    ts = []
    for _ in range(blocks):
        t0 = time.process_time()
        for _ in range(n): f()
        ts.append((time.process_time() - t0) / n)
    return np.median(ts) * 1e6
for scene in sys.argv[1:]:
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
