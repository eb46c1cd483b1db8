"""The scan of MuJoCo's options (impulsim.bench.mujoco_configs): every configuration runs, the chosen one keeps
the quality bound, and the measures it rests on (penetration, the options set) are right."""
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from impulsim.bench import mujoco_configs as MC   # noqa: E402


def _cubes_xml(n=4, edge=0.2, gap=0.05, sink=0.0, h=0.002):
    """n cubes in a row resting on a plane (sunk ``sink`` m into it), μ = 0.5."""
    bodies = "".join(f'<body pos="{i * (edge + gap):g} 0 {0.5 * edge - sink:g}"><freejoint/>'
                     f'<geom type="box" size="{0.5 * edge:g} {0.5 * edge:g} {0.5 * edge:g}" mass="1"/></body>'
                     for i in range(n))
    return (f'<mujoco><option timestep="{h:g}"/><default><geom friction="0.5 0.005 0.0001"/></default>'
            f'<worldbody><geom type="plane" size="0 0 1"/>{bodies}</worldbody></mujoco>')


def _drop_xml():
    """Three cubes falling onto each other and the plane: contacts that change during the window."""
    bodies = "".join(f'<body pos="{0.03 * i:g} 0 {0.1 + 0.215 * i:g}" euler="{3 * i} {2 * i} 0"><freejoint/>'
                     f'<geom type="box" size="0.1 0.1 0.1" mass="1"/></body>' for i in range(3))
    return (f'<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="0 0 1"/>{bodies}'
            f'</worldbody></mujoco>')


def test_default_is_mujocos_compiled_default():
    m = mujoco.MjModel.from_xml_string("<mujoco/>")
    o = m.opt
    assert (o.solver, o.iterations, o.cone, o.jacobian) == (
        mujoco.mjtSolver.mjSOL_NEWTON, 100, mujoco.mjtCone.mjCONE_PYRAMIDAL, mujoco.mjtJacobian.mjJAC_AUTO)
    assert not o.disableflags & mujoco.mjtDisableBit.mjDSBL_ISLAND       # islands on
    assert MC.DEFAULT == MC.Config("Newton", 100, "pyramidal", "auto", True)


def test_apply_sets_every_option():
    m, _ = MC.load(_cubes_xml(), MC.Config("PGS", 10, "elliptic", "dense", False))
    assert m.opt.solver == mujoco.mjtSolver.mjSOL_PGS and m.opt.iterations == 10
    assert m.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC and m.opt.jacobian == mujoco.mjtJacobian.mjJAC_DENSE
    assert m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_ISLAND
    MC.Config().apply(m)
    assert not m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_ISLAND


def test_configurations_cover_the_grid_once():
    cfgs = MC.configurations()
    assert cfgs[0] == MC.DEFAULT
    assert len(cfgs) == len(set(cfgs)) == 3 * 3 * 2 * 3 * 2


@pytest.mark.parametrize("sink", [0.0, 0.004, 0.013])
def test_penetration_is_the_depth_of_a_sunk_cube(sink):
    """A cube placed ``sink`` m into the plane: MuJoCo's box-plane distance is exact, so the measure is the
    depth to float precision (and 0 when the cube only touches)."""
    m, d = MC.load(_cubes_xml(n=1, sink=sink))
    assert MC.penetration(d) == pytest.approx(sink, abs=1e-9)


def test_scan_runs_every_configuration_and_the_choice_keeps_the_bound():
    xml = _drop_xml()
    results = MC.scan(xml, 50, rest_bodies=None)
    assert [r.config for r in results] == MC.configurations()
    for r in results:
        assert r.steps == 48                           # 50 steps, 2 warm-up steps not timed
        assert np.isfinite(r.cpu_ms) and r.cpu_ms > 0 and np.isfinite(r.wall_ms)
        assert 0.0 <= r.penetration < 0.05             # soft contacts: mm, not the cube's size
        assert r.avg_contacts > 0
    best = MC.best_reasonable(results)
    default = results[0]
    pen, drift = MC.quality_bound(default)
    assert best.stable and best.penetration <= pen and best.drift <= drift
    assert best.cpu_ms <= min(r.cpu_ms for r in results if MC.acceptable(r, default))
    assert "| configuration |" in MC.table(results, best)


def test_rest_drift_and_a_common_start():
    """From one snapshot every configuration starts in the same state: resting cubes drift by far less
    than a millimetre, and a snapshot restored reproduces the run it was taken from exactly."""
    xml = _cubes_xml()
    m, d = MC.load(xml)
    for _ in range(200):                              # let the soft contacts settle
        mujoco.mj_step(m, d)
    s = MC.snapshot(m, d)
    for _ in range(20):
        mujoco.mj_step(m, d)
    after = d.qpos.copy()
    m2, d2 = MC.load(xml)
    MC.restore(m2, d2, s)
    for _ in range(20):
        mujoco.mj_step(m2, d2)
    np.testing.assert_array_equal(d2.qpos, after)
    cfgs = [MC.DEFAULT, MC.Config("CG", 30, "pyramidal", "sparse"), MC.Config("PGS", 10, "elliptic", "sparse")]
    results = MC.scan(xml, 50, configs=cfgs, start=s, rest_bodies=np.arange(1, 5))
    for r in results:
        assert r.stable and r.drift < 1e-3


def test_confirm_rejects_what_breaks_the_bound_over_the_long_run():
    """The long-run check keeps the bound from the scan: with a bound of zero penetration every
    configuration of a dropped pile fails it, and with the default's own bound the default passes."""
    xml = _drop_xml()
    cfgs = [MC.DEFAULT, MC.Config("CG", 10, "pyramidal", "sparse")]
    results = MC.scan(xml, 50, configs=cfgs)
    default = results[0]
    best, checked = MC.confirm(xml, results, default, 150)
    assert best is not None and best.stable
    pen, _ = MC.quality_bound(default)
    assert best.penetration <= pen and best.steps == 148
    assert checked[-1] is best and all(c.penetration > pen or not c.stable for c in checked[:-1])
    none, checked = MC.confirm(xml, results, default, 150, factor=0.0, slack=0.0)
    assert none is None and len(checked) == sum(MC.acceptable(r, default, 0.0, 0.0) for r in results)


def test_confirm_with_checks_keeps_the_fastest_passing_over_the_long_run():
    xml = _drop_xml()
    cfgs = [MC.DEFAULT, MC.Config("CG", 30, "pyramidal", "sparse"), MC.Config("PGS", 30, "elliptic", "sparse")]
    results = MC.scan(xml, 50, configs=cfgs)
    default = results[0]
    best, checked = MC.confirm(xml, results, default, 120, checks=3)
    assert len(checked) == sum(MC.acceptable(r, default) for r in results)
    pen, _ = MC.quality_bound(default)
    passing = [c for c in checked if c.stable and c.penetration <= pen]
    assert best is not None and best.cpu_ms == min(c.cpu_ms for c in passing)
