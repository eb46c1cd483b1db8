"""Contact percussions carried from one step to the next, matched by the contact's features.

A contact is identified by (shape A, shape B, feature on A, feature on B) — the detector keeps feature ids
stable while the same features touch. Starting the sweeps from last step's Λ of the same contact lets a
resting contact converge in a few sweeps instead of building its percussion up again from zero.
"""
import numpy as np


def _keys(contacts, index):
    """One comparable key per selected contact: the four ids' bytes as a single void item."""
    k = np.empty((len(index), 4), np.int64)
    k[:, 0] = contacts.shape_a[index]
    k[:, 1] = contacts.shape_b[index]
    k[:, 2] = contacts.feature_a[index]
    k[:, 3] = contacts.feature_b[index]
    return np.ascontiguousarray(k).view(np.dtype((np.void, 32))).ravel()


class ContactMemory:
    """Last step's percussions (Λ_N, Λ_t, Λ_b) per contact key: the first ``n`` rows of ``keys`` (sorted) and
    ``lam``. The two buffers are written in place and only replaced when they must grow, so a step leaves
    them where they were (the failed-step snapshot then reuses its plan of the method's memory)."""

    def __init__(self):
        self.keys = np.zeros(0, np.dtype((np.void, 32)))
        self.lam = np.zeros((0, 3))
        self.n = 0

    def recall(self, contacts, blk_contact, lam_rows) -> int:
        """Write remembered Λ into ``lam_rows`` [n_blocks, 3] (a view of the contact rows) for the contacts
        ``blk_contact`` seen last step; returns how many were found. The tangent frame of a contact only
        depends on its normal and law, so Λ_t, Λ_b keep their meaning while the normal holds still."""
        n = self.n
        if not n or not len(blk_contact):
            return 0
        keys = self.keys[:n]
        cur = _keys(contacts, blk_contact)
        idx = np.searchsorted(keys, cur)
        idx[idx == n] = 0
        hit = keys[idx] == cur
        lam_rows[hit] = self.lam[idx[hit]]
        return int(hit.sum())

    def store(self, contacts, blk_contact, lam_rows) -> None:
        """Remember this step's Λ of every contact block."""
        keys = _keys(contacts, blk_contact)
        order = np.argsort(keys, kind="stable")
        n = len(keys)
        if n > len(self.keys):
            size = max(n, 2 * len(self.keys))
            self.keys, self.lam = np.zeros(size, self.keys.dtype), np.zeros((size, 3))
        self.keys[:n] = keys[order]
        self.lam[:n] = lam_rows[order]
        self.n = n
