"""Step Bender's 255-body tree (eps 1e-6, h = 1/30 s, 10 N m on the root for the first step) in one engine,
for whole-process timings from outside.

    python benchmarks/tree_steps.py impulse STEPS      # the impulse method, LGS
    python benchmarks/tree_steps.py mujoco STEPS       # MuJoCo (Euler) on the converted model

Time the process at two step counts and take the difference: (T(N2) − T(N1)) / (N2 − N1) is the time per step
without start-up (imports, compilation cache, model building), which differs between the engines. For
example, with GNU time: ``/usr/bin/time -f %e python benchmarks/tree_steps.py impulse 3000`` and ``... 500``.
Both engines start from the state after our first (kicked) step, as in ``impulsim bench tree``.
"""
import sys

from impulsim.bench import bender, harness


def main(engine: str, steps: int) -> None:
    case = next(c for c in bender._tree_cases(True)
                if c.n_bodies == 255 and c.method == "lgs" and c.tol == 1e-6)
    model, state = case.build()
    method = harness._method(case, model)
    state.body_torque[1] = case.torque
    method.step(state, case.h)
    state.body_torque[1] = 0.0
    if engine == "impulse":
        for _ in range(steps):
            method.step(state, case.h)
    elif engine == "mujoco":
        import mujoco
        from impulsim.bench import mujoco_peer
        peer = mujoco_peer.build(model, state, case.h)
        d = mujoco_peer.initial_data(peer, model, state)
        for _ in range(steps):
            mujoco.mj_step(peer.mj_model, d)
    else:
        raise SystemExit(f"unknown engine {engine!r} (use impulse or mujoco)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], int(sys.argv[2]))
