"""Baraff's one-kernel evaluation: it computes what the stage-by-stage evaluation computes, its
factorization pieces meet their definitions, and the stage profile of the benchmark runs."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.methods.lagrange import LagrangeMethod
from impulsim.methods.lagrange.baraff import PIVOT_TOL, _pseudo_root
from impulsim.methods.lagrange.evaluate import pack
from impulsim.methods.lagrange.forest import _children
from impulsim.methods.lagrange.scenes import ball_tree
from impulsim.methods.lagrange.stages import paired_steps, stage_times
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
    work = A.ravel().copy()
    Q = np.zeros(16)
    _pseudo_root(work, 4, Q, 0)
    Q = Q.reshape(4, 4)
    assert np.allclose(Q.T @ Q, np.linalg.pinv(A, rcond=PIVOT_TOL), atol=1e-10 * np.abs(np.linalg.pinv(A)).max())
    assert np.linalg.matrix_rank(Q) == 2


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
