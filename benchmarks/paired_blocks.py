"""Timing in paired blocks, shared by the benchmarks that put impulsim's steps beside MuJoCo's in one process
(small_models.py, scaling.py).

A contender is a function ``block(k)`` that advances its own simulation by k steps. :func:`time_rounds`
measures rounds; a round times one block of every contender in turn, so a change of load on a shared machine
hits all of them alike, in CPU time of the process (time spent waiting for a core is not counted). Each timed
block follows an untimed tenth of a block of the same contender: the contender before it (a Python loop of
``step`` calls, above all) leaves the processor's caches full of its own code and data, which had cost the
next one up to 20 % on the smallest models. Only figures of one process compare: the per-round ratios
between contenders are the figures to read on a busy machine.
"""
from __future__ import annotations

import time

import numpy as np

import impulsim as ims
from impulsim.bench import mujoco_peer


def mujoco_contender(model, state, h, integrator="Euler"):
    """(block, data): MuJoCo stepping ``model`` from ``state`` with ``integrator`` and step ``h`` [s], the
    energy computation off (contacts are off in the converted model); ``data`` is its MjData, to read the
    warning counters and the state after the run."""
    import mujoco
    peer = mujoco_peer.build(model, state, h, integrator)
    peer.mj_model.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    data = mujoco_peer.initial_data(peer, model, state)
    m = peer.mj_model

    def block(k):
        for _ in range(k):
            mujoco.mj_step(m, data)
    return block, data


def mujoco_warnings(data) -> dict:
    """MuJoCo's warning counters that are non-zero, by name (an unstable step warns and resets the state),
    plus "non-finite state" when positions or velocities are not finite."""
    import mujoco
    out = {w.name: int(data.warning[int(w)].number) for w in mujoco.mjtWarning.__members__.values()
           if int(w) < int(mujoco.mjtWarning.mjNWARNING) and data.warning[int(w)].number}
    if not (np.isfinite(data.qpos).all() and np.isfinite(data.qvel).all()):
        out["non-finite state"] = 1
    return out


def impulse_contender(model, state, h, solver="lgs", compiled=False):
    """(block, method, state): the impulse method stepping a copy of ``state`` with step ``h`` [s], contacts
    off; ``compiled``: through ``method.run`` (the compiled loop; an error if it stepped in Python), else
    ``method.step`` in a Python loop."""
    method = ims.make_method("impulse", model, solver=solver, contacts=False)
    s = state.copy()
    if compiled:
        def block(k):
            info = method.run(s, h, k)
            if f"{method.run_path}_run" not in info.timings:
                raise RuntimeError(f"run() of {solver} stepped in Python, not in its compiled loop")
    else:
        def block(k):
            for _ in range(k):
                method.step(s, h)
    return block, method, s


def lead_of(block: int) -> int:
    """Untimed steps before a timed block of ``block`` steps: a tenth, none before a single step (a block of
    one step is one long step, 20 ms or more, which a warm cache does not change)."""
    return max(1, block // 10) if block > 1 else 0


def time_rounds(contenders: dict, blocks: dict, rounds: int, prepare=None) -> dict:
    """CPU µs per step of every contender in every round: {name: array over rounds}. ``blocks``: steps per
    timed block of each contender; ``prepare(name, steps)``, untimed, before each contender's next steps."""
    times = {k: [] for k in contenders}
    for _ in range(rounds):
        for key, fn in contenders.items():
            if prepare is not None:
                prepare(key, lead_of(blocks[key]) + blocks[key])
            fn(lead_of(blocks[key]))        # untimed: the caches hold this contender's code and data again
            t0 = time.process_time()
            fn(blocks[key])
            times[key].append((time.process_time() - t0) / blocks[key] * 1e6)
    return {k: np.array(v) for k, v in times.items()}
