"""``impulsim sweep``: the command line over :func:`impulsim.sweep.run_sweep`."""
from __future__ import annotations

import sys
from pathlib import Path

from impulsim.sweep.plots import plot_sweep, sweep_info
from impulsim.sweep.runner import (SweepError, load_sweep_file, resolve_function, run_function_sweep,
                                   run_sweep)

_FLAGS = ("design", "samples", "seed", "method", "duration", "h", "workers", "scheduler", "start_method",
          "start_timeout")


def sweep_command(args) -> int:
    """Build run_sweep's arguments from a sweep file and the flags (flags win), run, print a summary."""
    from impulsim.io.settings import parse_option
    kwargs = load_sweep_file(args.file) if args.file else {}
    if args.scene and args.function:
        raise SweepError("impulsim sweep: give a SCENE or --function, not both")
    if args.scene:
        kwargs.pop("function", None)
        kwargs["scene"] = args.scene
    if args.function:
        kwargs.pop("scene", None)
        kwargs["function"] = args.function
    if "scene" not in kwargs and "function" not in kwargs:
        raise SweepError("impulsim sweep needs a SCENE, --function MODULE:NAME or --file SWEEP")
    if args.param:
        kwargs["params"] = list(args.param)
    if args.metric:
        kwargs["metrics"] = list(args.metric)
    for flag in _FLAGS:
        if getattr(args, flag) is not None:
            kwargs[flag] = getattr(args, flag)
    if "function" in kwargs:
        return _function_sweep(args, kwargs)
    options = dict(kwargs.get("options") or {})
    if args.set:
        from impulsim.io import load_scene
        method = kwargs.get("method") or load_scene(kwargs["scene"]).settings.method
        for item in args.set:
            key, sep, value = item.partition("=")
            if not sep:
                raise SweepError(f"--set {item!r}: expected KEY=VALUE")
            options[key.strip()] = parse_option(method, key.strip(), value.strip())
    kwargs["options"] = options
    if args.output:
        kwargs["out"] = args.output
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    table = run_sweep(progress=not args.quiet and sys.stderr.isatty(), say=say, **kwargs)
    out = Path(kwargs.get("out") or Path("out") / f"sweep-{Path(kwargs['scene']).stem}")
    return _report(args, table, out, say)


def _function_sweep(args, kwargs) -> int:
    """``--function MODULE:NAME`` (or a sweep file's ``function``): run_function_sweep over the design."""
    scene_flags = [f"--{f}" for f in ("method", "duration", "h") if getattr(args, f) is not None]
    if scene_flags or args.set:
        raise SweepError(f"impulsim sweep --function: {(scene_flags or ['--set'])[0]} applies to a scene sweep")
    fn = resolve_function(kwargs.pop("function"))
    if args.output:
        kwargs["out"] = args.output
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    table = run_function_sweep(fn, kwargs.pop("params", None), progress=not args.quiet and sys.stderr.isatty(),
                               say=say, **kwargs)
    out = Path(kwargs.get("out") or Path("out") / f"sweep-{fn.__name__}")
    return _report(args, table, out, say)


def _report(args, table, out: Path, say) -> int:
    """The plot (--plot) and the table of a finished sweep; 0 if every case is ok."""
    if args.plot:
        params, design = sweep_info(table)
        if not params:
            raise SweepError("--plot needs at least one parameter")
        second = params[1] if len(params) > 1 else None
        if design == "grid" and second:      # a grid over two parameters: a heat map
            path = plot_sweep(table, args.plot, params[0], second, out / f"{args.plot}.png")
        else:                                # else lines over the first, the second as series
            path = plot_sweep(table, args.plot, params[0], path=out / f"{args.plot}.png", series=second)
        say(f"wrote {path}")
    if not args.quiet:
        _print_table(table)
    return 0 if all(s == "ok" for s in table.column("status").to_pylist()) else 1


def _print_table(table, limit: int = 40) -> None:
    """The rows as aligned text (at most ``limit``), without the bookkeeping columns."""
    hide = {"key", "worker"}
    cols = [c for c in table.column_names if c not in hide]
    rows = table.to_pylist()[:limit]
    cells = [[_fmt(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))
    if table.num_rows > limit:
        print(f"... {table.num_rows - limit} more rows")


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "" if v is None else str(v)[:60]
