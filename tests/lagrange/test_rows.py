"""Every row kind: Ċ = J v + ∂C/∂t and c = C̈ − J v̇, checked by finite differences of C along exact
constant-velocity motion (v̇ = 0, so C̈ = c there) and, for velocity rows, C linear in v with slope J."""
import numpy as np
import pytest

from impulsim.math import quat_mul, quat_from_rotvec
from impulsim.methods.lagrange import (LagrangeMethod, PointToFunction, VelocityToFunction, EqualVelocity,
                                       Polynomial)
from tests.lagrange.scenes import JOINTS, two_bodies

DT1 = 1e-6
# central first difference: truncation O(DT1²·C''') ≈ 1e-12, round-off ≈ 1e-16/DT1 = 1e-10
FIRST_TOL = 1e-7
DT2 = 1e-4
# central second difference: truncation O(DT2²·C'''') ≈ 1e-8·|C''''| (≲ 1e-6 here), round-off 1e-16/DT2² = 1e-8
SECOND_TOL = 1e-5

POLY = Polynomial([[0.3, -0.1, 0.2], [0.5, 0.2, -0.4], [-0.7, 0.3, 0.25], [0.2, -0.5, 0.1]])


def moved(state, t):
    """State after time t of motion with the current (constant) velocities: s + u t, exp(ω t) ⊗ q."""
    s = state.copy()
    for k in range(1, s.body_pos.shape[0]):
        s.body_pos[k] = state.body_pos[k] + state.body_vel[k] * t
        s.body_quat[k] = quat_mul(quat_from_rotvec(state.body_omega[k] * t), state.body_quat[k])
    s.t = state.t + t
    return s


def rows_at(method, s):
    ev = method.eval
    ev.rows(s.t, s.body_pos, s.body_quat, s.body_vel, s.body_omega)
    return ev.row_Ja.copy(), ev.row_Jb.copy(), ev.row_c.copy(), ev.row_C.copy(), ev.row_Cd.copy()


def disturbed(state, seed):
    """Random poses and velocities (constraints violated: the identities hold anywhere)."""
    rng = np.random.default_rng(seed)
    s = state.copy()
    for k in (1, 2):
        s.body_pos[k] += 0.05 * rng.normal(size=3)
        s.body_quat[k] = quat_mul(quat_from_rotvec(0.1 * rng.normal(size=3)), s.body_quat[k])
        s.body_vel[k] = rng.normal(size=3)
        s.body_omega[k] = 2 * rng.normal(size=3)
    s.t = 0.4
    return s


def cases():
    out = [pytest.param(kind, (), id=kind) for kind in JOINTS]
    out.append(pytest.param("ball", (PointToFunction("f", "B", POLY, anchor=(0.1, 0.05, 0)),), id="point_to_function"))
    out.append(pytest.param("ball", (VelocityToFunction("g", "B", POLY, anchor=(0.1, 0.05, 0)),),
                            id="velocity_to_function"))
    out.append(pytest.param("ball", (EqualVelocity("e", "A", "B", anchor_a=(0.1, 0, 0), anchor_b=(0, 0.1, 0)),),
                            id="equal_velocity"))
    return out


@pytest.mark.parametrize("kind, extras", cases())
@pytest.mark.parametrize("seed", [0, 1])
def test_rows_match_finite_differences(kind, extras, seed):
    model, state = two_bodies(kind)
    method = LagrangeMethod(model, constraints=extras)
    s = disturbed(state, seed)
    Ja, Jb, c, C, Cd = rows_at(method, s)
    vel = method.table.row_velocity.astype(bool)
    v6 = np.hstack([s.body_vel, s.body_omega])
    Jv = (Ja * v6[method.table.row_a]).sum(1) + (Jb * v6[method.table.row_b]).sum(1)
    C_p1, C_m1 = rows_at(method, moved(s, DT1))[3], rows_at(method, moved(s, -DT1))[3]
    C_p2, C_m2 = rows_at(method, moved(s, DT2))[3], rows_at(method, moved(s, -DT2))[3]
    rate = (C_p1 - C_m1) / (2 * DT1)
    second = (C_p2 - 2 * C + C_m2) / DT2 ** 2
    hol = ~vel
    # holonomic rows: Ċ by differences, Ċ = J v (+ ∂C/∂t for the time function), c = C̈ at v̇ = 0
    assert np.allclose(Cd[hol], rate[hol], atol=FIRST_TOL, rtol=FIRST_TOL)
    timed = np.isin(method.table.row_block, np.nonzero(method.table.kind == 9)[0])
    assert np.allclose(Jv[hol & ~timed], Cd[hol & ~timed], atol=1e-12)
    assert np.allclose(c[hol], second[hol], atol=SECOND_TOL, rtol=SECOND_TOL)
    # velocity rows: c = Ċ at v̇ = 0, and C changes with v by J
    assert np.allclose(c[vel], rate[vel], atol=FIRST_TOL, rtol=FIRST_TOL)
    if vel.any():
        rng = np.random.default_rng(seed + 10)
        dv = rng.normal(size=(3, 6))
        s2 = s.copy()
        s2.body_vel += dv[:, :3]
        s2.body_omega += dv[:, 3:]
        C2 = rows_at(method, s2)[3]
        dJ = (Ja * dv[method.table.row_a]).sum(1) + (Jb * dv[method.table.row_b]).sum(1)
        assert np.allclose((C2 - C)[vel], dJ[vel], atol=1e-12)


@pytest.mark.parametrize("kind", [k for k in JOINTS if k != "velocity"])
def test_rows_vanish_at_the_initial_pose(kind):
    """The builder's initial pose satisfies every joint: all holonomic C are zero there."""
    model, state = two_bodies(kind)
    method = LagrangeMethod(model)
    C = rows_at(method, state)[3]
    assert np.abs(C).max() < 1e-12
