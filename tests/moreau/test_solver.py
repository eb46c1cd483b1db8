"""The prox iterations: Gauss–Seidel and Jacobi reach the same solution; the r-factor adaptation rescues
a diverging iteration; contact loads feed back into joint loads."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.errors import ModelError
from impulsim.geometry import HalfSpace
from impulsim.methods.moreau import MoreauMethod, RunnerFriction
from impulsim.methods.moreau import prox
from impulsim.methods.moreau.groups import blocks_of, rows_of
from impulsim.methods.moreau.loads import induced_joint_load
from impulsim.methods.moreau.rows import BILATERAL, RowBuffers
from impulsim.experiments.rempfler import G, incline_box, stopping_distance

E_A_TIGHT = 1e-9


def slide(solver, h=1e-3):
    model, state, downhill = incline_box()
    # cold starts: with the contact warm start both solvers need one sweep per step while the box slides
    method = MoreauMethod(model, e_a=E_A_TIGHT, solver=solver, warm_start=False)
    start = state.body_pos[2].copy()
    sweeps = []
    for _ in range(int(1.2 / h)):
        sweeps.append(method.step(state, h).iters_vel)
    return float(np.dot(state.body_pos[2] - start, downhill)), np.median(sweeps)


def test_jacobi_and_gauss_seidel_agree_on_the_incline():
    d_gs, sweeps_gs = slide("gauss_seidel")
    d_j, sweeps_j = slide("jacobi")
    # both within the scheme's O(g h²) of the analytic distance (see test_contacts), and of each other
    # to the solver tolerance (1e-9 N s per row and step on 1 kg, over ~900 sliding steps)
    for d in (d_gs, d_j):
        assert abs(d - stopping_distance()) < G * 1e-6
    assert abs(d_gs - d_j) < 900 * 1e-3 * 12 * E_A_TIGHT + 1e-6
    # Jacobi's Gershgorin r-factors are smaller: it needs more sweeps than Gauss–Seidel
    assert sweeps_j > sweeps_gs


def one_bilateral_row(mass=2.0):
    """A body of ``mass`` held by one row along x: γ = v_x, G = 1/m."""
    buf = RowBuffers(1, 1)
    buf.row_a[0], buf.row_b[0] = 1, 0
    buf.row_wa[0, 0] = 1.0
    buf.blk_start[:2] = (0, 1)
    buf.blk_kind[0] = BILATERAL
    minv = np.zeros((2, 6))
    minv[1, :3] = 1.0 / mass
    return buf, minv


def test_r_adaptation_rescues_a_diverging_iteration():
    """r G = 2.5 makes Λ ← Λ − r (G Λ + c) grow by |1 − 2.5| per sweep; halving r after GROWTH_SWEEPS
    growing sweeps gives r G = 1.25, which converges to Λ = −m v."""
    mass, v0 = 2.0, 1.0
    buf, minv = one_bilateral_row(mass)
    buf.row_r[0] = 2.5 * mass
    u = np.zeros((2, 6))
    u[1, 0] = v0
    stats = np.zeros(5)
    prox.solve(0, 1, 1, blocks_of(buf), rows_of(buf), buf.row_r, minv, 1e-12, 1e-12, 1e-12, 500, buf.lam,
               buf.lam_new, u, stats)
    assert stats[2] == 1.0 and stats[3] >= 1
    assert buf.lam[0] == pytest.approx(-mass * v0, rel=1e-10)
    assert abs(u[1, 0]) < 1e-10


def test_gauss_seidel_rule_solves_a_single_row_in_one_sweep():
    """r = 1/G (α = 1) is Newton's step for one row: exact after one sweep, the second confirms it."""
    mass, v0 = 2.0, 1.0
    buf, minv = one_bilateral_row(mass)
    prox.gauss_seidel_r(1, 1.0, 1.0, buf.blk_start, buf.blk_kind, buf.blk_law, buf.blk_par, buf.row_a, buf.row_b,
                        buf.row_wa, buf.row_wb, minv, buf.row_r)
    assert buf.row_r[0] == pytest.approx(mass)
    u = np.zeros((2, 6))
    u[1, 0] = v0
    stats = np.zeros(5)
    prox.solve(0, 1, 1, blocks_of(buf), rows_of(buf), buf.row_r, minv, 1e-6, 1e-4, 1e-12, 50, buf.lam,
               buf.lam_new, u, stats)
    assert stats[0] == 2 and buf.lam[0] == pytest.approx(-mass * v0)


def test_contact_moment_about_a_hinge_balances_gravity():
    """A rod on a hinge at its top, leaning with its lower end on the ground: at rest the contact's moment
    about the hinge axis cancels gravity's, m g (L/2) sin θ (the thesis's induced joint force, eq. 2.48)."""
    length, mass, theta = 1.0, 2.0, np.radians(30.0)
    b = ims.ModelBuilder("leaning rod")
    b.add_material("dull", restitution=0.0)
    b.add_body("ground", shapes=[HalfSpace(material="dull")], static=True)
    e = np.array([0.0, np.sin(theta), -np.cos(theta)])
    pivot = np.array([0.0, 0.0, length * np.cos(theta) + 0.05])
    b.add_body("rod", shapes=[ims.Capsule(radius=0.05, length=length, material="dull")], mass=mass,
               position=pivot + 0.5 * length * e,
               orientation=(np.cos(theta / 2), np.sin(theta / 2), 0.0, 0.0))
    b.add_hinge("pivot", "world", "rod", anchor=pivot, axis=(1, 0, 0))
    model, state = b.build()
    # tolerances far below the moment's scale: the joints' midpoint law reflects the velocity error the
    # projection leaves (≤ eps_v), which keeps the rod rocking at ~4e-8 rad/s with eps_v = 1e-6
    method = MoreauMethod(model, e_a=1e-12, e_r=1e-12, eps_v=1e-12, eps_d=1e-12)
    for _ in range(300):
        method.step(state, 1e-3)
    assert np.linalg.norm(state.body_omega[2]) < 1e-6
    _, moment = induced_joint_load(model, state, method.contact_force, method.contact_torque, "pivot")
    # the rod's centre is (L/2) sin θ from the hinge horizontally: gravity's moment about x is −m g (L/2) sin θ
    arm = state.body_pos[2, 1] - pivot[1]
    # tolerance: the stop criterion e_a = 1e-12 N s per row over h = 1 ms, times the ≤ 1 m lever, 6 rows
    assert moment[0] == pytest.approx(mass * G * arm, abs=6e-9)


def test_runner_body_must_exist():
    model, _, _ = incline_box()
    with pytest.raises(ModelError, match='runners: body "sledge" does not exist'):
        MoreauMethod(model, runners={"sledge": RunnerFriction()})


def box_stack(n=4):
    b = ims.ModelBuilder("stack")
    b.add_material("m", restitution=0.0, static_friction=0.5, dynamic_friction=0.5)
    b.add_body("ground", shapes=[HalfSpace(material="m")], static=True)
    for i in range(n):
        b.add_body(f"box{i}", shapes=[ims.Box(size=(0.2, 0.2, 0.2), material="m")], mass=1.0,
                   position=(0, 0, 0.1 + 0.2 * i))
    return b.build()


def test_contact_warm_start_saves_sweeps_and_keeps_the_solution():
    """A resting stack of four boxes: starting each contact from last step's percussion (matched by its
    features) needs far fewer sweeps to the same tolerance, and the stack rests the same way."""
    finals, sweeps = [], []
    for warm in (False, True):
        model, state = box_stack()
        method = MoreauMethod(model, warm_start=warm, e_a=E_A_TIGHT)
        counts = [method.step(state, 1e-3).iters_vel for _ in range(300)]
        sweeps.append(np.median(counts[100:]))
        finals.append(state.body_pos[2:, 2].copy())
        # at rest: all velocities at the solver's resolution (e_a / m per step, summed over the sweeps' residue)
        assert np.abs(state.body_vel).max() < 1e-6
    assert sweeps[1] < sweeps[0] / 3          # measured 193 against 1124
    # both rest within the penetration the landing steps left (≤ g h² per contact level)
    assert np.allclose(finals[0], finals[1], atol=4 * G * 1e-6)


def test_jacobi_and_gauss_seidel_agree_on_a_pendulum():
    """Joint rows only (a hinge: five rows on one body): both sweeps converge to the same percussions."""
    from impulsim.dynamics.diagnostics import joint_coordinate
    from impulsim.experiments.laws import rod_pendulum
    angles = []
    for solver in ("gauss_seidel", "jacobi"):
        model, state = rod_pendulum(np.radians(30))
        method = MoreauMethod(model, solver=solver, eps_d=1e-10, eps_v=1e-10)
        for _ in range(200):
            info = method.step(state, 1e-3)
            assert info.converged_vel
        angles.append(joint_coordinate(model, state, "pivot"))
    # both stop at |ξ| ≤ eps_v = 1e-10 rad/s per row and step: over 200 steps of 1 ms, 2e-11 rad at most
    assert angles[0] == pytest.approx(angles[1], abs=1e-10)
