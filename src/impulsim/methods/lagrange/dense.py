"""Wagner's "Direct" and "DirectSVD" λ solvers: the dense system J M⁻¹ Jᵀ λ = −(J M⁻¹ F + c′).

A = J M⁻¹ Jᵀ is assembled body by body (only rows that share a body couple) and solved by a Cholesky
factorization (LAPACK), O(m³) in the number of rows m. The SVD variant solves it by singular-value
decomposition with the singular values below ``svd_tol``·σ_max dropped, which gives the least-squares
solution of an inconsistent system and the minimum-norm one of a redundant system (Wagner App. F.2).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from impulsim.kernel import njit

PIVOT_TOL = 1e-10
"""A Cholesky pivot below this fraction of A's largest diagonal entry marks A as singular: its rows are
then dependent to within ~1e-5 relative (the square root of the pivot ratio), far beyond round-off."""


def body_row_lists(row_a, row_b, body_inv_mass):
    """CSR lists of the rows acting on each movable body: (start [n_bodies+1], rows, side 0=A / 1=B)."""
    n = body_inv_mass.shape[0]
    lists = [[] for _ in range(n)]
    for r in range(row_a.shape[0]):
        for side, k in ((0, row_a[r]), (1, row_b[r])):
            if body_inv_mass[k] > 0.0:
                lists[k].append((r, side))
    start = np.zeros(n + 1, np.int64)
    start[1:] = np.cumsum([len(x) for x in lists])
    flat = [x for lst in lists for x in lst]
    rows = np.array([r for r, _ in flat], np.int64)
    sides = np.array([s for _, s in flat], np.int64)
    return start, rows, sides


@njit(cache=True)
def assemble(body_row_start, body_rows, body_row_side, row_Ja, row_Jb, Wa, Wb,
             # outputs
             A):
    """A = J M⁻¹ Jᵀ = Σ_k J_k W_k over movable bodies k [m/(kg s²)-type units per row pair]."""
    A[:, :] = 0.0
    for k in range(body_row_start.shape[0] - 1):
        for p in range(body_row_start[k], body_row_start[k + 1]):
            r = body_rows[p]
            Jr = row_Ja[r] if body_row_side[p] == 0 else row_Jb[r]
            for q in range(body_row_start[k], body_row_start[k + 1]):
                s = body_rows[q]
                Ws = Wa[s] if body_row_side[q] == 0 else Wb[s]
                acc = 0.0
                for i in range(6):
                    acc += Jr[i] * Ws[i]
                A[r, s] += acc


class SingularSystem(Exception):
    """A has dependent rows; ``row`` is the row with the smallest pivot."""

    def __init__(self, row: int):
        super().__init__(row)
        self.row = row


def solve_cholesky(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """λ with A λ = b for a symmetric positive definite A; raises SingularSystem on a tiny pivot."""
    if A.shape[0] == 0:
        return np.zeros(0)
    scale = float(np.max(np.diag(A)))
    try:
        factor = scipy.linalg.cho_factor(A, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise SingularSystem(int(np.argmin(np.diag(A)))) from None
    pivots = np.diag(factor[0]) ** 2
    if pivots.min() <= PIVOT_TOL * scale:
        raise SingularSystem(int(np.argmin(pivots)))
    return scipy.linalg.cho_solve(factor, b, check_finite=False)


def solve_svd(A: np.ndarray, b: np.ndarray, svd_tol: float) -> tuple[np.ndarray, int]:
    """Least-squares, minimum-norm λ = V diag(1/σ_i, 0 where σ_i ≤ tol σ_max) Uᵀ b; also the rank."""
    if A.shape[0] == 0:
        return np.zeros(0), 0
    U, sigma, Vt = np.linalg.svd(A)
    keep = sigma > svd_tol * sigma[0]
    inv = np.where(keep, 1.0 / np.where(keep, sigma, 1.0), 0.0)
    return Vt.T @ (inv * (U.T @ b)), int(keep.sum())
