"""The seven experiments of Schmitt & Thüring (2000, §5) against the report's figures and physical laws.

Each experiment runs once per module (all together take about two seconds).
"""
import math

import numpy as np
import pytest

from impulsim.experiments import schmitt as scenes, schmitt_runs as ex
from impulsim.methods.masspoint import analysis, diagnostics as dg

R = ex.REPORT
T5 = R["pendulum"]["T5"]


# 5.1 mathematical pendulum ------------------------------------------------------------------------
THEORY_DIGITS = 1e-10
"""The report prints T0 and T5 to 1e-10 s."""


def test_pendulum_theory_periods_match_the_report():
    assert analysis.pendulum_period_theory(1e-9, 1.0, scenes.G) == pytest.approx(R["pendulum"]["T0"],
                                                                                  abs=THEORY_DIGITS)
    assert analysis.pendulum_period_theory(math.radians(5), 1.0, scenes.G) == pytest.approx(T5, abs=THEORY_DIGITS)


@pytest.fixture(scope="module")
def pendulums():
    return {k: ex.run_pendulum(T5 / k) for k in (100, 200, 400, 1000)}


@pytest.mark.parametrize("divisor, key, last_digit", [(100, "T_sim(h=T5/100)", 1e-6),
                                                      (1000, "T_sim(h=T5/1000)", 1e-8)])
def test_pendulum_period_matches_the_report(pendulums, divisor, key, last_digit):
    # the report prints T_sim to `last_digit` [s]; we must agree to within one unit of that digit
    assert abs(pendulums[divisor].period - R["pendulum"][key]) < last_digit


SECOND_ORDER_RATIO_TOL = 0.02
"""A symmetric one-step method has an error series a h² + b h⁴ + …, so halving h divides the error by
4 (1 + O((ω h)²)); at h = T/100, (ω h)² = (2π/100)² ≈ 0.004, i.e. 0.016 on the ratio 4."""


def test_pendulum_period_error_is_second_order(pendulums):
    errors = [pendulums[k].error for k in (100, 200, 400)]
    assert all(e < 0 for e in errors)          # the simulation runs fast, as the report says
    for coarse, fine in zip(errors, errors[1:]):
        assert coarse / fine == pytest.approx(4.0, abs=SECOND_ORDER_RATIO_TOL)
    # T5/100 -> T5/1000: the report's "100 times smaller" error, again up to O((ω h)²) at h = T/100
    assert pendulums[100].error / pendulums[1000].error == pytest.approx(100.0, rel=(2 * math.pi / 100) ** 2)


@pytest.mark.parametrize("h, key, half_unit", [(0.02, "deficit % (h=0.02)", 0.05),
                                               (0.0025, "deficit % (h=0.0025)", 0.00005)])
def test_pendulum_energy_deficit_matches_the_report(h, key, half_unit):
    # the report gives "rd. 0.1 %" and "0.0015 %": we must round to the same printed value
    assert abs(ex.run_pendulum(h).min_deficit_percent - R["pendulum"][key]) <= half_unit


# 5.2 cube -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cubes():
    return {vc: ex.run_cube(velocity_correction=vc) for vc in (True, False)}


CORNER_RADIUS = math.sqrt(2.0)
ANGLE_TOL = math.degrees(2 * 1e-5 / CORNER_RADIUS)
"""Every corner ends each step within eps = 1e-5 m of the exact constraint manifold, so the turn per step
may vary by up to 2 eps / r [rad] (r = √2 m, the corners' distance from the spin axis)."""
ENERGY_TOL = 215.0 * 1e-5 / CORNER_RADIUS
"""dE_kin/dθ ≈ 215 J/rad for this cube at θ ≈ 0.35 rad and h = 0.16 s, times the angle tolerance eps / r."""


def test_cube_turns_20_092_degrees_every_step(cubes):
    for result in cubes.values():
        turn = result.degrees_per_step
        # the report prints 20.092 (and 20.09213, which its own E_kin without V-correction contradicts by
        # 4e-4°): agreement to within one unit of the third decimal
        assert abs(turn.mean() - 20.092) < 1e-3
        assert turn.max() - turn.min() < ANGLE_TOL


def test_cube_kinetic_energy_without_velocity_correction(cubes):
    kin = cubes[False].kinetic
    assert kin.max() - kin.min() < ENERGY_TOL
    assert kin.mean() == pytest.approx(R["cube"]["E_kin without V"], abs=ENERGY_TOL)


def test_cube_kinetic_energy_with_velocity_correction(cubes):
    kin = cubes[True].kinetic
    assert kin.max() - kin.min() < ENERGY_TOL
    # the brief's "≈ 100.88": the report prints 100.88887682, 0.008 J above what its own turn of 20.0921°
    # implies for this scheme (see docs/masspoint.md); we hold the two printed decimals
    assert abs(kin.mean() - 100.88) < 0.005


def test_cube_energy_matches_the_rigid_rotor_closed_form(cubes):
    # E = |p|²/2M + Σ ½ m r² (s/h)², s = sin θ (velocity ⟂ links) or 2 sin(θ/2) (chord velocity)
    for result in cubes.values():
        assert result.kinetic.mean() == pytest.approx(result.closed_form_kinetic, abs=ENERGY_TOL)


MOMENTUM_ROUNDING = 1e-9
"""1000 steps of coordinates up to 640 m with float64 rounding (1.1e-16 relative): ≈ 1e-10 m."""


def test_cube_flies_640_m_along_the_x_axis(cubes):
    # kick 32 N s in step 1: x_CM = −(0.32 + 4 (t − 0.16)) = −639.68 m at t = 160 s ("640 m")
    for result in cubes.values():
        assert result.com[-1, 0] == pytest.approx(-639.68, abs=MOMENTUM_ROUNDING)
        assert np.abs(result.com[:, 1:]).max() < MOMENTUM_ROUNDING
        assert result.first_failure is None


CUBE_POSITION_GAP = 1e-3
"""§5.2: runs with and without V-correction give the same positions up to small differences the report
blames on eps. Each step's fin loop stops somewhere within eps = 1e-5 m of the exact solution, and these
offsets add up like a random walk in the spin angle: √1000 eps ≈ 3e-4 m after 1000 steps; we allow 3×."""


def test_cube_positions_do_not_depend_on_the_velocity_correction(cubes):
    assert np.abs(cubes[True].traj.pos - cubes[False].traj.pos).max() < CUBE_POSITION_GAP


FLOAT32_ONSET_STEPS = 3
"""Steps by which the float32 failure may start away from the report's step 202: a corner sweeps
x_CM ± √2 m while the centre moves 0.64 m per step, so which corner first crosses 128 m can shift by
√2 / 0.64 ≈ 2.2 steps."""


@pytest.fixture(scope="module")
def float32_cube():
    return ex.run_cube(precision="float32", n_steps=700)


def test_float32_cube_fails_once_coordinates_pass_128_m(float32_cube):
    # float32 spacing is 2^-17 = 7.6e-6 m below 128 m and 2^-16 = 1.5e-5 m > eps above: the test
    # "distance error < eps" then falls to rounding (§5.2)
    first = float32_cube.first_failure
    assert abs(first - R["cube"]["float32 first failing step"]) <= FLOAT32_ONSET_STEPS
    assert np.abs(float32_cube.traj.pos[:first]).max() < 128.0 + 2 * 0.64 * FLOAT32_ONSET_STEPS
    assert np.abs(float32_cube.traj.pos[first - 1, :, 0]).max() >= 128.0
    assert float32_cube.traj.fin_passes[first - 1] == 500


def test_float32_cube_fails_in_almost_every_step_beyond_256_m(float32_cube):
    # beyond 256 m the spacing 3.1e-5 m is three times eps: a pass rarely meets all 28 links
    far = np.abs(float32_cube.com[1:, 0]) > 256.0
    assert np.mean(~float32_cube.traj.fin_converged[far]) > 0.9


# 5.3 rigid triple pendulum ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rigid():
    return ex.run_rigid_pendulum()


SPIKE_TOL = 0.01
"""J. The extreme is a one-step spike (E = −0.72, −1.34, −1.19 at steps 777–779): a shift of the
trajectory by 1 % of a step, e.g. from a different stopping point of the fin sweeps, moves the
sampled value by about 0.006 J."""


def test_rigid_pendulum_energy_extreme_near_step_778(rigid):
    # the report's figure 5.3-2 shows steps 701–861; the extreme there
    energy, step = rigid.min_energy(701, 862)
    assert step == R["rigid_pendulum"]["E min step"]
    assert energy == pytest.approx(R["rigid_pendulum"]["E min"], abs=SPIKE_TOL)


MEAN_DEFICIT_REL = 0.25
"""The mean over 2000 steps includes the chaotic second half, which no reconstruction follows step by
step: our own runs at eps = 1e-5 and 1e-7 differ by 11 % in this figure."""


def test_rigid_pendulum_mean_energy_deficit(rigid):
    assert rigid.mean_deficit_percent == pytest.approx(R["rigid_pendulum"]["mean deficit %"],
                                                       rel=MEAN_DEFICIT_REL)


NO_DRIFT = 1e-3
"""Fraction of the peak E_kin (117 J) that the median energy of any quarter of the run may miss the
initial 0 by: the report's mean deficit is 0.038 % = 3.8e-4 of E_kin, so 1e-3 is beyond any transient."""


def test_rigid_pendulum_energy_does_not_drift(rigid):
    quarters = np.array_split(rigid.run.energy, 4)
    assert all(abs(np.median(q)) < NO_DRIFT * rigid.run.kinetic.max() for q in quarters)


INDEPENDENCE_EPS = 1e-12
INDEPENDENCE_STEPS = 300


def test_rigid_pendulum_positions_do_not_depend_on_the_velocity_correction():
    # with and without V-correction each step's positions solve the same equations to eps, so the gap
    # grows by about eps per step; 10 n eps allows for growth before chaos sets in (≈ 5 s)
    gap = ex.velocity_correction_position_gap(scenes.rigid_pendulum, 0.01, INDEPENDENCE_STEPS, INDEPENDENCE_EPS)
    assert gap < 10 * INDEPENDENCE_STEPS * INDEPENDENCE_EPS


# 5.4 thread pendulum ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def thread():
    return ex.run_thread_pendulum()


def test_threads_never_stretch(thread):
    system = thread.run.traj.system
    assert thread.run.traj.fin_converged.all()
    assert (dg.link_lengths(system, thread.run.traj.pos) - system.con_length).max() < 1e-5   # eps


def test_thread_pendulum_moves_as_the_rigid_one_while_taut(thread, rigid):
    # while every thread is taut both solve the same equations; they differ only inside the tolerance
    # band: a link ending in (d − eps, d) is left alone by both, below d − eps only the rod pushes back
    system = thread.run.traj.system
    slack = (dg.link_lengths(system, thread.run.traj.pos) < system.con_length - 1e-5).any(axis=1)
    first_slack = int(np.argmax(slack))
    assert first_slack > 100
    assert np.abs(thread.run.traj.pos[:first_slack] - rigid.run.traj.pos[:first_slack]).max() < 2e-5


FIRST_SWING_TOL = 0.002
"""Relative. The first swing (before any thread slackens) is deterministic; its sampled peak E_kin moves
by 0.17 % between h = 0.02 s and 0.005 s, so a different sampling of the peak can account for this."""


def test_thread_pendulum_first_swing_peak(thread):
    assert thread.first_swing_kinetic == pytest.approx(R["thread_pendulum"]["first-swing E_kin max"],
                                                       rel=FIRST_SWING_TOL)


def test_thread_tightening_absorbs_energy_until_all_threads_stay_taut(thread):
    # §5.4: inelastic tightening events take energy out; the energy never rises above its start beyond a
    # transient (bound: 0.1 % of the peak E_kin, as in the rigid pendulum's drift test), and the
    # pendulum ends with every thread taut and far less kinetic energy
    energy = thread.run.energy
    assert len(thread.drops) >= 2 and all(de < 0 for _, de in thread.drops)
    assert energy.max() <= 1e-3 * thread.run.kinetic.max()
    assert energy[-1] < -0.5 * thread.first_swing_kinetic
    assert thread.last_slack_step < thread.run.traj.n_steps - 1000
    assert thread.late_kinetic < 0.5 * thread.first_swing_kinetic


# 5.5 rail pendulum ------------------------------------------------------------------------------------------
RAIL_ROUNDING = 1e-12
"""The brief's bound; 2000 steps of float64 rounding on coordinates of a few metres give ≈ 1e-13."""


def test_rail_pendulum_keeps_its_centre_of_mass_at_x_1_5():
    result = ex.run_rail_pendulum()
    com = dg.centre_of_mass(result.run.model, result.run.traj.pos)
    assert np.abs(com[:, 0] - R["rail_pendulum"]["x_CM"]).max() < RAIL_ROUNDING
    p1 = result.run.model.body("p1")
    assert not result.run.traj.pos[:, p1, 1:].any()        # p1 never leaves the x-axis
    assert np.ptp(result.run.traj.pos[:, p1, 0]) > 0.5     # ... but does slide along it


# 5.6 closed chain -------------------------------------------------------------------------------------------
def test_closed_chain_runs_stably():
    chain = ex.run_closed_chain()
    traj = chain.run.traj
    assert traj.fin_converged.all() and (traj.residual_pos < 1e-5).all()
    # the energy error does not accumulate: the second half of the run strays no further than the first
    error = np.abs(chain.run.energy - chain.run.energy[0])
    first, second = np.array_split(error, 2)
    assert second.max() <= first.max()


CURVATURE_ORDER_TOL = 0.3
"""The worst energy deficit is the curvature error at the chain's whip-like snap (t ≈ 0.84 s); being
O(h²) it drops about fourfold per halving of h. The event's timing shifts slightly with h, so ±0.3."""


def test_closed_chain_energy_error_is_second_order():
    worst = [np.min(r.run.energy - r.run.energy[0]) for r in
             (ex.run_closed_chain(n_steps=int(round(1.0 / h)), h=h) for h in (0.01, 0.005, 0.0025))]
    for coarse, fine in zip(worst, worst[1:]):
        assert coarse / fine == pytest.approx(4.0, abs=4.0 * CURVATURE_ORDER_TOL)


# 5.7 top ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def top():
    return ex.run_top()


def test_top_conserves_angular_momentum_about_the_vertical(top):
    # gravity and the tip force exert no torque about the vertical through the fixed tip
    model, traj = top.run.model, top.run.traj
    spin = np.einsum("i,kij->kj", dg.masses(model), np.cross(traj.pos, traj.vel))
    lz = spin[1:, 2]
    assert np.ptp(lz) < 1e-12 * abs(lz[0])


def test_top_spin_matches_its_angular_momentum(top):
    # with the axis vertical, each step turns the rim by θ with sin θ = (L_z / I) h, I = 4 kg m²
    # (RATTLE's discrete rotor, as for the cube); the tilt there is < 0.1°, i.e. cos-error < 2e-6, and
    # the rim points sit within eps = 1e-5 m of their place at radius 1 m: 1e-5 rad on θ ≈ 0.11 rad
    model, traj = top.run.model, top.run.traj
    k = top.vertical_step
    lz = float(np.cross(traj.pos[k], traj.vel[k])[:, 2] @ dg.masses(model))
    theta = 2 * math.pi * top.spin_at(k) * 0.005
    assert top.tilt[k - 1] < 0.1
    assert math.sin(theta) == pytest.approx(lz * 0.005 / 4.0, rel=1e-4)


def test_top_nutates_and_returns_to_vertical(top):
    # §5.7: the axis keeps coming back to the vertical it was kicked from; the tilt stays bounded
    assert 5.0 < top.tilt.max() < 20.0
    assert top.tilt[top.vertical_step - 1] < 0.1
    assert top.run.traj.fin_converged.all() and top.run.traj.vel_converged.all()
