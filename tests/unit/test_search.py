"""impulsim.math.search.lower_bound answers as NumPy's searchsorted (side='left') on random sorted keys,
duplicates, keys outside the range and empty prefixes included."""
import numpy as np

from impulsim.math.search import lower_bound


def test_lower_bound_matches_searchsorted_on_random_keys():
    rng = np.random.default_rng(11)
    for _ in range(300):
        keys = np.sort(rng.integers(-20, 20, size=rng.integers(0, 30))).astype(np.int64)
        n = int(rng.integers(0, keys.size + 1))
        padded = np.concatenate([keys, rng.integers(-50, 50, size=3)])   # entries past n are ignored
        for key in rng.integers(-25, 25, size=8):
            assert lower_bound(padded, n, np.int64(key)) == np.searchsorted(keys[:n], key)
