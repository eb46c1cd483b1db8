"""Node kernels of Baraff's factorization (:mod:`.baraff`) for the blocks that ball-joint trees are made of,
and the elimination of leaf bodies through M⁻¹.

* :func:`mass_inverse_node`: a body without children has the block D_k = M_k, so its share of the parent
  element's block and of the forward and back steps follows from M_k⁻¹ = diag(m⁻¹ E, I_k⁻¹) (the world
  inverse inertia is known) with no factorization: W_k = M_k⁻¹ H_k,p (6 × sp) and P_k = H_k,pᵀ W_k
  (sp × sp), the Y_kᵀY_k of the general path.
* :func:`ball_body_node`: a body (6 unknowns) under a 3-row element with 3-row elements as children.
* :func:`ball_element_node`: a 3-row element under a body with its one body child (every element of the
  primary forest has exactly one child: the body it reaches first from the root).

They compute what the general path computes, in the same order of operations, but read their blocks
into arrays on the stack (:func:`_stack_floats`), work there and write the results once. Q, Y and x are
float64 buffers the compiler must assume may overlap, so working in them directly reloads every value
after every store and keeps the loops from being unrolled into registers.
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

import numpy as np

from impulsim.kernel import njit

TRIANGULAR, PSEUDO, MASS_INVERSE = 0, 1, 2
"""Forms of a node's factor (``node_form``): Q = G⁻¹ lower triangular (Cholesky); Q a full pseudo-inverse
root (a singular block, SVD variant); a leaf body eliminated through M⁻¹ (:func:`mass_inverse_node`)."""
PIVOT_TOL = 1e-10
"""A pivot below this fraction of its block's largest diagonal entry marks the block as singular."""

MASS_INVERSE_SLOT = 10
"""Offset of P_k in a mass-inverse node's Q block (before it: I⁻¹ row-major [0:9], m⁻¹ [9])."""
MASS_INVERSE_MAX_SP = 5
"""Largest parent block whose P_k fits the 36 floats of a body's Q block after I⁻¹ and m⁻¹."""


@njit(cache=True, inline="always")
def cholesky_inverse_to(A, s, Q, q0, big):
    """Q = G⁻¹ (lower triangular, s×s row-major at Q[q0:]) with G Gᵀ = A; A is overwritten by G and
    A[s²:s² + s] by the reciprocal pivots. False if a pivot is not above PIVOT_TOL × big."""
    ss = s * s
    for j in range(s):          # in-place lower Cholesky factor
        v = A[j * s + j]
        for k in range(j):
            v -= A[j * s + k] * A[j * s + k]
        if not v > PIVOT_TOL * big:
            return False
        v = np.sqrt(v)
        A[ss + j] = 1.0 / v
        A[j * s + j] = v
        for i in range(j + 1, s):
            w = A[i * s + j]
            for k in range(j):
                w -= A[i * s + k] * A[j * s + k]
            A[i * s + j] = w * A[ss + j]
    for c in range(s):          # G Q = I by forward substitution, column by column
        for i in range(c):
            Q[q0 + i * s + c] = 0.0
        Q[q0 + c * s + c] = A[ss + c]
        for i in range(c + 1, s):
            w = 0.0
            for k in range(c, i):
                w -= A[i * s + k] * Q[q0 + k * s + c]
            Q[q0 + i * s + c] = w * A[ss + i]
    return True


@intrinsic
def _stack_floats(typingctx, n):
    """A 1-d float64 array of n elements (n a compile-time constant) on the stack of the calling kernel:
    memory that cannot alias any array argument, so that the compiler can keep it in registers. It has
    no reference count and lives as long as the kernel's frame: use it only in kernels that are inlined
    (forceinline=True or inline="always") into the kernel that runs them, and never return it."""
    if not isinstance(n, types.IntegerLiteral):
        return None
    size = n.literal_value
    array_type = types.Array(types.float64, 1, "C")

    def codegen(context, builder, signature, args):
        f64 = context.get_value_type(types.float64)
        data = builder.bitcast(cgutils.alloca_once(builder, ir.ArrayType(f64, size)), f64.as_pointer())
        array = context.make_array(array_type)(context, builder)
        itemsize = context.get_constant(types.intp, 8)
        populate_array(array, data=data, shape=[context.get_constant(types.intp, size)], strides=[itemsize],
                       itemsize=itemsize, meminfo=None)
        return array._getvalue()

    return array_type(n), codegen


@njit(cache=True, inline="always")
def _rows_on_body(r0, n, body, row_a, row_Ja, row_Jb, J):
    """J[c·6:(c + 1)·6] = the block of row r0 + c on ``body`` (c < n)."""
    for c in range(n):
        r = r0 + c
        row = row_Ja[r] if row_a[r] == body else row_Jb[r]
        for b in range(6):
            J[c * 6 + b] = row[b]


@njit(cache=True, forceinline=True, fastmath={"contract"})
def mass_inverse_node(i, sp, node_ref, node_parent, node_d, node_h, node_x, element_row_start, row_a, row_Ja,
                      row_Jb, body_inv_mass, Iw, Iw_inv,
                      # outputs
                      Q, Y, x):
    """A leaf body k under an element with sp ≤ 5 rows: Q block = (I⁻¹, m⁻¹, P_k), Y block = W_k, and the
    forward step x_p −= W_kᵀ x_k, x_k ← M_k⁻¹ x_k. False (nothing written) if M_k is too badly conditioned
    for the pivot test of the general path (λ_min(M) ≥ min(m, 1/tr I⁻¹) below PIVOT_TOL × its largest
    diagonal entry)."""
    k = node_ref[i]
    inv_m = body_inv_mass[k]
    m = 1.0 / inv_m
    I, Iinv = Iw[k], Iw_inv[k]
    big = max(m, max(I[0, 0], max(I[1, 1], I[2, 2])))
    trace_inv = Iinv[0, 0] + Iinv[1, 1] + Iinv[2, 2]
    if not (m > PIVOT_TOL * big and 1.0 > PIVOT_TOL * big * trace_inv):
        return False
    J = _stack_floats(36)
    W = _stack_floats(36)
    p = node_parent[i]
    _rows_on_body(element_row_start[node_ref[p]], sp, k, row_a, row_Ja, row_Jb, J)
    # W = M⁻¹ H_k,p with H_k,p = −Jᵀ (column c: the parent's row c on this body)
    for c in range(sp):
        for j in range(3):
            W[j * sp + c] = -inv_m * J[c * 6 + j]
            W[(3 + j) * sp + c] = -(Iinv[j, 0] * J[c * 6 + 3] + Iinv[j, 1] * J[c * 6 + 4]
                                    + Iinv[j, 2] * J[c * 6 + 5])
    Qi = Q[node_d[i]:node_d[i] + MASS_INVERSE_SLOT + sp * sp]
    for a in range(3):
        for b in range(3):
            Qi[a * 3 + b] = Iinv[a, b]
    Qi[9] = inv_m
    # P = H_k,pᵀ W = −J W, lower triangle mirrored so that it is exactly symmetric
    for a in range(sp):
        for b in range(a + 1):
            v = 0.0
            for j in range(6):
                v += J[a * 6 + j] * W[j * sp + b]
            Qi[MASS_INVERSE_SLOT + a * sp + b] = -v
            Qi[MASS_INVERSE_SLOT + b * sp + a] = -v
    Yi = Y[node_h[i]:node_h[i] + 6 * sp]
    for q in range(6 * sp):
        Yi[q] = W[q]
    mass_inverse_forward(sp, Qi, Yi, x[node_x[i]:node_x[i] + 6], x[node_x[p]:node_x[p] + sp])
    return True


@njit(cache=True, inline="always")
def mass_inverse_forward(sp, Qi, Yi, xi, xp):
    """Forward step of a mass-inverse node (its Q and Y blocks, its and its parent's parts of x):
    x_p −= W_kᵀ x_k, then x_k ← M_k⁻¹ x_k."""
    z = _stack_floats(6)
    for a in range(6):
        z[a] = xi[a]
    for c in range(sp):
        v = 0.0
        for a in range(6):
            v += Yi[a * sp + c] * z[a]
        xp[c] -= v
    for a in range(3):
        xi[a] = Qi[9] * z[a]
        xi[3 + a] = Qi[a * 3] * z[3] + Qi[a * 3 + 1] * z[4] + Qi[a * 3 + 2] * z[5]


@njit(cache=True, inline="always")
def mass_inverse_back(sp, Yi, xi, xp):
    """Back step of a mass-inverse node: v̇_k = M_k⁻¹ F_k − W_k λ_p (x_k holds M_k⁻¹ F_k)."""
    for a in range(6):
        v = xi[a]
        for c in range(sp):
            v -= Yi[a * sp + c] * xp[c]
        xi[a] = v


@njit(cache=True, inline="always")
def _store_and_forward(G, Yl, n, m, sign, Qi, Yi, xi, xp):
    """Store a node's Q = G (n×n, lower triangular) and Y (n×m, row-major), then its forward step:
    x_i ← G x_i (in place, last row first: row a reads only rows b ≤ a), x_p += sign · Yᵀ x_i."""
    for q in range(n * n):
        Qi[q] = G[q]
    for q in range(n * m):
        Yi[q] = Yl[q]
    for a in range(n - 1, -1, -1):
        v = 0.0
        for b in range(a + 1):
            v += G[a * n + b] * xi[b]
        xi[a] = v
    for c in range(m):
        v = 0.0
        for a in range(n):
            v += Yl[a * m + c] * xi[a]
        xp[c] += sign * v


@njit(cache=True, forceinline=True, fastmath={"contract"})
def ball_body_node(i, node_ref, node_parent, node_d, node_h, node_x, child_start, children,
                   element_row_start, row_a, row_Ja, row_Jb, body_inv_mass, Iw,
                   # outputs
                   Q, Y, x):
    """Q_i, Y_i and the forward step of a body under a 3-row element whose children are 3-row elements
    with triangular factors: σ D = M + Σ_c Y_cᵀ Y_c, G Gᵀ = σ D, Q = G⁻¹, Y = −Q Jᵀ,
    z = Q x_i, x_p −= Yᵀ z. False (nothing written) if the block is singular."""
    A = _stack_floats(42)
    G = _stack_floats(36)
    y = _stack_floats(18)
    k = node_ref[i]
    for q in range(36):
        A[q] = 0.0
    m = 1.0 / body_inv_mass[k]
    I = Iw[k]
    for a in range(3):
        A[a * 7] = m
        for b in range(a + 1):
            A[(3 + a) * 6 + 3 + b] = I[b, a]
    for n in range(child_start[i], child_start[i + 1]):
        h0 = node_h[children[n]]
        Yc = Y[h0:h0 + 18]
        for q in range(18):
            y[q] = Yc[q]
        for r in range(3):
            for a in range(6):
                for b in range(a + 1):
                    A[a * 6 + b] += y[r * 6 + b] * y[r * 6 + a]
    big = 0.0
    for a in range(6):
        big = max(big, A[a * 7])
    if not cholesky_inverse_to(A, 6, G, 0, big):
        return False
    p = node_parent[i]
    _rows_on_body(element_row_start[node_ref[p]], 3, k, row_a, row_Ja, row_Jb, y)
    Yl = _stack_floats(18)
    for a in range(6):
        for c in range(3):
            v = 0.0
            for b in range(a + 1):
                v += G[a * 6 + b] * y[c * 6 + b]
            Yl[a * 3 + c] = -v
    _store_and_forward(G, Yl, 6, 3, -1.0, Q[node_d[i]:node_d[i] + 36], Y[node_h[i]:node_h[i] + 18],
                       x[node_x[i]:node_x[i] + 6], x[node_x[p]:node_x[p] + 3])
    return True


@njit(cache=True, forceinline=True, fastmath={"contract"})
def ball_element_node(i, node_ref, node_parent, node_d, node_h, node_x, child_start, children, node_form,
                      element_row_start, row_a, row_Ja, row_Jb,
                      # outputs
                      Q, Y, x):
    """Q_i, Y_i and the forward step of a 3-row element under a body, over one body child c (triangular
    or mass-inverse): −D = Y_cᵀ Y_c (or P_c), G Gᵀ = −D, Q = G⁻¹, Y = −Q J_p, z = Q x_i, x_p += Yᵀ z.
    False (nothing written) if the block is singular."""
    A = _stack_floats(12)
    G = _stack_floats(9)
    c = children[child_start[i]]
    if node_form[c] == MASS_INVERSE:
        d0 = node_d[c] + MASS_INVERSE_SLOT
        P = Q[d0:d0 + 9]
        for q in range(9):
            A[q] = P[q]
    else:
        y = _stack_floats(18)
        Yc = Y[node_h[c]:node_h[c] + 18]
        for q in range(18):
            y[q] = Yc[q]
        for q in range(9):
            A[q] = 0.0
        for r in range(6):
            for a in range(3):
                for b in range(a + 1):
                    A[a * 3 + b] += y[r * 3 + b] * y[r * 3 + a]
    big = 0.0
    for a in range(3):
        big = max(big, A[a * 4])
    if not cholesky_inverse_to(A, 3, G, 0, big):
        return False
    p = node_parent[i]
    J = _stack_floats(18)
    _rows_on_body(element_row_start[node_ref[i]], 3, node_ref[p], row_a, row_Ja, row_Jb, J)
    Yl = _stack_floats(18)
    for a in range(3):
        for j in range(6):
            v = 0.0
            for b in range(a + 1):
                v += G[a * 3 + b] * J[b * 6 + j]
            Yl[a * 6 + j] = -v
    _store_and_forward(G, Yl, 3, 6, 1.0, Q[node_d[i]:node_d[i] + 9], Y[node_h[i]:node_h[i] + 18],
                       x[node_x[i]:node_x[i] + 3], x[node_x[p]:node_x[p] + 6])
    return True
