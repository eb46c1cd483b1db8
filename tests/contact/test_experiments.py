"""Bender's contact experiments (Sec. 5.5) and the issue's extra checks, with the deterministic figures that
run in reasonable time. Scenes and measurements are those of ``impulsim bench contact``.

Tests marked ``xfail(strict=True)`` assert the physical fact the issue asks for and fail today for a solver
cause named in their reason; strictness makes them fail loudly (XPASS) once the solver is fixed, so the
marker is removed then.
"""
import numpy as np
import pytest

from impulsim.bench import contact as C
from impulsim.experiments import bender_contacts as S

CRADLE_TOL = C.CRADLE_GOAL
"""Issue 5: energy [J] and angular-velocity [rad/s] deviations over the impact ≤ 2e-6, the order of the
thesis's (1.1e-6 … 3.5e-6: positions may deviate by eps_d = 1e-6 m, velocities by eps_v = 1e-6 per ball)."""


@pytest.mark.slow
@pytest.mark.parametrize("n_deflected", [1, 2, 3, 4])
def test_cradle_impact_keeps_energy_and_passes_the_swing_on(n_deflected):
    de, dw, _ = C.cradle_impact(n_deflected)
    assert de <= CRADLE_TOL
    assert dw <= CRADLE_TOL


def quarter_period(length, amplitude, g=9.81):
    """Quarter period [s] of a pendulum of equivalent length ``length`` [m] swinging out to ``amplitude``
    [rad]: √(l/g) K(sin(θ0/2)), with K(k) = π / (2 AGM(1, √(1 − k²)))."""
    a, b = 1.0, np.sqrt(1.0 - np.sin(0.5 * amplitude) ** 2)
    for _ in range(30):
        a, b = 0.5 * (a + b), np.sqrt(a * b)
    return np.sqrt(length / g) * np.pi / (2.0 * a)


def test_cradle_impact_happens_at_the_bottom_of_the_swing():
    # a ball on a massless rod is a physical pendulum of equivalent length (L² + 2/5 r²) / L; the strikers
    # touch the resting balls after a quarter period (1.0561 s). The impact step starts at the first multiple
    # of h at which the gap is within eps_c, so less than one step from that instant
    _, _, t = C.cradle_impact(1)
    length = (S.CRADLE_ROD ** 2 + 0.4 * S.CRADLE_RADIUS ** 2) / S.CRADLE_ROD
    assert t - S.CRADLE_H == pytest.approx(quarter_period(length, S.CRADLE_DEFLECTION), abs=S.CRADLE_H)


REST_SECONDS = 0.5
"""Fifty steps of 10 ms (the issue's 10 s take ~10 min per scene at today's speed: see the benchmark)."""
REST_TOL = C.REST_DRIFT_GOAL    # the goal: 1 mm


@pytest.mark.slow
@pytest.mark.parametrize("build", [
    pytest.param(S.tower, id="tower20"),
    pytest.param(S.pyramid, id="pyramid55")])
def test_stack_stays_at_rest(build):
    model, state = build()
    drift, _, _ = C.rest_drift(model, state, C.make_method(model, S.STACK_SETTINGS), S.STACK_H, REST_SECONDS)
    assert drift <= REST_TOL


LIMIT_TOL = 1e-6
"""|rate after / rate before − e| per hit: the velocity correction leaves at most eps_v = 1e-8 m/s at the
rod's points (≤ 1 m from the pivot), i.e. ≤ 1e-8 rad/s on rates of 0.25 … 1 rad/s; 1e-6 leaves margin for
the few steps of rounding and still catches any restitution error of the law itself."""


@pytest.mark.parametrize("e", [1.0, 0.5])
def test_limit_stop_scales_the_rate_by_the_restitution(e):
    hits = C.limit_hits(e)
    # without gravity the rate is constant between stops: 1 rad/s and 0.5 rad from the stop, 1 rad apart,
    # so e = 1 hits every second (8 hits in 8 s) and e = 0.5 after 0.5, 2.5 and 6.5 s (3 hits)
    assert len(hits) == (8 if e == 1.0 else 3)
    assert np.abs(hits[:, 1] / hits[:, 0] - e).max() <= LIMIT_TOL
    # the rate before each hit is the one after the previous: e^k of the start
    assert np.allclose(hits[:, 0], e ** np.arange(len(hits)), rtol=0, atol=len(hits) * LIMIT_TOL)


FLIP_SECONDS = 3.0
"""The top flips after ~2.1 s (bench figure); 3 s leave margin without making the run long."""


@pytest.mark.slow
def test_tippe_top_flips_onto_its_peg_only_with_friction():
    # Cohen's top has 1 − α < C/A < 1 + α (α = 0.3, C/A = 1.069): spinning on its ball is unstable and sliding
    # friction at the ball's contact turns it over onto its peg (the thesis: it flips in every run)
    t, up = C.tippe_top_axis(FLIP_SECONDS)
    assert C.inversion_time(t, up) is not None
    assert up[-1] < C.INVERTED                           # and it stays on the peg side


@pytest.mark.slow
def test_tippe_top_without_friction_keeps_its_peg_up(monkeypatch):
    # without friction the ground pushes only vertically: nothing can turn the spin axis over, so the axis
    # precesses and nods about its start tilt of 0.1 rad. The nod of a fast top is ~2 A m g l sin θ / (C ω)² ≈
    # 2.5e-3 rad, changing the axis' z component by ≤ sin 0.1 · 2.5e-3 ≈ 2.5e-4; 1e-3 bounds that (measured:
    # the z component never drops below its start value cos 0.1 = 0.99500)
    monkeypatch.setattr(S, "TOP_MU", 0.0)
    t, up = C.tippe_top_axis(FLIP_SECONDS)
    assert up.min() > np.cos(S.TOP_TILT) - 1e-3


@pytest.mark.slow
def test_rattleback_reverses_only_against_its_preferred_direction():
    # the thesis's rattleback reverses at 2.854 s when spun against its preferred direction; spun the other
    # way it keeps its sense. Exactly one of the two directions must reverse within 5 s (it rolls on a smooth
    # Ellipsoid: as a faceted hull its contact jumped from vertex to vertex and friction braked both senses)
    reversed_ = [C.reversal_time(*C.rattleback_spin(spin, 5.0), spin) is not None
                 for spin in (S.RATTLE_SPIN, -S.RATTLE_SPIN)]
    assert reversed_.count(True) == 1


def test_frictionless_rattleback_keeps_its_spin(monkeypatch):
    # without friction the ground pushes only along the vertical, which has no moment about the vertical
    # axis: the angular momentum about it is conserved and the spin cannot turn. ω_z = L_z / I_zz moves only
    # as the small rocking tilts the inertia: within 1 % over 2 s
    monkeypatch.setattr(S, "RATTLE_MU", 0.0)
    for spin in (S.RATTLE_SPIN, -S.RATTLE_SPIN):
        t, wz = C.rattleback_spin(spin, 2.0)
        assert np.all(np.abs(wz - spin) < 0.01 * abs(spin))


def test_funnel_lets_the_cubes_through():
    """The thesis's cubes fall through the funnel and come to rest on the plane below; the funnel must not
    jam. The first two layers of the block (200 cubes): nine in ten below the outlet after 3.5 s (195 are;
    with the 4 m outlet used before, 40 were)."""
    n_cubes = 200
    model, state = S.funnel(n_cubes)
    method = C.make_method(model, S.FUNNEL_SETTINGS, **S.FUNNEL_SOLVER)
    for _ in range(int(round(3.5 / S.FUNNEL_H))):
        method.step(state, S.FUNNEL_H)
    cubes = state.body_pos[model.n_bodies - n_cubes:]
    assert (cubes[:, 2] < S.FUNNEL_OUTLET_Z).sum() >= 0.9 * n_cubes


def test_jitter_moves_only_the_dynamic_bodies_and_by_at_most_the_bound():
    # the spread of the pile experiments over paths is measured from starts moved by up to `jitter` per axis
    model, state = S.wall()
    before = state.body_pos.copy()
    C.jitter_positions(model, state, 1e-9, seed=3)
    moved = np.abs(state.body_pos - before)
    dynamic = model.body_inv_mass > 0.0
    assert moved[~dynamic].max(initial=0.0) == 0.0
    assert 0.0 < moved[dynamic].max() <= 1e-9
    with pytest.raises(ValueError, match="jitter"):
        C.jitter_positions(model, state, -1.0, seed=0)
