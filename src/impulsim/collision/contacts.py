"""The contact array a detector produces each step: flat arrays, a count and an overflow counter."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from impulsim.collision.vec import KERNEL
from impulsim.kernel import njit


class ContactBuffers(NamedTuple):
    """Preallocated contact storage of capacity C (row i is contact i; only rows < count are valid).

    Frames: world. The normal points from body B towards body A ("toward the first body", Bender 4.1);
    ``point_a − point_b = distance · normal`` up to the clipping of contact regions.
    """
    body_a: np.ndarray
    """First body index, shape [C], int32."""
    body_b: np.ndarray
    shape_a: np.ndarray
    """Shape index (into the Model's shape table) on body A, shape [C], int32."""
    shape_b: np.ndarray
    point_a: np.ndarray
    """Contact point on A's surface [m], world, shape [C, 3]."""
    point_b: np.ndarray
    """Contact point on B's surface [m], world, shape [C, 3]."""
    normal: np.ndarray
    """Unit contact normal, world, from B towards A, shape [C, 3] (one normal per convex pair)."""
    distance: np.ndarray
    """Signed distance [m] along the normal; negative = penetration depth, shape [C]."""
    feature_a: np.ndarray
    """Feature id on A (vertex / clipped-edge id, with the triangle index for meshes), shape [C], int64:
    stable while the same features touch, for warm starting."""
    feature_b: np.ndarray
    pair: np.ndarray
    """Index of the convex pair (shape pair, or shape–triangle pair) the point belongs to, shape [C]."""


def make_buffers(capacity: int) -> ContactBuffers:
    """Empty buffers for ``capacity`` contact points."""
    c = int(capacity)
    return ContactBuffers(np.zeros(c, np.int32), np.zeros(c, np.int32), np.zeros(c, np.int32),
                          np.zeros(c, np.int32), np.zeros((c, 3)), np.zeros((c, 3)), np.zeros((c, 3)),
                          np.zeros(c), np.zeros(c, np.int64), np.zeros(c, np.int64), np.zeros(c, np.int32))


@njit(**KERNEL)
def append_region(region, regcode, k, n, sa, sb, ba, bb, swapped, pair, feat_a, feat_b, out, count):
    """Append the k rows of ``region`` / ``regcode`` (computed with slot 0 = A) as contacts.

    ``swapped``: slot 0 holds the second shape of the output pair, so normals flip and points swap.
    ``feat_a``/``feat_b`` are added to the slot-0/slot-1 feature ids (triangle index bits for meshes).
    Returns the new count; rows beyond the capacity are counted but not written.
    """
    cap = out.distance.shape[0]
    for i in range(k):
        if count < cap:
            first, second = (3, 0) if swapped else (0, 3)
            sign = -1.0 if swapped else 1.0
            out.body_a[count], out.body_b[count] = ba, bb
            out.shape_a[count], out.shape_b[count] = sa, sb
            for c in range(3):
                out.point_a[count, c] = region[i, first + c]
                out.point_b[count, c] = region[i, second + c]
                out.normal[count, c] = sign * n[c]
            out.distance[count] = region[i, 6]
            fa = regcode[i, 0] + feat_a
            fb = regcode[i, 1] + feat_b
            out.feature_a[count], out.feature_b[count] = (fb, fa) if swapped else (fa, fb)
            out.pair[count] = pair
        count += 1
    return count


_BUFFER_NAMES = frozenset(ContactBuffers._fields)


class Contacts:
    """Contacts found by :meth:`Detector.detect`: the arrays of :class:`ContactBuffers` cut to ``count``.

    ``n_pairs`` is the number of colliding convex pairs ("detected collisions"); ``overflow`` is the number
    of points that did not fit in the capacity (0 in a good step; raise the detector's capacity if not).
    """

    def __init__(self, buffers: ContactBuffers, count: int, n_pairs: int):
        self.buffers = buffers
        cap = buffers.distance.shape[0]
        self.count = min(count, cap)
        self.overflow = max(0, count - cap)
        self.n_pairs = n_pairs

    def __getattr__(self, name):
        """A buffer of :class:`ContactBuffers` cut to ``count``, made when first read (a contact step hands
        the uncut buffers and the count to its kernels and reads none of these)."""
        if name in _BUFFER_NAMES and "buffers" in self.__dict__:
            view = self.__dict__[name] = getattr(self.buffers, name)[:self.count]
            return view
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return f"Contacts(count={self.count}, n_pairs={self.n_pairs}, overflow={self.overflow})"
