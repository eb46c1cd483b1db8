"""Nanoseconds per body of the free-step prediction (``free_step_body``, as the joint correction calls it for
every body of a chain) on the bodies of the 10-link chain and the triple pendulum, in a compiled loop after
50 steps of motion; the method's default rotation scheme (RK4, so these symmetric, torque-free bodies turn
in closed form).

    PYTHONPATH=src python benchmarks/predict_bodies.py
"""
import time

import numpy as np
from numba import njit

import impulsim as ims
from impulsim.bench import orders
from impulsim.dynamics.integrate import Integrator, free_step_body, rotation_scheme, store_body
from impulsim.experiments import bender as scenes
from impulsim.math.vec import q4, v3


@njit
def _predict(n, pos, quat, vel, omega, acc, tau, inertia, inv_inertia, inv_mass, static, h, scheme,
             pp, pq, pv, pw):
    for _ in range(n):
        for k in range(pos.shape[0]):
            if static[k]:
                continue
            p, q, v, w = free_step_body(v3(pos[k]), q4(quat[k]), v3(vel[k]), v3(omega[k]), v3(acc[k]), v3(tau[k]),
                                        v3(inertia[k]), v3(inv_inertia[k]), inv_mass[k], h, scheme)
            store_body(k, p, q, v, w, pp, pq, pv, pw)
        omega[1, 0] += 1e-12            # the inputs change between rounds, as the solves change them


def main(rounds=15, n=20000):
    for name, build, h in (("chain 10", lambda: scenes.chain(10), 0.01), ("triple pendulum", orders.triple_pendulum,
                                                                           1e-3)):
        model, state = build()
        ims.make_method("impulse", model, solver="lgs", contacts=False).run(state, h, 50)
        nb = model.n_bodies
        acc = np.tile(np.array([0.0, 0.0, -9.81]), (nb, 1))
        args = (state.body_pos.copy(), state.body_quat.copy(), state.body_vel.copy(), state.body_omega.copy(), acc,
                np.zeros((nb, 3)), model.body_inertia, model.body_inv_inertia, model.body_inv_mass, model.body_static,
                h, rotation_scheme(Integrator.RK4), np.zeros((nb, 3)), np.zeros((nb, 4)), np.zeros((nb, 3)),
                np.zeros((nb, 3)))
        moving = int(nb - model.body_static.sum())
        _predict(10, *args)
        times = []
        for _ in range(rounds):
            t0 = time.process_time()
            _predict(n, *args)
            times.append((time.process_time() - t0) / n / moving * 1e9)
        print(f"{name}: {np.median(times):.1f} ns per body prediction (CPU, median of {rounds} rounds)")


if __name__ == "__main__":
    main()
