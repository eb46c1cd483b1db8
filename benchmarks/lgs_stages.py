"""Nanoseconds per call of each stage of the impulse method's LGS step on a small model, each stage repeated
in a compiled loop from one state (no Python between the calls): where the step's time goes when the model is
too small for the solve to dominate.

    PYTHONPATH=src python benchmarks/lgs_stages.py                   # the triple pendulum (h = 1 ms)
    PYTHONPATH=src python benchmarks/lgs_stages.py --model chain10   # Bender's chain of 10 links (h = 10 ms)

The model is run 500 steps through ``method.run`` first (LGS solver, eps 1e-6), then each stage is timed from
that state: rows and factorization at the current poses (split into the world inverse inertias, the nodes'
Jacobian rows, the assembly of M and its block factorization), one free prediction of every body, the joint
correction, the velocity correction and the whole correction sequence of a step (``lgs_corrections``, the
kernel the compiled run loop calls each step). Stages that change the bodies' motion start each call from a
copy of it; the copy's own time is measured alone and subtracted. CPU time of the process, the minimum of 7
repetitions of 20 000 calls.
"""
from __future__ import annotations

import argparse
import time

import numba
import numpy as np

import impulsim as ims
from impulsim.bench import orders
from impulsim.dynamics.integrate import rotation_scheme
from impulsim.experiments import bender
from impulsim.methods.impulse import run_path
from impulsim.methods.impulse.groups import bodies_of, chains_of, fac_of, pred_of, prims_of, rows_of, structure_of
from impulsim.methods.impulse.lgs_correct import correct_positions_lgs, correct_velocities_lgs, predict_bodies
from impulsim.methods.impulse.lgs_kernels import assemble, factorize, node_jacobians
from impulsim.methods.impulse.lgs_step import _rows_and_factorization, lgs_corrections
from impulsim.methods.impulse.rows import world_inverse_inertia

MODELS = {"triple_pendulum": (orders.triple_pendulum, 1e-3), "chain10": (lambda: bender.chain(10), 1e-2)}
CALLS, REPEATS = 20_000, 7
EPS, CAP, MAX_SPEED, DEPENDENT = 1e-6, 10_000, 10.0, 1e-9


@numba.njit
def _copy2(src, dst):
    for k in range(src.shape[0]):
        for i in range(src.shape[1]):
            dst[k, i] = src[k, i]


@numba.njit
def _restore(bodies, saved):
    """The bodies' motion (pos, quat, vel, omega) from ``saved``."""
    _copy2(saved[0], bodies[0])
    _copy2(saved[1], bodies[1])
    _copy2(saved[2], bodies[2])
    _copy2(saved[3], bodies[3])


@numba.njit
def _restores(k, bodies, saved):
    for _ in range(k):
        _restore(bodies, saved)


@numba.njit
def _inertias(k, bodies):
    for _ in range(k):
        world_inverse_inertia(bodies[1], bodies[8], bodies[6])


@numba.njit
def _jacobians(k, struct, prims, bodies, rows, fac):
    for _ in range(k):
        node_jacobians(struct[0], prims[0], prims[1], prims[2], prims[3], prims[4], prims[5], prims[6], bodies[0],
                       bodies[1], bodies[6], rows[0], rows[1], rows[2], rows[3], fac[0], fac[1], fac[2])


@numba.njit
def _assembly(k, struct, prims, bodies, fac):
    for _ in range(k):
        assemble(struct[0], struct[1], prims[1], prims[2], bodies[9], fac[0], fac[1], fac[2], struct[2], struct[3],
                 struct[4], struct[5], struct[6], fac[3], fac[4])


@numba.njit
def _factorization(k, struct, fac, dep):
    for _ in range(k):
        factorize(0, struct[0].shape[0], fac[3], fac[4], struct[7], struct[8], struct[9], struct[10], struct[11],
                  struct[12], dep, fac[5], fac[6], fac[7], fac[8])


@numba.njit
def _rows_and_factorizations(k, struct, prims, bodies, rows, fac, dep):
    for _ in range(k):
        _rows_and_factorization(struct, prims, bodies, dep, rows, fac)


@numba.njit
def _predictions(k, members, bodies, pred, h, scheme):
    for _ in range(k):
        predict_bodies(members, bodies, pred, h, scheme)


@numba.njit
def _positions(k, chains, struct, prims, bodies, rows, fac, pred, h, scheme, saved):
    for _ in range(k):
        _restore(bodies, saved)
        correct_positions_lgs(chains, struct, prims, bodies, rows, fac, pred, h, scheme, EPS, CAP, MAX_SPEED)


@numba.njit
def _velocities(k, chains, struct, prims, bodies, rows, fac, saved):
    for _ in range(k):
        _restore(bodies, saved)
        correct_velocities_lgs(chains, struct, prims, bodies, rows, fac, EPS, CAP)


@numba.njit
def _corrections(k, chains, struct, prims, bodies, rows, fac, pred, h, scheme, saved):
    for _ in range(k):
        _restore(bodies, saved)
        lgs_corrections(chains, struct, prims, bodies, rows, fac, pred, h, scheme, EPS, EPS, CAP, CAP, MAX_SPEED,
                        DEPENDENT, True)


def _ns(kernel, *args) -> float:
    """Minimum over REPEATS of the CPU nanoseconds per call of ``kernel(CALLS, *args)``."""
    kernel(10, *args)
    best = np.inf
    for _ in range(REPEATS):
        t = time.process_time()
        kernel(CALLS, *args)
        best = min(best, (time.process_time() - t) / CALLS * 1e9)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(MODELS), default="triple_pendulum")
    args = ap.parse_args(argv)
    build, h = MODELS[args.model]
    model, state = build()
    run_path.COMPILE_PAYS_STEPS = 0
    method = ims.make_method("impulse", model, solver="lgs", eps_d=EPS, eps_v=EPS, contacts=False)
    method.run(state, h, 500)
    solves = np.zeros((1, 2), np.int64)
    method.run(state, h, 1, iters=solves)
    lgs = method._lgs
    chains, struct, fac = chains_of(lgs), structure_of(lgs), fac_of(lgs)
    prims, bodies, rows, pred = prims_of(model), bodies_of(model, state, method), rows_of(method), pred_of(method)
    scheme = rotation_scheme(method.integrator)
    saved = tuple(a.copy() for a in bodies[:4])
    members = np.arange(1, model.n_bodies, dtype=np.int64)
    copy = _ns(_restores, bodies, saved)
    print(f"{args.model}: {model.n_bodies - 1} bodies, {struct[0].shape[0]} LGS nodes, {int(solves[0, 0])} position "
          f"and {int(solves[0, 1])} velocity solves in the next step; CPU ns per call, min of {REPEATS}")
    rows_out = [
        ("rows and factorization", _ns(_rows_and_factorizations, struct, prims, bodies, rows, fac, DEPENDENT)),
        ("  world inverse inertias", _ns(_inertias, bodies)),
        ("  nodes' Jacobian rows", _ns(_jacobians, struct, prims, bodies, rows, fac)),
        ("  assembly of M", _ns(_assembly, struct, prims, bodies, fac)),
        ("  block factorization", _ns(_factorization, struct, fac, DEPENDENT)),
        ("free prediction of every body", _ns(_predictions, members, bodies, pred, h, scheme)),
        ("joint correction", _ns(_positions, chains, struct, prims, bodies, rows, fac, pred, h, scheme, saved) - copy),
        ("velocity correction", _ns(_velocities, chains, struct, prims, bodies, rows, fac, saved) - copy),
        ("the step's corrections (lgs_corrections)",
         _ns(_corrections, chains, struct, prims, bodies, rows, fac, pred, h, scheme, saved) - copy),
    ]
    for name, ns in rows_out:
        print(f"  {name:<44} {ns:8.0f}")
    print(f"  (copy of the motion, subtracted where a stage starts from it: {copy:.0f})")


if __name__ == "__main__":
    main()
