"""The decorator every compiled kernel of impulsim is defined with: ``njit``, Numba's, made cheaper to compile.

Numba builds two entry points into each compiled function besides its native code: a wrapper that converts
Python objects to native values (so that Python can call it) and a C-callable wrapper (so that it can be
passed around as a function pointer). Most of impulsim's kernels are only ever called by other kernels, and
for those both wrappers are wasted work at compile time. No kernel is passed around as a function pointer,
so none has the C-callable wrapper (for a kernel taking the contact rows, 37 arrays, it took 40 ms to build).

``njit`` here therefore gives each kernel two faces. Python calls the kernel as Numba compiles it (with its
wrappers, no extra cost per call). A kernel that calls it is compiled against an internal copy built without
either wrapper. Each face compiles only for the argument types it is used with, and each is cached on disk
(one index file, different keys).

The internal copy is also never turned into machine code of its own. Numba optimizes each compiled
function as a module with its callees linked in, emits its machine code, and then links that module into every
caller, which optimizes it once more with the caller and emits it again: for a function only kernels call, the
first optimization and the machine code are never used. The internal copy therefore stays LLVM IR (and is
cached as bitcode); the kernel Python calls optimizes and compiles everything below it once. That took about a
sixth off a contact scene's first compile and a fifth off the 255-body tree's, with the same numbers bit for bit.

Both faces compile the same source with the same options. Numba lets a function compiled while its caller
compiles inherit the caller's options that it does not set itself. For reference counting that is wanted
(kernels compiled without it pass that on to what they call), but for ``fastmath`` it made results depend on
which caller happened to compile a shared function first: the internal copy therefore never takes
``fastmath`` from a caller, nor ``forceinline`` (a helper kept out of line on purpose stays so). A kernel
that sets fastmath itself (the Lagrange package's) keeps it in both faces.

Every kernel's per-function LLVM passes run through one pass manager per module (Numba builds one for each
function of the module, declarations included): the same passes, a few milliseconds less per compiled function.

Small helpers in hot loops are marked ``forceinline=True``: Numba compiles them once and LLVM inlines them
into every caller. Numba's own ``inline="always"`` instead copies and retypes the helper's IR at every call
site, which made the contact sweeps take twice as long to compile and ran no faster.

``impulsim/__init__`` imports :mod:`impulsim.kernel_cache` before any module that defines kernels, so the
cache's place is fixed before the first kernel is made. Use ``njit`` as Numba's: ``@njit``,
``@njit(cache=True)``, ``@njit(cache=True, forceinline=True, _nrt=False)``. A kernel that Python calls and
kernels call too would compile both faces; ``called_from_python=True`` gives it Numba's one version instead
(worth it for large ones: the contact sweeps).
"""
from __future__ import annotations

import types as types_module

import llvmlite.binding as llvm
import numba
import numpy as np
from numba.core import caching, compiler, errors, registry, types
from numba.core.codegen import JITCodeLibrary

_NO_WRAPPERS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
_LINK_ONLY = "impulsim-link-only"   # the cache's name for a library kept as LLVM bitcode
_ENV_PREFIX = "_ZN08NumbaEnv"      # Numba's mangled names of its per-function environment pointers


class _KernelLibrary(JITCodeLibrary):
    """Numba's code library, with its per-function LLVM passes run through one pass manager per module.

    Numba builds a new pass builder and function pass manager for every function of a module it
    optimizes, declarations included (about thirty in a typical kernel's module): a few milliseconds per
    compiled function, a few seconds over a contact scene's first compile. The passes and their order are
    Numba's own; declarations have no body to optimize."""

    def _optimize_functions(self, ll_module):
        ll_module.data_layout = self._codegen._data_layout
        manager = builder = None
        for function in ll_module.functions:
            if function.is_declaration:
                continue
            if manager is None:
                manager, builder = self._codegen._function_pass_manager()
            with self._recorded_timings.record(f"Function passes on {function.name!r}", builder):
                manager.run(function, builder)


class _LinkOnlyLibrary(_KernelLibrary):
    """The code of an internal copy: kept as LLVM IR and linked into the kernels that call it, never
    optimized as a module nor turned into machine code of its own.

    Numba optimizes every compiled function's module (callees linked in) and emits its machine code, then
    links that module into each caller, which optimizes it again with the caller and emits it again. For a
    function that only kernels call the first optimization and machine code are never used: the caller's
    optimization starts from the IR. Only the function's environment pointer is given to the execution engine
    (a one-global module), so that Numba can set it as it does for every function."""

    def finalize(self):
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                seen.add(library)
                self._reload_init.update(library._reload_init)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._final_module.verify()
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._register_environments()
        self._finalized = True

    def _register_environments(self):
        names = [gv.name for gv in self._final_module.global_variables if gv.name.startswith(_ENV_PREFIX)]
        if names:
            module = llvm.parse_assembly("".join(f'@"{n}" = common global i8* null\n' for n in names))
            module.triple = self._final_module.triple
            module.data_layout = self._final_module.data_layout
            self._codegen._engine.add_module(module)
            self._codegen._engine.finalize_object()

    def serialize_using_object_code(self):
        """The cache stores the IR that callers link (there is no object code)."""
        self._ensure_finalized()
        return (self.name, _LINK_ONLY, self._get_module_for_linking().as_bitcode())

    @classmethod
    def from_bitcode(cls, codegen, name, bitcode):
        library = cls(codegen, name)
        library._final_module = llvm.parse_bitcode(bitcode)
        library._finalize_dynamic_globals()
        library._register_environments()
        library._finalized = True
        return library


class _KernelCompiler(compiler.Compiler):
    """Numba's pipeline, writing into a :class:`_KernelLibrary`."""

    library_class = _KernelLibrary

    def compile_extra(self, func):
        if self.state.library is None:
            self.state.library = self.library_class(self.state.targetctx.codegen(), func.__qualname__)
            if self.library_class is _KernelLibrary:
                self.state.library.enable_object_caching()     # as Numba's lowering does for its libraries
        return super().compile_extra(func)


class _LinkOnlyCompiler(_KernelCompiler):
    """Numba's pipeline, writing into a :class:`_LinkOnlyLibrary`."""

    library_class = _LinkOnlyLibrary


class _InternalCacheImpl(caching.CompileResultCacheImpl):
    """Rebuilds a cached internal copy from its bitcode (Numba's own rebuild expects object code)."""

    def rebuild(self, target_context, payload):
        libdata, fndesc, env, signature, objectmode, lifted, typeann, reload_init, referenced_envs = payload
        if libdata[1] != _LINK_ONLY:
            return super().rebuild(target_context, payload)
        for init in reload_init or ():
            init()
        library = _LinkOnlyLibrary.from_bitcode(target_context.codegen(), libdata[0], libdata[2])
        entry = target_context.get_executable(library, fndesc, env)
        result = compiler.CompileResult(
            target_context=target_context, typing_context=target_context.typing_context, library=library,
            environment=env, entry_point=entry, fndesc=fndesc, type_annotation=typeann, signature=signature,
            objectmode=objectmode, lifted=lifted, typing_error=None, call_helper=None, metadata=None,
            reload_init=reload_init, referenced_envs=referenced_envs)
        for referenced in referenced_envs:
            library.codegen.set_env(referenced.env_name, referenced)
        return result


_RESULT_FIELDS = {"typing_context", "target_context", "entry_point", "typing_error", "type_annotation", "library",
                  "call_helper", "environment", "metadata", "reload_init", "referenced_envs", "fndesc",
                  "signature", "objectmode", "lifted"}
"""The fields :meth:`_InternalCacheImpl.rebuild` fills (all of Numba's CompileResult, as checked)."""


def _link_only_works() -> bool:
    """Whether this Numba has the internals that the IR-only copies use (checked once, at import); a Numba
    that differs compiles the copies its own way, with machine code."""
    import inspect
    from numba.core.codegen import CPUCodegen
    library = ("_finalize_dynamic_globals", "_verify_declare_only_symbols", "_get_module_for_linking",
               "_raise_if_finalized", "_optimize_functions")
    rebuilt = ["target_context", "libdata", "fndesc", "env", "signature", "objectmode", "lifted", "typeann",
               "reload_init", "referenced_envs"]
    try:
        parameters = list(inspect.signature(compiler.CompileResult._rebuild).parameters)
    except (AttributeError, TypeError, ValueError):
        return False
    return (all(hasattr(JITCodeLibrary, name) for name in library) and parameters == rebuilt
            and hasattr(CPUCodegen, "_function_pass_manager")
            and set(compiler.CompileResult._fields) == _RESULT_FIELDS)


_LINK_ONLY_WORKS = _link_only_works()


class _InternalCache(caching.FunctionCache):
    """Numba's on-disk cache, with keys marked so that a wrapper-less version is never loaded where Python
    calls the kernel (it has no Python entry point: calling it would crash the process)."""

    _impl_class = _InternalCacheImpl

    def _index_key(self, sig, codegen):
        return super()._index_key(sig, codegen) + ("no-wrappers",)


class _InternalDispatcher(registry.CPUDispatcher):
    """The copy of a kernel that other kernels call: compiled without wrappers, never called from Python."""

    def enable_caching(self):
        self._cache = _InternalCache(self.py_func)


class KernelDispatcher(registry.CPUDispatcher):
    """A Numba dispatcher whose calls from compiled code are typed and lowered against :attr:`internal`.

    A call from compiled code with a constant argument (``fill_cache(..., 0, n, RESTING, ...)``) reaches
    Numba typed as that constant (``Literal[int](0)``), and Numba compiles the callee once more for each
    constant a caller passes: a contact scene compiled some kernels two and three times over, for constants
    that only their branches read. Calls are therefore typed with the constants' plain types first; a kernel
    that needs the value itself to type (a constant index into a tuple of mixed types, a literal string)
    fails that and is compiled for the constant, as before."""

    def get_call_template(self, args, kws):
        plain = tuple(types.unliteral(a) for a in args)
        plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != kws:
            try:
                return self.internal.get_call_template(plain, plain_kws)
            except errors.TypingError:
                pass
        return self.internal.get_call_template(args, kws)

    def get_overload(self, sig):
        return self.internal.get_overload(sig)

    @property
    def internal(self) -> _InternalDispatcher:
        """The wrapper-less copy (made when a kernel first calls this one)."""
        copy = self.__dict__.get("_internal")
        if copy is None:
            cached = not isinstance(self._cache, caching.NullCache)
            options = {"fastmath": False, "forceinline": False, **self.targetoptions, **_NO_WRAPPERS}  # see module
            copy = _make(_InternalDispatcher, self.py_func, options, cached)
            self.__dict__["_internal"] = copy
        return copy


def _faster_flag_comparisons() -> None:
    """Make Numba's comparisons of compile flags cheaper, with the same results.

    Numba keys its cache of typing templates by the compile flags in force, and compares flags by building a
    dict of all their options (22, each read through a property) on both sides, and hashes them the same
    way (into a value that depends on the option names only). Typing looks templates up hundreds of
    thousands of times in a contact scene's first compile, and those dicts took about a tenth of it. Here
    flags hash to that same value without building anything, and two flags compare by the options set on
    either side only (an option read while unset gives its default, so the others are equal on both sides).
    Applied only to the flags class this was checked against (options read as ``_values.get(name,
    default)``); a Numba that differs is left as it is."""
    from numba.core.compiler import Flags
    original_eq = Flags.__eq__
    options = Flags.options
    names_hash = hash(tuple(sorted(Flags.options)))
    probe = Flags()
    if getattr(Flags, "_impulsim_fast", False) or not isinstance(getattr(probe, "_values", None), dict) \
            or hash(probe) != names_hash \
            or any(getattr(probe, name) is not option.default for name, option in options.items()):
        return

    def __eq__(self, other):
        if type(other) is not type(self):
            return original_eq(self, other)
        mine, theirs = self._values, other._values
        if mine == theirs:
            return True
        # an option set on neither side has its default on both: only the options set on either side decide
        for name in mine.keys() | theirs.keys():
            default = options[name].default
            a, b = mine.get(name, default), theirs.get(name, default)
            if a is not b and a != b:
                return False
        return True

    def __hash__(self):
        return names_hash

    Flags.__eq__, Flags.__hash__, Flags._impulsim_fast = __eq__, __hash__, True


_faster_flag_comparisons()


def _make(cls, function, targetoptions, cache):
    if not _LINK_ONLY_WORKS:
        pipeline = compiler.Compiler
    else:
        pipeline = _LinkOnlyCompiler if cls is _InternalDispatcher else _KernelCompiler
    dispatcher = cls(py_func=function, locals={}, targetoptions=targetoptions, pipeline_class=pipeline)
    if cache:
        dispatcher.enable_caching()
    return dispatcher


def njit(function=None, **options):
    """Numba's ``njit`` for impulsim's kernels (module docstring): the same options and behaviour from
    Python, a cheaper compile where kernels call kernels."""
    if function is None:
        return lambda f: njit(f, **options)
    if options.pop("called_from_python", False):
        # a large kernel that Python and other kernels both call would otherwise compile twice (both faces)
        return numba.njit(function, pipeline_class=_KernelCompiler if _LINK_ONLY_WORKS else compiler.Compiler,
                          no_cfunc_wrapper=True, **options)
    cache = bool(options.pop("cache", False))
    targetoptions = {**options, "nopython": True, "boundscheck": options.get("boundscheck"), "no_cfunc_wrapper": True}
    return _make(KernelDispatcher, function, targetoptions, cache)


class CallSite:
    """A kernel as one place in Python calls it, step after step, with the same arrays: the Numba dispatcher's
    choice of compiled version made once, not at every call.

    Numba's dispatcher types every argument of every call from Python before it calls the compiled code. For
    an array that is cheap; for the contact rows, a named tuple of 37 arrays, it took about 5 µs of the 7 µs
    a call cost, and a contact step makes about ten such calls. A call site remembers the arguments of its
    last call that went through the dispatcher, and the compiled version (its entry point) the dispatcher
    took for them. A later call calls that entry point directly when its arguments match: the same objects
    (arrays, named tuples and other objects), plain tuples of matching members, scalars of the same Python
    type, and, at a place that got a new array at each call (a slice, a sort's result, a read-only view), a
    C-contiguous, aligned array of the same dtype, dimension and writeability. Those determine the arguments'
    Numba types (impulsim never changes an array's dtype, shape or flags in place), so the dispatcher would
    take the same version and the results are the same. Any other call goes through the dispatcher and is remembered in
    turn.

    Keep one call site per object whose arrays it is called with (a stage, a detector): shared between two
    simulations it would go through the dispatcher on every switch. It holds its last arguments, so they
    live as long as it does or until the next call replaces them."""

    __slots__ = ("kernel", "_last")

    remember = True
    """False sends every call through the dispatcher (for comparisons: ``benchmarks/step_python.py
    --paired-call-sites``)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self._last = None          # (argument patterns, entry point, their test), replaced whole (thread-safe)

    def __call__(self, *args):
        if not self.remember:
            return self.kernel(*args)
        last = self._last
        if last is not None and last[2](args):
            return last[1](*args)
        result = self.kernel(*args)
        self._last = _remembered(self.kernel, args, None if last is None else last[0])
        return result

    def __reduce__(self):          # the entry point is the process's own: a copy resolves afresh
        return CallSite, (self.kernel,)


class _Items:
    """The pattern of a plain tuple argument: the tuple last seen (the same tuple again matches at once: its
    members are the same objects) and one pattern per member (a new tuple matches if its members do)."""
    __slots__ = ("source", "members")

    def __init__(self, source: tuple, members: tuple):
        self.source, self.members = source, members


class _ArrayOf:
    """The pattern of a place that gets a new array at every call: any C-contiguous, aligned NumPy array of
    this dtype, number of dimensions and writeability (Numba types all of them alike)."""
    __slots__ = ("dtype", "ndim", "writeable")

    def __init__(self, like: np.ndarray):
        self.dtype, self.ndim, self.writeable = like.dtype, like.ndim, like.flags.writeable

    def accepts(self, value) -> bool:
        if type(value) is not np.ndarray or value.dtype is not self.dtype or value.ndim != self.ndim:
            return False
        flags = value.flags
        return flags.c_contiguous and flags.aligned and flags.writeable == self.writeable


_SCALAR_TYPES = frozenset((int, float, bool, type(None)))


def _pattern(value, before=None):
    """What a later argument must be to take the same compiled version (see CallSite); ``before`` is the
    place's last pattern: a place that held another array becomes an _ArrayOf."""
    kind = type(value)
    if kind is tuple:
        members = (before.members if type(before) is _Items and len(before.members) == len(value)
                   else (None,) * len(value))
        return _Items(value, tuple(_pattern(v, b) for v, b in zip(value, members)))
    if kind in _SCALAR_TYPES or isinstance(value, np.generic):
        return kind
    if kind is np.ndarray and (type(before) is _ArrayOf or (type(before) is np.ndarray and before is not value)):
        like = _ArrayOf(value)
        if like.accepts(value):
            return like
    return value


def _remembered(kernel, args, before):
    """(patterns of ``args``, the entry point of the version the dispatcher just called with them), or None
    when that version cannot be told (several versions, none compiled for exactly these types). ``before``:
    the last patterns, or None."""
    overloads = kernel.overloads
    if len(overloads) == 1:
        version = next(iter(overloads.values()))
    else:
        version = overloads.get(tuple(kernel.typeof_pyval(a) for a in args))
    if version is None:
        return None
    if before is None or len(before) != len(args):
        before = (None,) * len(args)
    patterns = tuple(_pattern(a, b) for a, b in zip(args, before))
    return patterns, version.entry_point, _test_of(patterns)


def _test_of(patterns):
    """A function of a call's argument tuple: whether it matches ``patterns`` (as many arguments, each the
    same object as its pattern, of its scalar type, an array its _ArrayOf accepts, or a tuple that is the one
    seen or whose members match in turn). Written out as one expression with no loop: a contact step tests
    about 150 arguments, and a loop over them took about 2.3 times as long."""
    names: dict = {}

    def held(obj) -> str:
        return names.setdefault(id(obj), (f"p{len(names)}", obj))[0]

    def test(ref: str, pattern) -> str:
        kind = type(pattern)
        if kind is _ArrayOf:
            return f"{held(pattern)}.accepts({ref})"
        if kind is _Items:
            members = " and ".join(test(f"{ref}[{i}]", m) for i, m in enumerate(pattern.members)) or "True"
            return (f"({ref} is {held(pattern.source)} or (type({ref}) is tuple and len({ref}) == "
                    f"{len(pattern.members)} and {members}))")
        if kind is type:                                   # a scalar's type
            return f"type({ref}) is {held(pattern)}"
        return f"{ref} is {held(pattern)}"

    body = " and ".join([f"len(args) == {len(patterns)}"] + [test(f"args[{i}]", p) for i, p in enumerate(patterns)])
    scope = {name: obj for name, obj in names.values()}
    exec(f"def matches(args):\n    return {body}\n", scope)      # noqa: S102 - our own expression of held names
    return scope["matches"]


def call_sites(*kernels) -> types_module.SimpleNamespace:
    """A :class:`CallSite` for each kernel, as attributes named after the kernels (leading underscores
    dropped): ``sites = call_sites(_position_pass, store_phase)``, then ``sites.position_pass(...)``."""
    return types_module.SimpleNamespace(**{k.__name__.lstrip("_"): CallSite(k) for k in kernels})
