"""The articulated inertias (ABA pass 2) against the textbook recursion in plain NumPy, and the refusal of a
joint whose D = Sᵀ I^A S is not positive definite, for each compiled case (ball, hinge, other joints)."""
import numpy as np
import pytest

from impulsim.methods.featherstone import FeatherstoneMethod, aba
from tests.featherstone.random_trees import random_state, random_tree_model

# The compiled pass and the reference below do the same O(n) arithmetic in different orders (symmetric update,
# ball D⁻¹ by adjugate against np.linalg.inv), so they differ by round-off: relative 1e-16 per operation,
# amplified by D's condition number (at most ~200 for these trees of bodies of 0.5–3 kg and 0.05–1 kg m²;
# measured differences up to 4e-14).
REL_TOL = 1e-12


def reference(parent, v_start, S, I):
    """I^A, U, D⁻¹ of every joint by I^a = I^A − U D⁻¹ Uᵀ, with np.linalg.inv."""
    n = parent.shape[0]
    IA, U, Dinv = I[:n].copy(), np.zeros((n, 6, 6)), np.zeros((n, 6, 6))
    for i in range(n - 1, -1, -1):
        nv = v_start[i + 1] - v_start[i]
        Si = S[i, :, :nv]
        Ui = IA[i] @ Si
        Di = np.linalg.inv(Si.T @ Ui)
        U[i, :, :nv], Dinv[i, :nv, :nv] = Ui, Di
        if parent[i] >= 0:
            IA[parent[i]] += IA[i] - Ui @ Di @ Ui.T
    return IA, U, Dinv


@pytest.mark.parametrize("floating", [False, True], ids=["fixed-base", "floating-base"])
@pytest.mark.parametrize("seed", range(6))
def test_articulated_inertias_match_the_textbook_recursion(seed, floating):
    model, state = random_tree_model(seed, n_bodies=8, floating=floating)
    state, _, _ = random_state(model, state, seed, speed=4.0)
    method = FeatherstoneMethod(model, contacts=False)
    method.accelerations(state)                  # poses, S and Î of this state; then pass 2 alone
    dyn, tree = method.dyn, method.tree
    kinds = set(np.diff(tree.v_start).tolist())
    dyn.articulated_inertias()
    IA, U, Dinv = reference(tree.parent, tree.v_start, dyn.S, dyn.I)
    scale = np.abs(IA).max()
    np.testing.assert_allclose(dyn.IA[:tree.n], IA, rtol=0, atol=REL_TOL * scale)
    np.testing.assert_allclose(dyn.U[:tree.n], U, rtol=0, atol=REL_TOL * scale)
    for i in range(tree.n):
        nv = tree.v_start[i + 1] - tree.v_start[i]
        Di = Dinv[i, :nv, :nv]
        if nv > 0:                               # a fixed joint has no D
            np.testing.assert_allclose(dyn.Dinv[i, :nv, :nv], Di, rtol=0,
                                       atol=REL_TOL * np.abs(Di).max())
        # I^A stays symmetric: the update writes the upper triangle and mirrors it
        np.testing.assert_allclose(dyn.IA[i], dyn.IA[i].T, rtol=0, atol=1e-15 * scale)
    assert kinds & {1, 3}, "each tree should have hinges, sliders or balls (the specialised cases)"


def one_joint(nv, inertia):
    """Arrays of a single joint on the world with nv freedoms: rotations about x, y, z through the point
    (0.3, −0.2, 0.5) (ball: 3, hinge: 1) or a rotation and a slide along x (2), and the body's spatial
    inertia ``inertia`` [6, 6]."""
    p = np.array([0.3, -0.2, 0.5])
    S = np.zeros((1, 6, 6))
    for k in range(min(nv, 3) if nv != 2 else 1):
        w = np.eye(3)[k]
        S[0, :3, k], S[0, 3:, k] = w, np.cross(p, w)
    if nv == 2:
        S[0, 3, 1] = 1.0
    I = np.zeros((1, 6, 6))
    I[0] = inertia
    return np.array([-1]), np.array([0, nv]), S, I


def body_inertia(mass, moments, c):
    """Spatial inertia about the origin of a body of ``mass`` with principal ``moments`` on the world axes at c."""
    cx = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
    out = np.zeros((6, 6))
    out[:3, :3] = np.diag(moments) + mass * cx @ cx.T
    out[:3, 3:], out[3:, :3], out[3:, 3:] = mass * cx, mass * cx.T, mass * np.eye(3)
    return out


@pytest.mark.parametrize("nv", [3, 1, 2], ids=["ball", "hinge", "cylindrical"])
def test_a_joint_whose_D_is_not_positive_definite_is_reported(nv):
    work = np.zeros((3, 6, 6))
    outs = [np.zeros((1, 6, 6)) for _ in range(3)]
    good = body_inertia(2.0, (0.1, 0.2, 0.25), np.array([0.8, -0.2, 0.5]))
    parent, v_start, S, I = one_joint(nv, good)
    assert aba.articulated_inertias(parent, v_start, S, I, *outs, work) == -1
    U = I[0] @ S[0, :, :nv]
    D = S[0, :, :nv].T @ U
    np.testing.assert_allclose(outs[2][0, :nv, :nv] @ D, np.eye(nv), atol=1e-13)
    # no inertia at all (D = 0), and an indefinite one (a negative principal moment about x)
    for bad in (np.zeros((6, 6)), body_inertia(2.0, (-5.0, 0.2, 0.25), np.array([0.3, -0.2, 0.5]))):
        parent, v_start, S, I = one_joint(nv, bad)
        D = S[0, :, :nv].T @ bad @ S[0, :, :nv]
        assert np.linalg.eigvalsh(D).min() <= 0.0
        assert aba.articulated_inertias(parent, v_start, S, I, *outs, work) == 0
