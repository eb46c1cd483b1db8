"""Contact patches: the points of a face-on-face contact are solved together (contact.patches)."""
import numpy as np
import pytest

from impulsim.bench import contact as C
from impulsim.experiments import bender_contacts as S
from impulsim.contact.patches import patch_lcp, split_patch, make_lcp_scratch


def face_patch(rng, m):
    """The normal block of m points of a face (a random box's bottom face on a static floor): A_ij =
    1/M + (r_i × n)ᵀ J⁻¹ (r_j × n), rank 3 for m ≥ 3 (the body's motion along n and its two tilts)."""
    half = rng.uniform(0.05, 1.0, 3)
    mass = rng.uniform(0.1, 10.0)
    inertia = mass / 3.0 * np.array([half[1] ** 2 + half[2] ** 2, half[0] ** 2 + half[2] ** 2,
                                     half[0] ** 2 + half[1] ** 2])
    pts = np.column_stack([rng.uniform(-half[0], half[0], m), rng.uniform(-half[1], half[1], m),
                           np.full(m, -half[2])])
    n = np.array([0.0, 0.0, 1.0])
    arms = np.cross(pts, n)
    A = 1.0 / mass + arms @ np.diag(1.0 / inertia) @ arms.T
    return A, rng.normal(size=m), rng.uniform(0.0, 1.0, size=m)


@pytest.mark.parametrize("seed", range(20))
def test_patch_lcp_meets_the_complementarity_conditions(seed):
    # λ + dl ≥ 0, w = A dl − b ≥ 0 where λ + dl = 0 and w = 0 where λ + dl > 0; the sweeps stop when no
    # increment changes a velocity by more than tol, so w is met to a few tol per point
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 9))
    A, b, lam = face_patch(rng, m)
    dl = np.zeros(m)
    tol = 1e-10
    patch_lcp(A, b, lam, m, tol, dl, make_lcp_scratch())
    total = lam + dl
    w = A @ dl - b
    assert total.min() >= 0.0
    assert np.abs(w[total > 0.0]).max(initial=0.0) <= 10 * m * tol
    assert w.min() >= -10 * m * tol


def thin_face_patch(rng, m):
    """The normal block of m points of a 1 m × 0.4 m × 0.3 m stone's bottom face, all within a strip a few
    centimetres wide along its length (nearly on a line: the clipped contact of a slightly turned stone)."""
    half = np.array([0.5, 0.2, 0.15])
    inertia = np.array([half[1] ** 2 + half[2] ** 2, half[0] ** 2 + half[2] ** 2, half[0] ** 2 + half[1] ** 2]) / 3.0
    width = rng.uniform(0.01, 0.1)
    pts = np.column_stack([rng.uniform(-half[0], half[0], m), rng.uniform(-width, width, m), np.full(m, -half[2])])
    arms = np.cross(pts, np.array([0.0, 0.0, 1.0]))
    A = 1.0 + arms @ np.diag(1.0 / inertia) @ arms.T            # 1 kg
    return A, rng.normal(size=m), rng.uniform(0.0, 1.0, size=m)


def plain_pgs_sweeps(A, b, lam, tol, cap):
    """Sweeps projected Gauss–Seidel alone needs on the patch problem (the reference for the next test)."""
    dl = np.zeros(len(b))
    for k in range(1, cap + 1):
        change = 0.0
        for i in range(len(b)):
            new = max(-lam[i], dl[i] + (b[i] - A[i] @ dl) / A[i, i])
            change = max(change, abs(new - dl[i]) * A[i, i])
            dl[i] = new
        if change <= tol:
            return k
    return cap


def test_patch_lcp_solves_a_nearly_collinear_patch_in_few_sweeps():
    # six points along a thin strip: the sweeps alone move load off a point being released over thousands
    # of sweeps; the active-set refinement ends it, and its answer meets the conditions to tol itself
    A, b, lam = thin_face_patch(np.random.default_rng(94), 6)
    tol = 1e-8
    assert plain_pgs_sweeps(A, b, lam, tol, 5000) > 1000
    dl = np.zeros(6)
    sweeps = patch_lcp(A, b, lam, 6, tol, dl, make_lcp_scratch())
    assert sweeps <= 32
    total = lam + dl
    w = A @ dl - b
    assert total.min() >= 0.0
    assert np.abs(w[total > 0.0]).max() <= tol
    assert w.min() >= -tol


def test_box_on_the_ground_stays_at_rest():
    # a cube resting face down is in equilibrium: the patch solve gives its four corners loads without
    # torque, so nothing tilts or slides. The drift stays far inside the position tolerance eps_d per step
    # (each step's correction is exact to eps_d; static-friction anchors keep it from adding up)
    model, state = S.tower(1)
    method = C.make_method(model, S.STACK_SETTINGS)
    drift, _, _ = C.rest_drift(model, state, method, S.STACK_H, 1.0)
    assert drift <= S.STACK_SETTINGS["eps_d"]
    assert np.abs(state.body_vel).max() <= S.STACK_SETTINGS["eps_v"]


def test_resting_cube_corner_loads_balance_its_weight_without_torque():
    # at rest the position phase gives the cube g·h/2 upwards at t0 (so that the free step ends where it
    # started) and the velocity phase stops the −g·h/2 it has at t0+h: its four corner impulses sum to
    # m·g·h/2 and have no moment about the centre
    model, state = S.tower(1)
    method = C.make_method(model, dict(S.STACK_SETTINGS, warm_start=False))
    for _ in range(3):
        method.step(state, S.STACK_H)
    st = method.contacts
    rows, n = st.rows, st.count
    assert n == 4
    lam = rows.lam_n[:n]          # velocity phase of the last step
    g = np.linalg.norm(model.gravity)
    assert lam.sum() == pytest.approx(0.5 * S.STACK_MASS * g * S.STACK_H, rel=1e-6)
    moment = np.cross(rows.ra[:n], lam[:, None] * rows.n[:n]).sum(axis=0)
    # the patch solve stops when no corner's velocity changes by more than tol = 1e-3 eps_vc; a moment M
    # turns the cube at M / J, which moves a corner (0.5 m off the normal through the centre) by 0.5 M / J
    tol = 1e-3 * method.contacts.opt.eps_vc
    J = S.STACK_MASS * S.STACK_BOX ** 2 / 6.0
    assert np.abs(moment).max() <= J * tol / (0.5 * S.STACK_BOX)


def test_points_acting_almost_alike_are_left_out_of_the_block():
    # a box face's corners act on the body in clearly different ways (correlation of the normal block well
    # below 1) and stay together; of three points within 2 mm on a 5 cm hull only the first is kept (they act
    # almost alike, the block would be nearly singular); an extra clipping point 1 mm from a corner of a
    # 1 m face goes to the points solved one by one after the block
    half = np.array([0.5, 0.5, 0.5])
    corners = np.array([[sx, sy, -0.5] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5)])
    assert split(corners, half) == ([0, 1, 2, 3], [])
    close = np.array([[2.2e-3, 0.8e-3, -0.5], [2.1e-3, 0.7e-3, -0.5], [0.0, 0.0, -0.5]]) * 0.1
    assert split(close, half * 0.05) == ([0], [1, 2])
    extra = np.vstack([corners, [[0.499, -0.5, -0.5]]])
    assert split(extra, half) == ([0, 1, 2, 3], [4])
    rng = np.random.default_rng(0)
    for _ in range(20):
        pts = np.column_stack([rng.uniform(-0.5, 0.5, 4), rng.uniform(-0.5, 0.5, 4), np.full(4, -0.5)])
        spread = min(np.linalg.norm(pts[i] - pts[j]) for i in range(4) for j in range(i + 1, 4))
        if spread > 0.2:
            assert split(pts, half) == ([0, 1, 2, 3], [])


def split(points, half):
    """(kept, rest) contact numbers of split_patch for points on a box's bottom face."""
    m = len(points)
    idx, rest = np.arange(m, dtype=np.int64), np.zeros(m, np.int64)
    q, r = split_patch(block(points, 1.0, half), m, idx, rest, np.empty(m, np.int64))
    return idx[:q].tolist(), rest[:r].tolist()


def block(points, mass, half):
    """Normal block of points on the bottom face of a box (half extents ``half``) on a static floor."""
    inertia = mass / 3.0 * np.array([half[1] ** 2 + half[2] ** 2, half[0] ** 2 + half[2] ** 2,
                                     half[0] ** 2 + half[1] ** 2])
    arms = np.cross(points, np.array([0.0, 0.0, 1.0]))
    A = np.zeros((16, 16))
    m = len(points)
    A[:m, :m] = 1.0 / mass + arms @ np.diag(1.0 / inertia) @ arms.T
    return A


def test_a_collision_round_sweeps_only_the_patches_with_a_collision():
    """patches_with_kind keeps, in order, exactly the patches holding a contact of the kind asked for."""
    from impulsim.contact import rows as R
    from impulsim.contact.patches import patches_with_kind
    kinds = [R.RESTING, R.RESTING, R.COLLISION, R.RESTING, R.COLLISION, R.COLLISION, R.RESTING]
    rows = R.make_rows(len(kinds))
    rows.kind[:] = kinds
    order = np.arange(len(kinds), dtype=np.int64)[::-1].copy()        # contacts 6, 5, …, 0
    start, length = np.array([0, 2, 3, 6], np.int64), np.array([2, 1, 3, 1], np.int64)
    out_start, out_len = np.zeros(4, np.int64), np.zeros(4, np.int64)
    n = patches_with_kind(rows, order, start, length, 4, R.COLLISION, out_start, out_len)
    # patch 0 = contacts 6, 5 (5 collides); patch 1 = 4 (collides); patch 2 = 3, 2, 1 (2 collides); patch 3 = 0
    assert n == 3
    assert list(out_start[:n]) == [0, 2, 3] and list(out_len[:n]) == [2, 1, 3]


def _coupling_by_definition(inv_mass, Iinv, ri, ni, rj, nj):
    """n_iᵀ K(r_i, r_j) n_j with K(r_i, r_j) = E/m − r_i* J⁻¹ r_j* (Bender eq. 3.9), r* the cross-product matrix."""
    def star(r):
        return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
    K = inv_mass * np.eye(3) - star(ri) @ Iinv @ star(rj)
    return ni @ K @ nj


@pytest.mark.parametrize("freeze", [None, "a", "b"])
def test_patch_block_from_the_lever_arms_is_the_k_matrix_block(freeze):
    """patch_matrix builds a patch's normal block from the arms update_geometry keeps; it must equal the
    block of K parts by their definition, with a frozen body's part left out, on a resting wall's patches
    (stones tilted by the settling, so the arms are not axis-aligned)."""
    from impulsim.contact.patches import patch_matrix
    model, state = S.wall(rows=4, long_row=3, ball=False)
    method = C.make_method(model, S.WALL_SETTINGS)
    for _ in range(5):
        method.step(state, S.WALL_H)
    st, Iinv, rows = method.contacts, method.Iinv, method.contacts.rows
    starts, lens = st.patches_down[0], st.patches_down[1]
    checked = 0
    for p in range(st.n_patches_down):
        idx = st.order_down[starts[p]:starts[p] + lens[p]].astype(np.int64)
        if len(idx) < 2:
            continue
        a, b = rows.body_a[idx[0]], rows.body_b[idx[0]]
        frozen = np.zeros(model.n_bodies, np.int8)
        if freeze is not None:
            frozen[a if freeze == "a" else b] = 1
        A = np.zeros((16, 16))
        patch_matrix(rows, idx, len(idx), model.body_inv_mass, frozen, A)
        for i, ci in enumerate(idx):
            for j, cj in enumerate(idx):
                want = 0.0
                for body, r in ((a, rows.ra), (b, rows.rb)):
                    if not frozen[body] and model.body_inv_mass[body] > 0.0:      # static: no K part
                        want += _coupling_by_definition(model.body_inv_mass[body], Iinv[body], r[ci], rows.n[ci],
                                                        r[cj], rows.n[cj])
                # rounding of a few products of order 1/kg: 1e-12 is far below any entry that matters (≥ 1e-2)
                assert A[i, j] == pytest.approx(want, abs=1e-12)
        checked += 1
    assert checked >= 5
