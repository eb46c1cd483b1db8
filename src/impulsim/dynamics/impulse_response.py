"""How a rigid body's point velocity answers an impulse at that point (Bender eq. 3.9), shared by the
joint solvers and the contact solver."""

from impulsim.kernel import njit
from impulsim.math.vec import cross


@njit(cache=True)
def add_k_body(inv_mass, Iinv, r, K):
    """K += (1/m) E − r* J⁻¹ r* for a point at offset r [m] (world) from the centre of mass.

    ``Iinv`` is the body's world inverse inertia [1/(kg m²)]; nothing is added for infinite mass.
    """
    if inv_mass == 0.0:
        return
    # column j of −r* J⁻¹ r* is −r × (J⁻¹ (r × e_j)) = (J⁻¹ (r × e_j)) × r
    for j in range(3):
        e = (1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0)
        c = cross(r, e)
        w = (Iinv[0, 0] * c[0] + Iinv[0, 1] * c[1] + Iinv[0, 2] * c[2],
             Iinv[1, 0] * c[0] + Iinv[1, 1] * c[1] + Iinv[1, 2] * c[2],
             Iinv[2, 0] * c[0] + Iinv[2, 1] * c[1] + Iinv[2, 2] * c[2])
        col = cross(w, r)
        K[0, j] += col[0]
        K[1, j] += col[1]
        K[2, j] += col[2]
        K[j, j] += inv_mass
