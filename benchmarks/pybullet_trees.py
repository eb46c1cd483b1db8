"""Bender's ball-joint chains and trees: impulsim's impulse method (LGS, tolerance 1e-6) and PyBullet's
multibody (Featherstone, reduced coordinates, impulsim.bench.pybullet_peer.build_tree) paired in one process.

    nice python benchmarks/pybullet_trees.py [--block 50] [--json FILE]

Both start from the state after impulsim's first step (the tree's first step carries the 10 N m kick on its
root, as in ``impulsim bench``), so the velocities satisfy the joints. The engines alternate blocks of
``--block`` steps, each block timed in process CPU time; the ratio is impulsim's time over PyBullet's. Beside
it: the largest distance between the two engines' body centres at the end (the engines integrate differently:
PyBullet's semi-implicit Euler against the impulse method's scheme; not an accuracy figure, a check that
they simulate the same system), and each engine's reach at the end (the largest distance of a body centre from
the fixed joint at the origin: a tree that stays together reaches no farther than its height). Sizes
PyBullet 3.2.7 does not hold as multibodies (more than 32 spherical links: chain 50, trees 63 and 255) are
reported as refused.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

import impulsim as ims
from impulsim.bench import bender as BB
from impulsim.bench import harness
from impulsim.bench import pybullet_peer as P
from impulsim.experiments import bender as B

CASES = (("chain", 10), ("chain", 50), ("tree", 31), ("tree", 63), ("tree", 255))


def _build(kind, n):
    if kind == "chain":
        model, state = B.chain(n)
        return model, state, BB.CHAIN_H, BB.CHAIN_STEPS, None
    model, state = B.tree(B.tree_size_levels(n))
    return model, state, BB.TREE_H, BB.TREE_STEPS, B.TREE_TORQUE


def paired(kind, n, block=50):
    model, state, h, steps, torque = _build(kind, n)
    method = ims.make_method("impulse", model, eps_d=1e-6, eps_v=1e-6, solver="lgs",
                             max_iter_pos=harness.MAX_SOLVES, max_iter_vel=harness.MAX_SOLVES)
    if torque is not None:
        state.body_torque[1] = torque
    method.step(state, h)                   # compiles the kernels; the start of both runs
    state.body_torque[1] = 0.0
    try:
        tree = P.build_tree(model, state, h)
    except NotImplementedError as exc:
        return dict(scene=kind, bodies=n, refused=str(exc), load=os.getloadavg())
    ours, theirs, done = [], [], 0
    while done < steps:
        k = min(block, steps - done)
        c = time.process_time()
        for _ in range(k):
            method.step(state, h)
        ours.append(time.process_time() - c)
        c = time.process_time()
        for _ in range(k):
            tree.step()
        theirs.append(time.process_time() - c)
        done += k
    apart = float(np.linalg.norm(tree.positions() - state.body_pos[tree.links], axis=1).max())
    reach_ours = float(np.linalg.norm(state.body_pos[tree.links], axis=1).max())
    reach_pb = float(np.linalg.norm(tree.positions(), axis=1).max())
    tree.close()
    o, t = 1e3 * sum(ours) / steps, 1e3 * sum(theirs) / steps
    return dict(scene=kind, bodies=n, h=h, steps=steps, block=block, ours_cpu_ms=o, pybullet_cpu_ms=t,
                ratio=o / t, centres_apart_at_end_m=apart, ours_reach_m=reach_ours,
                pybullet_reach_m=reach_pb, load=os.getloadavg())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--block", type=int, default=50)
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    out = []
    for kind, n in CASES:
        r = paired(kind, n, a.block)
        print(json.dumps(r), flush=True)
        out.append(r)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
