"""Binary search in sorted key arrays, for kernels.

A hand-written search compiles once for the key arrays the kernels use; NumPy's ``searchsorted`` inside Numba
compiles four generic functions and a comparison for each array type.
"""
from impulsim.kernel import njit


@njit(cache=True)
def lower_bound(keys, n, key):
    """First index i in [0, n] with keys[i] >= key, for keys[:n] sorted ascending (``np.searchsorted`` with
    side='left' on keys[:n])."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo
