"""Baraff's one-kernel evaluation: it computes what the stage-by-stage evaluation computes, its
factorization pieces meet their definitions, and the stage profile of the benchmark runs."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.methods.lagrange import LagrangeMethod
from impulsim.methods.lagrange import baraff
from impulsim.methods.lagrange.baraff import MASS_INVERSE, PIVOT_TOL, _pseudo_root, _symmetric_eigen
from impulsim.methods.lagrange.evaluate import pack
from impulsim.methods.lagrange.forest import _children
from impulsim.methods.lagrange.groups import forest_of, system_of
from impulsim.experiments.wagner import ball_tree
from impulsim.bench.lagrange_stages import paired_steps, stage_times
from tests.lagrange.test_solvers import ball_tree_31, closed_loop, random_tree

# both paths run the same kernels; only the unit quaternions are formed differently (numpy's norm vs a
# loop), so they agree to round-off: 1e-12 relative is ~1e4 ulp, far below any modelling difference
SAME_TOL = 1e-12


def derivative(method, state, one_kernel):
    ev = method.eval
    ev.one_kernel = one_kernel
    ev.begin_step(state.copy(), 1e-3)
    out = np.empty(13 * method.model.n_bodies)
    ev.derivative(state.t, pack(state), out)
    return out, ev.lam.copy()


@pytest.mark.parametrize("scene", [random_tree, closed_loop, ball_tree_31],
                         ids=["random_tree", "spatial_loop", "ball_tree_31"])
@pytest.mark.parametrize("solver", ["baraff", "baraff_svd"])
def test_one_kernel_evaluation_equals_stage_by_stage(scene, solver):
    model, state = scene()
    method = LagrangeMethod(model, solver=solver)
    d_one, lam_one = derivative(method, state, True)
    d_staged, lam_staged = derivative(method, state, False)
    assert np.allclose(d_one, d_staged, rtol=SAME_TOL, atol=SAME_TOL * np.abs(d_staged).max())
    assert np.allclose(lam_one, lam_staged, rtol=SAME_TOL, atol=SAME_TOL * np.abs(lam_staged).max())


def test_pseudo_root_gives_the_pseudo_inverse_of_a_singular_block():
    """Q with QᵀQ = A⁺ for a positive semidefinite A of rank 2 (the SVD variant's singular blocks)."""
    rng = np.random.default_rng(4)
    B = rng.normal(size=(2, 4))
    A = B.T @ B
    work = np.zeros(2 * 16)        # the block, then room for its eigenvectors
    work[:16] = A.ravel()
    Q = np.zeros(16)
    _pseudo_root(work, 4, Q, 0)
    Q = Q.reshape(4, 4)
    assert np.allclose(Q.T @ Q, np.linalg.pinv(A, rcond=PIVOT_TOL), atol=1e-10 * np.abs(np.linalg.pinv(A)).max())
    assert np.linalg.matrix_rank(Q) == 2


def test_symmetric_eigen_decomposes_like_numpy():
    """The allocation-free Jacobi decomposition behind the pseudo-inverse root: A = U Λ Uᵀ, U orthogonal,
    the eigenvalues of numpy's eigh (also for a rank-deficient block)."""
    rng = np.random.default_rng(7)
    for rank in (6, 3):
        B = rng.normal(size=(rank, 6))
        A = B.T @ B
        work = A.ravel().copy()
        U = np.zeros(36)
        _symmetric_eigen(work, 6, U)
        lam, U = np.diag(work.reshape(6, 6)), U.reshape(6, 6)
        scale = np.abs(A).max()
        assert np.allclose(U @ U.T, np.eye(6), atol=1e-13)
        assert np.allclose(U @ np.diag(lam) @ U.T, A, atol=1e-13 * scale)
        assert np.allclose(np.sort(lam), np.linalg.eigh(A)[0], atol=1e-13 * scale)


def _factor_and_solve(method, node_kernels):
    """(x after factor + back substitution, a solve of a fixed right-hand side, node forms) of the
    system at the evaluator's last state, with or without the node kernels of blocks.py."""
    ev, tab, sol = method.eval, method.table, method.solver
    f = sol.forest
    Q, Y, x, form, work = (np.zeros_like(sol.Q), np.zeros_like(sol.Y), np.zeros_like(sol.x),
                           np.zeros_like(sol.node_form), np.zeros_like(sol.work))
    baraff.load_rhs(f.node_kind, f.node_ref, f.node_x, f.element_row_start, ev.force, ev.cp, x)
    assert baraff.factor(forest_of(f), system_of(tab, ev), sol.svd, node_kernels, (Q, Y, form, x, work)) == -1
    baraff.back_substitute(f.order, f.node_kind, f.node_size, f.node_parent, f.node_x, f.node_d, f.node_h, form,
                           Q, Y, work, x)
    rhs = np.sin(np.arange(len(x)) + 1.0)
    baraff.solve(f.order, f.node_kind, f.node_size, f.node_parent, f.node_x, f.node_d, f.node_h, form, Q, Y, work,
                 rhs)
    return x, rhs, form


# the node kernels repeat the general path's operations, except that leaf bodies use M⁻¹ instead of
# G⁻ᵀG⁻¹: the two differ by round-off only (~1e-15 relative here)
NODE_KERNEL_TOL = 1e-12


@pytest.mark.parametrize("scene", [random_tree, closed_loop, ball_tree_31],
                         ids=["random_tree", "spatial_loop", "ball_tree_31"])
@pytest.mark.parametrize("solver", ["baraff", "baraff_svd"])
def test_node_kernels_give_the_general_paths_solution(scene, solver):
    """Leaf bodies eliminated through M⁻¹ and the fixed-size ball-tree kernels solve the system as the
    general path does, in the factorization's own pass and in later solves (secondary rows)."""
    model, state = scene()
    method = LagrangeMethod(model, solver=solver)
    derivative(method, state, True)
    x_fast, r_fast, form = _factor_and_solve(method, True)
    x_general, r_general, form_general = _factor_and_solve(method, False)
    assert (form == MASS_INVERSE).any() and not (form_general == MASS_INVERSE).any()
    for fast, general in ((x_fast, x_general), (r_fast, r_general)):
        assert np.allclose(fast, general, rtol=0, atol=NODE_KERNEL_TOL * np.abs(general).max())


def test_whole_step_in_one_kernel_repeats_the_stage_by_stage_steps_exactly():
    """The one-kernel Runge–Kutta step runs the same evaluations and sums as the integrator's Python
    loop, so trajectories, λ and the step's report are identical to the last bit."""
    runs = []
    for one_kernel in (True, False):
        model, state = ball_tree(5)
        method = LagrangeMethod(model)
        method.eval.step_kernel = one_kernel
        assert method.eval.whole_step_in_one_kernel == one_kernel
        state.body_torque[1] = (1.0, 0.0, 0.0)
        for _ in range(5):
            info = method.step(state, 1 / 30)
        runs.append((state.body_pos, state.body_quat, state.body_omega, method.lam_start,
                     np.array([info.iters_pos, info.iters_vel, info.residual_pos, info.residual_vel])))
    for fused, looped in zip(*runs):
        assert np.array_equal(fused, looped)


def test_children_lists_invert_the_parent_array():
    parent = np.array([2, 2, -1, 0, 0, 1])
    c = _children(parent)
    lists = [c["children"][c["child_start"][i]:c["child_start"][i + 1]].tolist() for i in range(len(parent))]
    assert lists == [[3, 4], [5], [0, 1], [], [], []]


def test_stage_profile_and_paired_timing_run_and_recheck_the_physics():
    stages = stage_times(levels=5, repeats=3)
    assert all(r["min [ms]"] > 0 for r in stages)
    assert any("one evaluation" in r["stage"] for r in stages)
    (row,) = paired_steps(sizes=(63,), steps=3)
    assert row["physics"] == "ok" and row["Baraff / LGS"] > 0


@pytest.mark.parametrize("integrator", ["rk4", "euler"])
def test_a_blown_up_state_raises_a_simulation_error_and_keeps_the_state(integrator):
    """A degenerate quaternion (as a blow-up leaves) must end in SimulationError, not in an exception
    of a kernel (division by zero), and leave the state as it was."""
    model, state = ball_tree(5)
    state.body_quat[3] = 0.0
    before = state.copy()
    method = LagrangeMethod(model, integrator=integrator)
    with pytest.raises(ims.SimulationError):
        method.step(state, 1 / 30)
    assert np.array_equal(state.body_pos, before.body_pos) and state.t == before.t
