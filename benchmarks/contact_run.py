"""CPU µs per step of bodies in contact, free or on joints corrected one by one: ``method.step`` in a Python loop against ``method.run`` (the
compiled contact loop, methods/impulse/contact_run.py), paired in one process, with a check that both reach
the same state bit for bit.

    PYTHONPATH=src python benchmarks/contact_run.py             # every scene, 9 rounds
    PYTHONPATH=src python benchmarks/contact_run.py --rounds 3 falling_boxes_rest
    PYTHONPATH=src python benchmarks/contact_run.py --compile   # seconds to compile the loop, empty cache
    PYTHONPATH=src:. python benchmarks/contact_run.py --soak 10  # run against step on random piles, bit for bit
    PYTHONPATH=src:. python benchmarks/contact_run.py --soak 10 --joints   # ... with a chain swinging through them

Scenes: the falling_boxes example at rest (from t = 1.5 s) and while it lands (from 0.3 s), the bouncing box while
it slides (from 0.5 s), the peers' heap (the pyramid of 55 cubes of docs/peers.md) with the shock pass after the
first sweep, and four with joints: a chain of three links on random joint types swinging through a random pile of
six bodies (tests/contact/test_contact_run.py's jointed_pile, seed 11, from 0.2 s), a chain of three hinges between
stops and a slider against its stops beside a random pile (its limited_pile, seed 21, from 0.2 s), the ragdoll
example tumbling down its steps (from 1 s), and Bender's wall of 252 stones with its pendulum ball on the way (from
its start; the peers' wall window). A round times a block of steps of each contender in turn (paired_blocks), from
states that started equal; the table gives the medians over the rounds and the median of the per-round ratios.
The loop is compiled (or loaded from the cache) before the rounds.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired_blocks as paired  # noqa: E402

from impulsim.io import load_scene  # noqa: E402
from impulsim.methods.impulse import contact_run  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def _example(name, t0):
    def build():
        sim = load_scene(os.path.join(EXAMPLES, name)).simulation(method="impulse")
        sim.method.run(sim.state, sim.h, int(round(t0 / sim.h)))
        return sim.method, sim.state, sim.h
    return build


def _heap():
    from impulsim.bench import contact as C
    from impulsim.experiments import bender_contacts as S
    model, state = S.pyramid()
    method = C.make_method(model, S.STACK_SETTINGS, shock_propagation=0)
    method.run(state, S.STACK_H, 10)
    return method, state, S.STACK_H


def _jointed_pile():
    from impulsim.io import scene_from_string
    from tests.contact.test_contact_run import jointed_pile
    sim = scene_from_string(jointed_pile(11)).simulation(method="impulse")
    sim.method.run(sim.state, sim.h, 100)
    return sim.method, sim.state, sim.h


def _limited_pile():
    from impulsim.io import scene_from_string
    from tests.contact.test_contact_run import limited_pile
    sim = scene_from_string(limited_pile(21)).simulation(method="impulse")
    sim.method.run(sim.state, sim.h, 100)
    return sim.method, sim.state, sim.h


def _wall():
    from impulsim.bench import contact as C
    from impulsim.experiments import bender_contacts as S
    model, state = S.wall()
    method = C.make_method(model, S.WALL_SETTINGS, **S.WALL_SOLVER, shock_propagation=S.WALL_SHOCK_ITERATIONS)
    method.run(state, S.WALL_H, 2)
    return method, state, S.WALL_H


SCENES = {
    "falling_boxes_rest": (_example("falling_boxes.yaml", 1.5), 50),
    "falling_boxes_landing": (_example("falling_boxes.yaml", 0.3), 50),
    "bouncing_box": (_example("bouncing_box.yaml", 0.5), 50),
    "heap_shock0": (_heap, 20),
    "jointed_pile": (_jointed_pile, 50),
    "limited_pile": (_limited_pile, 50),
    "ragdoll": (_example("ragdoll.yaml", 1.0), 50),
    "wall": (_wall, 10),
}


def contenders(build):
    """The two contenders from one start: (step block, run block, (method, state) of each)."""
    ma, sa, h = build()
    mb, sb, _ = build()

    def stepped(k):
        for _ in range(k):
            ma.step(sa, h)

    def ran(k):
        info = mb.run(sb, h, k)
        if "contacts_run" not in info.timings:
            raise RuntimeError(f"run() stepped in Python (run_path {mb.run_path!r})")
    return stepped, ran, (ma, sa), (mb, sb)


def measure(name, rounds):
    build, block = SCENES[name]
    stepped, ran, a, b = contenders(build)
    times = paired.time_rounds({"step": stepped, "run": ran}, {"step": block, "run": block}, rounds)
    same = all(np.array_equal(getattr(a[1], f), getattr(b[1], f))
               for f in ("body_pos", "body_quat", "body_vel", "body_omega"))
    return dict(scene=name, step_us=float(np.median(times["step"])), run_us=float(np.median(times["run"])),
                ratio=float(np.median(times["run"] / times["step"])), same_state=same,
                contacts=int(b[0].contacts.count))


COMPILE = r"""
import time
from impulsim.io import load_scene
from impulsim.methods.impulse import contact_run
sim = load_scene(PATH).simulation(method="impulse")
c = time.process_time()
sim.method.step(sim.state, sim.h)
first = time.process_time() - c
contact_run.COMPILE_PAYS_STEPS = 0
c = time.process_time()
info = sim.method.run(sim.state, sim.h, 1)
assert "contacts_run" in info.timings
print(f"first step {first:.1f} s CPU, then the loop {time.process_time() - c:.1f} s CPU")
"""


def compile_seconds():
    """The falling_boxes example on an empty kernel cache in a fresh process: the first step's CPU seconds,
    then the compiled loop's."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = COMPILE.replace("PATH", repr(os.path.join(EXAMPLES, "falling_boxes.yaml")))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        print(out.stdout.strip() or out.stderr[-2000:])


SOAK_OPTIONS = ({}, dict(restitution="stronge", shock_propagation=3), dict(restitution="poisson", warm_start=False),
                dict(skip_resolved=True, shock_propagation=0), dict(recovery_speed=float("inf"), capacity=4))


def soak(piles: int, steps: int = 2500, joints: bool = False):
    """``piles`` random piles of 15 bodies (tests/contact/test_contact_run.py's; with ``joints`` its jointed_pile: a
    chain swinging through the pile, two bodies joined, one driven), each under one of SOAK_OPTIONS in turn, ``steps`` steps through ``run`` in random chunks of 1–300 steps and as many calls of ``step``: whether
    the states and the summed figures agree. Returns the number of piles where they do not."""
    from impulsim.io import scene_from_string
    from tests.contact.test_contact_run import jointed_pile, random_pile
    bad = 0
    for seed in range(20, 20 + piles):
        options = SOAK_OPTIONS[seed % len(SOAK_OPTIONS)]
        scene = scene_from_string((jointed_pile if joints else random_pile)(seed, n=15, settings=", eps_vc: 1.0e-4"))
        a, b = (scene.simulation(method="impulse", **options) for _ in range(2))
        rng, ran, done = np.random.default_rng(seed), [], 0
        while done < steps:
            k = min(int(rng.integers(1, 300)), steps - done)
            ran.append(a.method.run(a.state, a.h, k))
            done += k
        stepped = [b.method.step(b.state, b.h) for _ in range(steps)]
        same = all(np.array_equal(getattr(a.state, f), getattr(b.state, f))
                   for f in ("body_pos", "body_quat", "body_vel", "body_omega"))
        figures = all(sum(getattr(r, x) for r in ran) == sum(getattr(r, x) for r in stepped)
                      for x in ("iters_pos", "iters_vel", "n_collisions", "iters_collision", "shock_sweeps",
                                "patch_visits"))
        print(f"pile {seed} {options}: {'same' if same and figures else 'DIFFERENT'}; most contacts "
              f"{max(r.n_contacts for r in stepped)}, steps unconverged "
              f"{sum(not (r.converged_pos and r.converged_vel) for r in stepped)}", flush=True)
        bad += not (same and figures)
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", nargs="*", choices=[[], *SCENES], default=[])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--compile", action="store_true", help="compile seconds on an empty cache instead")
    ap.add_argument("--soak", type=int, default=0, metavar="PILES", help="run against step on random piles instead")
    ap.add_argument("--joints", action="store_true", help="with --soak: piles with a chain and joints")
    args = ap.parse_args(argv)
    if args.compile:
        compile_seconds()
        return
    contact_run.COMPILE_PAYS_STEPS = 0          # the loop compiled (or loaded) before the rounds
    if args.soak:
        sys.exit(1 if soak(args.soak, joints=args.joints) else 0)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.rounds} rounds; CPU µs per step, medians")
    print("| scene | contacts | `step` loop | `run` | run / step | same state |")
    print("|---|---|---|---|---|---|")
    for name in args.scenes or SCENES:
        r = measure(name, args.rounds)
        print(f"| {r['scene']} | {r['contacts']} | {r['step_us']:.1f} | {r['run_us']:.1f} | {r['ratio']:.2f} | "
              f"{'yes' if r['same_state'] else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
