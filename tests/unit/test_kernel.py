"""impulsim.kernel.njit: kernels called by kernels compile without Python entry points, Python calls stay
ordinary, and the two never mix in the on-disk cache."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from impulsim import kernel
from impulsim.kernel import KernelDispatcher, njit

SRC = Path(__file__).resolve().parents[2] / "src"

MODULE = textwrap.dedent("""
    import numpy as np
    from impulsim.kernel import njit

    @njit(cache=True)
    def weighted(a, w):
        s = 0.0
        for i in range(a.shape[0]):
            s += w * a[i]
        return s

    @njit(cache=True)
    def twice_weighted(a):
        return 2.0 * weighted(a, 3.0)

    @njit(cache=True)
    def four_weighted(a):
        return 2.0 * twice_weighted(a)

    @njit(cache=True)
    def six_weighted(a):
        return 3.0 * twice_weighted(a)
""")

CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import impulsim
    from numba.core import event
    compiled = []

    class Count(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__name__)
        def on_end(self, ev):
            pass

    event.register("numba:compile", Count())
    import kmod
    a = np.arange(4.0)
    out = [getattr(kmod, name)(a, 3.0) if name == "weighted" else getattr(kmod, name)(a)
           for name in sys.argv[1:]]
    print(json.dumps({"out": out, "compiled": compiled}))
""")


def _kernel(a, w):
    return w * a[0]


def test_a_kernel_gives_the_same_from_python_and_from_a_kernel():
    inner = njit(_kernel)

    @njit
    def outer(a):
        return inner(a, 2.0) + 1.0

    a = np.array([1.5, 2.0])
    assert isinstance(inner, KernelDispatcher)
    assert outer(a) == inner(a, 2.0) + 1.0 == 4.0
    # the copy that the kernel called has no wrappers; Python's call compiled the ordinary version
    assert inner.internal.targetoptions["no_cpython_wrapper"] and inner.internal.targetoptions["no_cfunc_wrapper"]
    assert len(inner.internal.signatures) == 1 and len(inner.signatures) == 1
    assert "no_cpython_wrapper" not in inner.targetoptions


def _run(tmp_path, cache, *calls):
    """Calls the kernels of ``kmod`` named in ``calls`` (in that order) in a fresh process."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(SRC)]))
    res = subprocess.run([sys.executable, "-c", CHILD, *calls], env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_the_cache_keeps_both_versions_apart(tmp_path):
    """A second process loads both versions from the cache; the version Python calls must be the one with a
    Python entry point (loading the wrapper-less one there would crash the process)."""
    (tmp_path / "kmod.py").write_text(MODULE)
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache, "twice_weighted", "weighted")   # from a kernel first, then from Python
    second = _run(tmp_path, cache, "twice_weighted", "weighted")
    expected = [2.0 * 3.0 * 6.0, 3.0 * 6.0]
    assert first["out"] == second["out"] == expected
    assert sorted(set(first["compiled"])) == ["twice_weighted", "weighted"]
    assert second["compiled"] == []          # nothing compiled: both faces of "weighted" came from the cache


def test_a_new_caller_links_the_kernels_it_calls_from_the_cache(tmp_path):
    """The copies that kernels call are cached as IR, not machine code. A caller compiled in a later process
    links them from the cache, two levels deep here: six_weighted calls the cached copy of twice_weighted,
    which holds the copy of weighted it was compiled with."""
    (tmp_path / "kmod.py").write_text(MODULE)
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache, "four_weighted")
    second = _run(tmp_path, cache, "six_weighted", "four_weighted")
    assert first["out"] == [4.0 * 3.0 * 6.0]
    assert second["out"] == [6.0 * 3.0 * 6.0, 4.0 * 3.0 * 6.0]
    assert sorted(first["compiled"]) == ["four_weighted", "twice_weighted", "weighted"]
    assert second["compiled"] == ["six_weighted"]     # its callees came from the cache


def test_a_copy_that_kernels_call_is_kept_as_ir_only():
    """No machine code is made for the copy (its callers optimize and compile it with themselves)."""
    if not kernel._LINK_ONLY_WORKS:
        pytest.skip("this Numba's internals differ: the copies are compiled with machine code")
    inner = njit(_kernel)

    @njit
    def outer(a):
        return inner(a, 2.0)

    assert outer(np.array([3.0])) == 6.0
    (copy,) = inner.internal.overloads.values()
    assert type(copy.library).__name__ == "_LinkOnlyLibrary"
    assert copy.library.get_pointer_to_function(copy.fndesc.mangled_name) == 0


def _product_plus(a, b, c):
    return a * b + c


def test_a_shared_kernel_rounds_the_same_whoever_compiles_it_first():
    """Numba hands a caller's unset options to the functions it compiles; a fastmath caller compiled first
    would leave a shared kernel fusing a*b + c into one rounding for every later caller. With
    a = 1 + 2^-30, b = 1 - 2^-30, c = -1 the product rounds to 1 (sum 0) where the fused form gives -2^-60."""
    shared = njit(_product_plus)

    @njit(fastmath={"contract"})
    def fast_caller(a, b, c):
        return shared(a, b, c)

    @njit
    def plain_caller(a, b, c):
        return shared(a, b, c)

    a, b, c = 1.0 + 2.0 ** -30, 1.0 - 2.0 ** -30, -1.0
    assert a * b + c == 0.0                               # IEEE, two roundings
    assert fast_caller(a, b, c) == plain_caller(a, b, c) == shared(a, b, c) == 0.0


def test_a_kernel_called_from_python_too_compiles_one_version():
    shared = njit(_product_plus, called_from_python=True)

    @njit
    def caller(a, b, c):
        return shared(a, b, c)

    assert not isinstance(shared, KernelDispatcher)
    assert caller(2.0, 3.0, 1.0) == shared(2.0, 3.0, 1.0) == 7.0
    assert len(shared.signatures) == 1          # the kernel's call and Python's share it


def _scaled_by_kind(x, kind):
    return 2.0 * x if kind == 0 else x + kind


def _pick(t, i):
    return t[i]


def test_a_kernel_called_with_constants_and_variables_compiles_one_version():
    """Callers passing constants (typed as ``Literal[int](0)``, ``Literal[bool](True)``) and a caller passing
    a variable share one compiled version of the callee, and each gets the callee's own results."""
    inner = njit(_scaled_by_kind)

    @njit
    def with_zero(x):
        return inner(x, 0)

    @njit
    def with_seven(x):
        return inner(x, 7)

    @njit
    def with_variable(x, k):
        return inner(x, k)

    assert with_zero(1.5) == 3.0 and with_seven(1.5) == 8.5 and with_variable(1.5, 2) == 3.5
    assert [str(t) for t in inner.internal.signatures[0]] == ["float64", "int64"]
    assert len(inner.internal.signatures) == 1


def test_a_kernel_that_needs_the_constant_to_type_is_compiled_for_it():
    """An index into a tuple of mixed types can only be typed with its value: such a call is compiled for
    the constant, as Numba does (the plain type is tried first and refused)."""
    pick = njit(_pick)

    @njit
    def second(x):
        return pick((x, "a", 3), 2) + pick((x, "a", 3), 0)

    assert second(0.5) == 3.5
    assert all(any("Literal" in str(t) for t in sig) for sig in pick.internal.signatures)


def test_a_kernel_kept_out_of_line_stays_so_whoever_compiles_it_first():
    """A forceinline caller compiled first would otherwise hand forceinline to the kernels it calls, and a
    helper kept out of line on purpose (a rare branch) would be inlined into every later caller too."""
    helper = njit(_product_plus)

    @njit(forceinline=True)
    def inlined_caller(a, b, c):
        return helper(a, b, c)

    @njit
    def outer(a, b, c):
        return inlined_caller(a, b, c)

    assert outer(2.0, 3.0, 1.0) == 7.0
    (inner,) = inlined_caller.internal.overloads.values()
    (kept,) = helper.internal.overloads.values()
    assert inner.fndesc.inline            # the caller itself is inlined, as asked
    assert not kept.fndesc.inline         # the helper it compiled on the way is not


def test_flag_comparisons_answer_as_numba_does():
    """Random pairs of compile flags (options set to their default, to other values, or left unset)
    compare and hash as Numba's own comparison says: the faster comparison changes no answer."""
    from numba.core.compiler import Flags
    from numba.core.targetconfig import TargetConfig
    if not getattr(Flags, "_impulsim_fast", False):
        pytest.skip("this Numba's flags are left as they are")
    rng = np.random.default_rng(7)
    names = ["boundscheck", "forceinline", "no_cpython_wrapper", "nrt", "fastmath", "debuginfo",
             "no_rewrites", "release_gil"]
    answers = set()
    for _ in range(400):
        pair = [Flags(), Flags()]
        for flags in pair:
            for name in rng.choice(names, size=rng.integers(0, 4), replace=False):
                setattr(flags, name, bool(rng.integers(0, 2)))
        a, b = pair
        expected = TargetConfig.__eq__(a, b)
        assert (a == b) is expected and (b == a) is expected
        assert hash(a) == TargetConfig.__hash__(a)
        answers.add(expected)
    assert answers == {True, False}
