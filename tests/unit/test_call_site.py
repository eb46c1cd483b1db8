"""impulsim.kernel.CallSite: a call that skips the dispatcher's typing must take the version the dispatcher
would take. Each case calls through a site with arguments whose Numba types differ from the last call's in
one way (dtype, layout, writeability, a scalar's type, a tuple member) and checks the answer against the
kernel called directly: a version taken for the wrong types would read the memory wrongly and answer
differently (or write where it must not)."""
import pickle
from collections import namedtuple

import numpy as np
import pytest
from numba.core.errors import TypingError

from impulsim.kernel import CallSite, call_sites, njit

Pair = namedtuple("Pair", "a b")


@njit
def _weighted(pair, x, scale, extra):
    """Sum of pair.a·x plus sum of pair.b, times scale, plus the sum of extra's two members."""
    total = 0.0
    for i in range(x.shape[0]):
        total += pair.a[i] * x[i]
    for i in range(pair.b.shape[0]):
        total += pair.b[i]
    return total * scale + extra[0].sum() + extra[1].sum()


@njit
def _fill(out, value):
    """Write ``value`` into every entry of ``out``; returns how many."""
    for i in range(out.shape[0]):
        out[i] = value
    return out.shape[0]


@njit
def _half(x):
    return x / 2 if x > 0 else x


def _direct(*args):
    return _weighted.py_func(*args)


def test_a_site_answers_as_the_kernel_for_each_change_of_type():
    rng = np.random.default_rng(7)
    pair = Pair(rng.normal(size=6), rng.normal(size=4))
    x = rng.normal(size=6)
    extra = (np.arange(3.0), np.arange(2))
    site = CallSite(_weighted)
    variants = [
        (pair, x, 2.0, extra),
        (pair, x, 2.0, extra),                                        # the same objects: the remembered version
        (pair, x, 3, extra),                                          # an int scale
        (pair, x.astype(np.float32), 2.0, extra),                     # another dtype at the same place
        (pair, np.ascontiguousarray(x[::-1]), 2.0, extra),           # a new array of the same type
        (pair, np.repeat(x, 2)[::2], 2.0, extra),                     # a strided view: another layout
        (pair, x, 2.0, (extra[0], np.arange(2.0))),                   # a tuple member of another dtype
        (Pair(pair.a.astype(np.int64), pair.b), x, 2.0, extra),       # a named tuple of other types
        (pair, x, np.float32(2.0), extra),
        (pair, x, True, extra),
    ]
    for args in variants + variants[::-1]:
        assert site(*args) == pytest.approx(_direct(*args), rel=1e-6), args


def test_random_sequences_of_arguments_agree_with_the_kernel():
    """Fresh arrays, slices, dtypes, layouts and scalars in a random order, as a step's calls may bring them."""
    rng = np.random.default_rng(11)
    base = rng.normal(size=12)
    makers = [
        lambda: base[:6].copy(),
        lambda: base[6:],                        # a contiguous view
        lambda: base[::2],                       # a strided view
        lambda: base[:6].astype(np.float32),
        lambda: base[:6].astype(np.int64),
        lambda: base[:6],
    ]
    pair = Pair(base[:6].copy(), base[:3].copy())
    site = CallSite(_weighted)
    for _ in range(300):
        x = makers[rng.integers(len(makers))]()
        scale = [1.5, 2, np.float64(0.5), np.int32(3)][rng.integers(4)]
        extra = (base[:rng.integers(1, 5)], makers[rng.integers(len(makers))]())
        assert site(pair, x, scale, extra) == pytest.approx(_direct(pair, x, scale, extra), rel=1e-6)


def test_a_read_only_array_is_refused_after_a_writeable_one():
    """Numba refuses to write into a read-only array; a site must not pass one to the writing version."""
    site = CallSite(_fill)
    out = np.zeros(4)
    assert site(out, 2.0) == 4 and (out == 2.0).all()
    frozen = np.zeros(4)
    frozen.flags.writeable = False
    with pytest.raises(TypingError):
        site(frozen, 3.0)
    assert (frozen == 0.0).all()
    assert site(out, 5.0) == 4 and (out == 5.0).all()


def test_scalars_of_another_type_take_their_own_version():
    site = CallSite(_half)
    assert site(3) == 1.5 and site(3.0) == 1.5 and site(-3) == -3 and site(np.float32(5.0)) == 2.5
    assert type(site(True)) is float


def test_a_site_pickles_and_resolves_afresh():
    sites = call_sites(_half, _fill)
    assert sites.half(4) == 2.0
    copy = pickle.loads(pickle.dumps(sites))
    assert copy.half(4) == 2.0 and copy.half(6.0) == 3.0
    out = np.zeros(2)
    assert copy.fill(out, 1.0) == 2 and (out == 1.0).all()
