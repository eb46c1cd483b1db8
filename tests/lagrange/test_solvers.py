"""The four multiplier solvers: Baraff's sparse solve equals the dense one, loops become secondary
constraints, plain solvers reject over-determined systems by name, the SVD variants solve them."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.methods.lagrange import LagrangeMethod
from impulsim.methods.lagrange.evaluate import pack
from tests.lagrange.scenes import four_bar, pinned_cylinder

KINDS = ["ball", "hinge", "universal", "cylindrical", "slider", "fixed", "distance", "point_on_plane"]
# dense Cholesky and the block elimination round differently; 1e-9 relative is far above round-off
# (condition numbers here ~1e4) and far below any modelling difference
AGREE_TOL = 1e-9


def random_tree(n=12, seed=3):
    """A seeded random tree of boxes on mixed joints, hanging from the world, with random velocities."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("random tree")
    tops = {"world": np.zeros(3)}
    names = ["world"]
    for i in range(n):
        parent = names[rng.integers(len(names))]
        top = tops[parent] + 0.3 * rng.normal(size=3) if parent != "world" else np.zeros(3)
        centre = top + np.array([0.0, 0.0, -0.2])
        name = f"b{i}"
        b.add_body(name, shapes=[ims.Box(size=(0.1, 0.08, 0.4))], density=700, position=centre,
                   velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
        kind = KINDS[rng.integers(len(KINDS))]
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        kw = dict(anchor=top, axis=axis)
        if kind == "universal":
            other = np.cross(axis, rng.normal(size=3))
            kw = dict(anchor=top, axis_a=axis, axis_b=other / np.linalg.norm(other))
        if kind == "distance":
            kw = dict(anchor_a=(0, 0, 0), anchor_b=(0, 0, 0.2))
        b.add_joint(kind, f"j{i}", parent, name, **kw)
        tops[name] = centre + np.array([0.0, 0.0, -0.2])
        names.append(name)
    for i in range(n):                  # the shapes give mass only: a mechanism without contacts
        for k in range(i + 1, n):
            b.exclude_collision(f"b{i}", f"b{k}")
    return b.build()


def evaluate(method, state):
    ev = method.eval
    ev.begin_step(state.copy(), 1e-3)
    ev.derivative(state.t, pack(state), np.empty(13 * method.model.n_bodies))
    return ev.acc6.copy(), ev.lam.copy()


def closed_loop():
    """The four-bar with ball joints at the coupler's ends: a loop with independent rows."""
    model, state, (A, B, C, D) = four_bar()
    b = ims.ModelBuilder("spatial loop")
    for k in range(1, model.n_bodies):
        b.add_body(model.body_names[k], mass=model.body_mass[k], inertia=model.body_inertia[k],
                   position=state.body_pos[k], orientation=state.body_quat[k])
    b.add_hinge("A", "world", "crank", anchor=A, axis=(0, 1, 0))
    b.add_ball("B", "crank", "coupler", anchor=B)
    b.add_ball("C", "coupler", "rocker", anchor=C)
    b.add_hinge("D", "world", "rocker", anchor=D, axis=(0, 1, 0))
    return b.build()


def ball_tree_31():
    """Bender's tree of 31 boxes on ball joints (the benchmark's scene) with seeded spins."""
    from impulsim.experiments.wagner import ball_tree
    model, state = ball_tree(5)
    state.body_omega[1:] = np.random.default_rng(7).normal(size=(model.n_bodies - 1, 3))
    return model, state


@pytest.mark.parametrize("scene", [random_tree, closed_loop, ball_tree_31],
                         ids=["random_tree", "spatial_loop", "ball_tree_31"])
def test_baraff_equals_dense(scene):
    model, state = scene()
    acc_d, lam_d = evaluate(LagrangeMethod(model, solver="dense"), state)
    acc_b, lam_b = evaluate(LagrangeMethod(model, solver="baraff"), state)
    assert np.allclose(acc_b, acc_d, rtol=AGREE_TOL, atol=AGREE_TOL * np.abs(acc_d).max())
    assert np.allclose(lam_b, lam_d, rtol=AGREE_TOL, atol=AGREE_TOL * np.abs(lam_d).max())


def test_loops_are_found_and_closed_by_secondary_constraints():
    tree, _ = random_tree()
    assert len(LagrangeMethod(tree, solver="baraff").solver.forest.secondary_rows) == 0
    loop, _ = closed_loop()
    forest = LagrangeMethod(loop, solver="baraff").solver.forest
    # the last element found closes the loop through the ground: the rocker's hinge "D", 5 rows
    assert forest.primary.tolist() == [1, 1, 1, 0]
    assert len(forest.secondary_rows) == 5


@pytest.mark.parametrize("solver", ["dense", "baraff"])
def test_plain_solvers_name_the_redundant_joint_and_keep_the_state(solver):
    model, state = pinned_cylinder()
    before = state.copy()
    method = LagrangeMethod(model, solver=solver)
    with pytest.raises(ims.SimulationError, match=r'singular at "(left|right)".*dense_svd'):
        method.step(state, 1e-3)
    assert np.array_equal(state.body_pos, before.body_pos) and state.t == before.t


ALPHA = 5.0
# RK4 at h = 1 ms reproduces the decay curve to ~1e-12 m; 1e-9 m leaves room for round-off over 3000 steps
HOVER_TOL = 1e-9


@pytest.mark.parametrize("solver", ["dense_svd", "baraff_svd"])
def test_svd_cylinder_hovers_between_pins_too_far_apart(solver):
    """Least squares splits the conflict evenly: the centre relaxes to the middle as x0 (1 + αt) e^(−αt)
    (critically damped Baumgarte on the mean of the two opposite axial errors), and both caps end up
    gap/2 short of their pins while the consistent (vertical, lateral) rows are met."""
    model, state = pinned_cylinder(gap=0.2, offset=0.15)
    method = LagrangeMethod(model, solver=solver, alpha=ALPHA)
    x0 = state.body_pos[1, 0]
    for step in range(1, 3001):
        method.step(state, 1e-3)
        if step % 500 == 0:
            t = state.t
            assert abs(state.body_pos[1, 0] - x0 * (1 + ALPHA * t) * np.exp(-ALPHA * t)) < HOVER_TOL
    assert np.abs(state.body_pos[1, 1:]).max() < HOVER_TOL
    assert np.allclose(method.constraint_errors(state), 0.1, atol=1e-6)


FOUR_BAR_TOL = 1e-9   # joint error after 2 s from a consistent start: RK4 truncation at h = 1 ms ~ 1e-12


@pytest.mark.parametrize("solver", ["dense_svd", "baraff_svd"])
def test_svd_four_bar_without_cut_keeps_its_joints_and_energy(solver):
    """Four hinges on a planar loop carry 3 redundant rows; the minimum-norm λ still moves the linkage
    exactly (it falls under gravity from rest) and conserves its energy."""
    model, state, _ = four_bar()
    method = LagrangeMethod(model, solver=solver)
    e0 = ims.diagnostics.total_energy(model, state)
    for _ in range(2000):
        method.step(state, 1e-3)
    assert np.abs(method.constraint_errors(state)).max() < FOUR_BAR_TOL
    assert np.abs(ims.diagnostics.constraint_errors(model, state)).max() < FOUR_BAR_TOL
    # the crank really turned, and energy is kept to RK4 accuracy (1e-8 relative is ~1e3 × its error)
    assert np.linalg.norm(state.body_vel[1:]) > 0.1
    assert abs(ims.diagnostics.total_energy(model, state) - e0) < 1e-8 * abs(e0) + 1e-8


def test_svd_solvers_agree_on_the_four_bar():
    model, state, _ = four_bar()
    a, b = state.copy(), state.copy()
    ma, mb = LagrangeMethod(model, solver="dense_svd"), LagrangeMethod(model, solver="baraff_svd")
    for _ in range(500):
        ma.step(a, 1e-3)
        mb.step(b, 1e-3)
    assert np.allclose(a.body_pos, b.body_pos, atol=1e-10)
