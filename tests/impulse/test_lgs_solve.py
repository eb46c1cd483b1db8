"""The LGS solve against a dense reference: M built from its definition M = J W Jᵀ and solved with LAPACK.

J holds one row per constraint direction (Bender 3.3.2.2): a translational row p of a primitive acting at
lever r on a body is s [pᵀ, (r × p)ᵀ], a rotational row s [0ᵀ, pᵀ], with s = +1 on body A and −1 on body B;
W = diag(1/m E, J⁻¹) per dynamic body. The block kernels never form J; agreement of the impulses checks the
assembly of the seven body-sharing cases, the elimination order and the factorization together.
"""
import numpy as np
import pytest

import impulsim as ims
from impulsim.methods.impulse.lgs_kernels import solve
from impulsim.model.kinds import TRANSLATIONAL, Prim
from tests.impulse.random_models import random_model, four_bar

# The sparse LDLᵀ and LAPACK's LU differ in rounding only, |Δx| ≲ cond(M) · 1e-16 · |x|: below 1e-10 for the
# cond(M) < 1e6 the test requires of its random models (measured: at most 1.4e-13 at cond 2e5).
IMPULSE_REL_TOL = 1e-10
COND_LIMIT = 1e6


def lgs_method(model, **kw):
    # random trees may hang several branches from the world, whose boxes could touch: these tests are about
    # the joint solve, so contacts stay off
    return ims.make_method("impulse", model, solver="lgs", contacts=False, **kw)


def dense_system(method, state):
    """(M, row_node, row_comp, W Jᵀ) of the velocity system at ``state``, M = J W Jᵀ, rows in node order."""
    m = method.model
    method._update_rows(state)
    st = method._lgs.structure
    dyn = {k: c for c, k in enumerate(np.nonzero(m.body_inv_mass > 0)[0])}
    rows, row_node, row_comp = [], [], []
    for n, i in enumerate(st.node_prim):
        trans = Prim(m.prim_kind[i]) in TRANSLATIONAL
        for a in range(method.row_dim[i]):
            p = method.row_P[i, a]
            row = np.zeros(6 * len(dyn))
            for k, r, s in ((m.prim_body_a[i], method.row_ra[i], 1.0), (m.prim_body_b[i], method.row_rb[i], -1.0)):
                if k in dyn:
                    c = 6 * dyn[k]
                    row[c:c + 3] = s * p if trans else 0.0
                    row[c + 3:c + 6] = s * (np.cross(r, p) if trans else p)
            rows.append(row)
            row_node.append(n)
            row_comp.append(a)
    J = np.array(rows)
    W = np.zeros((6 * len(dyn), 6 * len(dyn)))
    for k, idx in dyn.items():
        c = 6 * idx
        W[c:c + 3, c:c + 3] = m.body_inv_mass[k] * np.eye(3)
        W[c + 3:c + 6, c + 3:c + 6] = method.Iinv[k]
    return J @ W @ J.T, np.array(row_node), np.array(row_comp), W @ J.T


def lgs_solve(method, b, row_node, row_comp):
    """The kernels' solution of M x = b (b in dense row order), returned in the same order."""
    lgs = method._lgs
    x = np.zeros((lgs.structure.n_nodes, 3))
    x[row_node, row_comp] = b
    solve(0, lgs.structure.n_nodes, lgs.fac_diag_inv, lgs.fac_off, lgs.structure.col_ptr, lgs.structure.off_row, x)
    return x[row_node, row_comp]


def assert_solves_like_dense(method, state, seed):
    """The LGS solve of a random right-hand side equals the dense solve of the same system, to the impulses'
    relative tolerance (the system well conditioned)."""
    M, row_node, row_comp, _ = dense_system(method, state)
    assert np.linalg.cond(M) < COND_LIMIT
    b = np.random.default_rng(seed).normal(size=M.shape[0])
    x = lgs_solve(method, b, row_node, row_comp)
    ref = np.linalg.solve(M, b)
    assert np.abs(x - ref).max() <= IMPULSE_REL_TOL * np.abs(ref).max()


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_bodies", [2, 5, 12])
def test_tree_impulses_match_dense_solve(seed, n_bodies):
    model, state = random_model(seed, n_bodies)
    method = lgs_method(model)
    assert_solves_like_dense(method, state, seed)
    assert method.dropped_rows == 0
    assert method._lgs.structure.fill == 0        # leaves-first order: no fill on a tree


@pytest.mark.parametrize("seed", range(8))
def test_loop_impulses_match_dense_solve(seed):
    """Ball-joint loops closed on random trees of ball joints. Where a loop makes rows redundant (e.g. two
    ball joints between the same bodies leave the rotation about their line free: one of the six rows is
    implied), the factorization drops exactly as many rows as M lacks in rank, every equation still holds,
    and the velocity change W Jᵀ x equals that of the minimum-norm solution; otherwise the impulses agree."""
    model, state = random_model(seed, 8, kinds=("ball",), loops=2)
    method = lgs_method(model)
    assert sum(len(c["cut_joints"]) for c in method.describe_chains()) == 2
    M, row_node, row_comp, WJt = dense_system(method, state)
    rank = np.linalg.matrix_rank(M)
    assert method.dropped_rows == M.shape[0] - rank
    assert method._lgs.structure.fill > 0         # loop-closing rows eliminated last fill along the loop
    rng = np.random.default_rng(seed)
    b = M @ rng.normal(size=M.shape[0]) if rank < M.shape[0] else rng.normal(size=M.shape[0])
    x = lgs_solve(method, b, row_node, row_comp)
    ref = np.linalg.lstsq(M, b, rcond=None)[0]
    assert np.abs(M @ x - b).max() <= IMPULSE_REL_TOL * np.abs(b).max()
    assert np.abs(WJt @ (x - ref)).max() <= IMPULSE_REL_TOL * np.abs(WJt @ ref).max()
    if rank == M.shape[0]:
        assert np.abs(x - ref).max() <= IMPULSE_REL_TOL * np.abs(ref).max()


def test_planar_four_bar_drops_its_three_redundant_rows():
    """A planar four-bar of hinges: 20 rows of rank 17 (the thesis's reason to modify joints by hand)."""
    model, state = four_bar()
    method = lgs_method(model)
    M, row_node, row_comp, WJt = dense_system(method, state)
    assert M.shape[0] == 20 and np.linalg.matrix_rank(M) == 17
    assert method.dropped_rows == 3
    b = M @ np.random.default_rng(1).normal(size=20)      # consistent: in the range of M
    x = lgs_solve(method, b, row_node, row_comp)
    ref = np.linalg.lstsq(M, b, rcond=None)[0]
    assert np.abs(M @ x - b).max() <= IMPULSE_REL_TOL * np.abs(b).max()
    assert np.abs(WJt @ (x - ref)).max() <= IMPULSE_REL_TOL * np.abs(WJt @ ref).max()


@pytest.mark.parametrize("seed", range(4))
def test_padding_rows_stay_zero_over_many_steps(seed):
    """A primitive with fewer than three rows (hinge direction, line, plane, distance) fills only its own
    rows of the J and Y arrays each step; the padding rows are zero from the allocation on. After fast steps
    on a random tree of mixed joints, they must still be zero, and the solve must still match the dense
    one at the poses reached."""
    model, state = random_model(40 + seed, 8)
    method = lgs_method(model)
    state.body_omega[1:] *= 4.0
    for _ in range(30):
        method.step(state, 0.004)
    lgs = method._lgs
    dims = method.row_dim[lgs.structure.node_prim]
    assert (dims < 3).any()
    for n, f in enumerate(dims):
        for arr in (lgs.node_lin, lgs.node_ang, lgs.node_angw):
            assert not arr[n, :, f:, :].any()
    assert_solves_like_dense(method, state, seed)
