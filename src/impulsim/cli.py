"""The ``impulsim`` command.

Subcommands::

    impulsim run SCENE [options]     simulate a scene file, write a recording and a checkpoint
    impulsim check SCENE             load and compile a scene file, print what it holds
    impulsim bench NAME [--quick]    run a registered benchmark
    impulsim view SCENE [--port N]   show a scene live in the browser (needs the viewer extra)
    impulsim bob run TRACK           a bobsleigh run with the pilot model (splits, 100 Hz recording)
    impulsim track TRACK             build a bobsleigh track: summary, plots, glTF of its mesh
    impulsim compare MODEL           run a model under several methods and MuJoCo, print the differences
    impulsim sweep SCENE --param ... run a scene over a design of parameter values on Dask
    impulsim export gltf|html SCENE RECORDING OUT   export a recording (glTF binary, HTML replay page)
    impulsim methods [--markdown]    what each method honours (the capability matrix)
    impulsim warmup [GROUP ...]      compile the kernels ahead into Numba's cache (once per installation;
                                     in a process per core side by side, --jobs N)

SCENE and MODEL may also be a URDF (.urdf) or MJCF (.xml, .mjcf) file (see docs/formats.md).

Errors print one line (``impulsim: error: ...``) and exit with code 2; ``--debug`` shows the traceback.

While kernels compile (the first use of a scene's kernels on an empty cache), every command writes one line
to stderr when stderr is a terminal: what is compiling, that it happens once, and how far it got (see
:mod:`impulsim.compiling`). ``-q`` silences it; ``IMPULSIM_COMPILE_MESSAGES=1`` writes one line per burst
off a terminal too, ``0`` never.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from impulsim import cli_extras
from impulsim.compiling import compile_messages, default_reporter
from impulsim.errors import ImpulsimError
from impulsim.methods.catalog import check_scene_method, method_epilog, method_help

EXIT_OK, EXIT_ERROR, EXIT_INTERRUPTED = 0, 2, 130

# command-line flag -> method option it sets (typed by the option's default, see io.settings)
OPTION_FLAGS = {"eps_d": "--eps-d", "eps_v": "--eps-v", "max_iter_pos": "--max-iter-pos",
                "max_iter_vel": "--max-iter-vel", "solver": "--solver", "integrator": "--integrator"}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one sub-parser per subcommand."""
    # --debug is accepted before and after the subcommand; SUPPRESS keeps a sub-parser from resetting it
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the full traceback on errors")
    parser = argparse.ArgumentParser(prog="impulsim", parents=[common],
                                     description="Impulse-based simulation of rigid multibody systems.")
    parser.add_argument("--version", action="version", version=cli_extras.version_text())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_run(sub, common)
    _add_check(sub, common)
    _add_bench(sub, common)
    _add_view(sub, common)
    _add_bob(sub, common)
    _add_track(sub, common)
    _add_sweep(sub, common)
    _add_compare(sub, common)
    cli_extras.add_export(sub, common)
    _add_methods(sub, common)
    _add_warmup(sub, common)
    return parser


def _add_run(sub, common) -> None:
    p = sub.add_parser("run", parents=[common], help="simulate a scene file",
                       description="Simulate a scene file; write recording.parquet and final_state.npz "
                                   "(and plots with --plot) to the output directory.",
                       epilog=method_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene", help="scene file (YAML)")
    p.add_argument("-d", "--duration", type=float, help="simulated time [s] (default: the scene's)")
    p.add_argument("--h", type=float, dest="h", help="step size [s] (default: the scene's)")
    p.add_argument("--method", help=method_help())
    for key, flag in OPTION_FLAGS.items():
        p.add_argument(flag, dest=key, metavar="VALUE", help=f"method option {key}")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="any other method option (repeatable)")
    p.add_argument("-o", "--output", help="output directory (default: out/<scene file name>)")
    p.add_argument("--record-every", type=int, metavar="N", help="record every N-th step (default 1)")
    p.add_argument("--resume", metavar="CHECKPOINT", help="continue from a final_state.npz of this scene")
    p.add_argument("--plot", action="store_true", help="write energy, momentum and constraint-error PNGs")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    p.set_defaults(func=cmd_run)


def _add_check(sub, common) -> None:
    p = sub.add_parser("check", parents=[common], help="load and compile a scene file",
                       description="Validate a scene file and print what it holds.")
    p.add_argument("scene", help="scene file (YAML)")
    p.set_defaults(func=cmd_check)


def _add_bench(sub, common) -> None:
    p = sub.add_parser("bench", parents=[common], help="run a registered benchmark")
    p.add_argument("name", nargs="?", help="benchmark name (omit with --list)")
    p.add_argument("--quick", action="store_true", help="short version, for smoke tests")
    p.add_argument("--json", metavar="PATH", help="also write the records as JSON")
    p.add_argument("--list", action="store_true", help="list the registered benchmarks with what each measures")
    p.set_defaults(func=cmd_bench)


def _add_bob(sub, common) -> None:
    from impulsim.apps.bobsleigh.cli import add_bob_parser
    add_bob_parser(sub, common)


def _add_view(sub, common) -> None:
    p = sub.add_parser("view", parents=[common], help="show a scene live in the browser",
                       description="Simulate a scene in its own thread and show it live in the browser, "
                                   "with play, pause, step, reset, real-time factor, step size and method.",
                       epilog=method_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene", help="scene file (YAML)")
    p.add_argument("--port", type=int, default=8080, help="HTTP port of the view (default 8080)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser window")
    p.add_argument("--h", type=float, dest="h", help="step size [s] (default: the scene's)")
    p.add_argument("--method", help=method_help())
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: all networks)")
    p.add_argument("--replay", metavar="RECORDING",
                   help="replay a recording of the scene instead of simulating")
    p.add_argument("--ghost", metavar="RECORDING", help="with --replay: a second recording shown as a ghost")
    p.add_argument("--edit", action="store_true",
                   help="edit the scene while it runs (scene tree, parameters, undo, save; needs ruamel.yaml)")
    p.set_defaults(func=cmd_view)


def _add_track(sub, common) -> None:
    from impulsim.apps.bobsleigh.track.cli import add_parser
    add_parser(sub, common)


def _add_sweep(sub, common) -> None:
    p = sub.add_parser("sweep", parents=[common], help="run a scene over a design of parameter values",
                       description="Run every case of a parameter design (grid, list, random, Latin "
                                   "hypercube) on Dask; each finished case is written at once to "
                                   "OUT/cases/, and a rerun skips the cases already done.")
    p.add_argument("scene", nargs="?", help="scene file (YAML); or give --file")
    p.add_argument("--file", metavar="SWEEP", help="a sweep file (YAML) with scene, params, design, ...")
    p.add_argument("--function", metavar="MODULE:NAME",
                   help="sweep a Python function of the case's values instead of a scene, e.g. "
                        "impulsim.apps.bobsleigh.sweep:bob_case")
    p.add_argument("--param", action="append", default=[], metavar="PATH=VALUES",
                   help="a parameter: PATH=v1,v2 or PATH=low:high:n (or low:high for random/lhs)")
    p.add_argument("--design", choices=("grid", "list", "random", "lhs"), help="design (default grid)")
    p.add_argument("--samples", type=int, help="cases of a random or lhs design")
    p.add_argument("--seed", type=int, help="seed of a random or lhs design (default 0)")
    p.add_argument("--metric", action="append", default=[], metavar="NAME",
                   help="a metric of each case (repeatable), e.g. final.ball.z, energy.change")
    p.add_argument("--method", help="solver method (default: the scene's)")
    p.add_argument("-d", "--duration", type=float, help="simulated time per case [s] (default: the scene's)")
    p.add_argument("--h", type=float, dest="h", help="step size [s] (default: the scene's)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a method option")
    p.add_argument("--workers", type=int, help="Dask workers on this machine (default: cores; 0: no Dask)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler instead")
    p.add_argument("--start-method", choices=("forkserver", "spawn", "fork"),
                   help="how local Dask workers start (default forkserver on Linux, else spawn)")
    p.add_argument("--start-timeout", type=float, metavar="SECONDS",
                   help="stop if the workers or the scheduler are not up within this (default 120)")
    p.add_argument("-o", "--output", help="output directory (default out/sweep-<scene>)")
    p.add_argument("--plot", metavar="METRIC", help="also plot METRIC over the first one or two parameters")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress and no summary")
    p.set_defaults(func=cmd_sweep)


def _add_compare(sub, common) -> None:
    p = sub.add_parser("compare", parents=[common], help="run a model under several methods and MuJoCo",
                       description="Run a URDF, MJCF or scene file under each method and under MuJoCo (RK4, "
                                   "when installed) from the same state; print trajectory differences and "
                                   "time per step.")
    p.add_argument("model", help="URDF, MJCF or scene file")
    p.add_argument("--methods", default="impulse,lagrange,featherstone,moreau",
                   help="comma-separated methods (default: impulse,lagrange,featherstone,moreau)")
    p.add_argument("-d", "--duration", type=float, default=1.0, help="simulated time [s] (default 1)")
    p.add_argument("--h", type=float, dest="h", default=1e-3, help="step size [s] (default 0.001)")
    p.add_argument("--contacts", action="store_true", help="keep MuJoCo's contacts on (default off)")
    p.add_argument("--no-limits", action="store_true", help="remove joint limits on both sides")
    p.set_defaults(func=cmd_compare)


def cmd_compare(args) -> int:
    """``impulsim compare``: the model under each method and MuJoCo; differences and cost per step."""
    from impulsim.bench.compare import compare_file, format_rows
    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    h, duration = _positive(args.h, "--h"), _positive(args.duration, "--duration")
    rows = compare_file(args.model, methods, h=h, duration=duration, contacts=args.contacts,
                        limits=not args.no_limits)
    print("\n".join(format_rows(rows, args.model, h, duration)))
    return 0


def _add_methods(sub, common) -> None:
    p = sub.add_parser("methods", parents=[common], help="what each method honours",
                       description="Print the capability matrix declared by the method classes.")
    p.add_argument("--markdown", action="store_true", help="as the Markdown table of the docs")
    p.set_defaults(func=lambda args: _print_methods(args.markdown))


def _print_methods(markdown: bool) -> int:
    from impulsim.methods.capabilities import matrix_markdown, matrix_text
    print(matrix_markdown() if markdown else matrix_text(), end="")
    return EXIT_OK


def _add_warmup(sub, common) -> None:
    from impulsim.warmup import warmup_groups
    p = sub.add_parser("warmup", parents=[common], help="compile the kernels ahead (once per installation)",
                       description="Compile the Numba kernels into the on-disk cache now, so that the first "
                                   "step of later runs does not wait for them.")
    p.add_argument("groups", nargs="*", metavar="GROUP",
                   help=f"what to compile: {', '.join(warmup_groups())} (default: all)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress")
    p.add_argument("-j", "--jobs", type=int, metavar="N",
                   help="compile in N processes side by side, the groups dealt out among them (default: one per "
                        "usable core, at most one per group; 1: all in this process, one task after another)")
    p.set_defaults(func=cmd_warmup)


# ------------------------------------------------------------------------------------------ commands


def cmd_sweep(args) -> int:
    """``impulsim sweep``: run a design of cases and write its table."""
    from impulsim.sweep.cli import sweep_command
    return sweep_command(args)


def cmd_run(args) -> int:
    """``impulsim run``: simulate, record, checkpoint, plot, summarize."""
    from impulsim.io.formats import load_model_file_reporting as load_scene   # scene, URDF or MJCF
    from impulsim.io.checkpoint import load_checkpoint, restore_method_memory, save_checkpoint
    from impulsim.io.recording import Recorder
    from impulsim.io import runner

    scene = load_scene(args.scene)
    method, options = _method_and_options(scene, args)
    h = scene.settings.h if args.h is None else _positive(args.h, "--h")
    duration = scene.settings.duration if args.duration is None else _nonnegative(args.duration,
                                                                                 "--duration")
    every = scene.settings.record_every if args.record_every is None else args.record_every
    if every < 1:
        raise ValueError(f"--record-every must be at least 1, got {every}")
    state = load_checkpoint(args.resume, scene.state, scene.model) if args.resume else None
    sim = scene.simulation(state=state, h=h, method=method, **options)
    why = restore_method_memory(args.resume, sim.method) if args.resume else None
    if why is not None:
        print(f"impulsim: warning: method memory not restored ({why}); the run continues from the state "
              f"alone, not bit for bit", file=sys.stderr)
    out = Path(args.output) if args.output else Path("out") / Path(args.scene).stem
    out.mkdir(parents=True, exist_ok=True)
    # streamed to disk as it runs: a killed run keeps every flushed row (see io.recording)
    recorder = Recorder(scene.model, _metadata(scene, sim, method, options, h, every, args),
                        path=out / "recording.parquet")
    progress = not args.quiet and sys.stderr.isatty()    # a bar only where a terminal shows it
    # the compile message (main) ends after the steps that compiled, not a second later; an after-step
    # callback would keep the run out of compiled loops
    result = runner.run(sim, duration, recorder, every, progress=progress, desc=scene.name,
                        after_steps=default_reporter().finish)
    recorder.close()
    checkpoint = save_checkpoint(sim.state, out / "final_state.npz", sim.method, scene.model)
    written = [out / "recording.parquet", checkpoint]
    if args.plot:
        from impulsim.io.plots import plot_recording
        written += plot_recording(recorder.table(), out, eps_d=getattr(sim.method, "eps_d", None))
    if not args.quiet:
        for line in runner.summary(result, scene.name, getattr(sim.method, "eps_d", None),
                                   ["timed loads"] if scene.loads else []):
            print(line)
        print("wrote " + ", ".join(str(p) for p in written))
    if result.error is not None:
        _error(f"{result.error} (recording and checkpoint hold the run up to the last good step)")
        return EXIT_ERROR
    broken = runner.broken_constraints(sim)
    if broken is not None:
        _error(broken)
        return EXIT_ERROR
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


def _method_and_options(scene, args) -> tuple[str, dict]:
    """The method to run and its options: the scene's, then the command line's on top."""
    from impulsim.io.settings import check_options, parse_option

    method = check_scene_method(args.method or scene.settings.method)
    options = dict(scene.settings.options) if method == scene.settings.method else {}
    given = [(key, getattr(args, key)) for key in OPTION_FLAGS if getattr(args, key) is not None]
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        given.append((key.strip(), value.strip()))
    for key, text in given:
        options[key] = parse_option(method, key, text)
    check_options(method, options, scene.settings.where)
    return method, options


def _metadata(scene, sim, method, options, h, every, args) -> dict:
    """The run's description stored with the recording: scene, method and every option's value."""
    from impulsim import __version__
    from impulsim.io.settings import method_options
    effective = {**method_options(method), **options}
    return {"scene": scene.name, "file": scene.file, "method": method,
            "options": {k: v for k, v in effective.items() if isinstance(v, (bool, int, float, str))},
            "h": h, "record_every": every, "start_t": sim.state.t, "start_step": sim.state.step_count,
            "resumed_from": args.resume, "impulsim": __version__}


def cmd_check(args) -> int:
    """``impulsim check``: load and compile, then print counts and settings."""
    from impulsim.io.formats import load_model_file_reporting as load_scene   # scene, URDF or MJCF
    scene = load_scene(args.scene)
    m, s = scene.model, scene.settings
    print(f"{scene.name}: {m.n_bodies - 1} bodies, {m.n_joints} joints ({m.n_prims} primitives), "
          f"{m.n_motors} motors, {m.n_servos} servos, {m.n_springs} springs, {len(scene.loads)} loads")
    opts = ", ".join(f"{k}={v}" for k, v in s.options.items())
    print(f"settings: method {s.method}, h = {s.h:g} s, duration {s.duration:g} s" + (f", {opts}" if opts
                                                                                     else ""))
    scene.make_method()
    return EXIT_OK


def cmd_bench(args) -> int:
    """``impulsim bench``: run one registered benchmark, or list them."""
    from impulsim import bench
    if args.list or not args.name:
        print(cli_extras.bench_list())
        return EXIT_OK if args.list else EXIT_ERROR
    bench.run(args.name, quick=args.quick, json_path=args.json)
    return EXIT_OK


def cmd_warmup(args) -> int:
    """``impulsim warmup``: compile the kernels of the given groups into the cache."""
    from impulsim.warmup import warmup_command
    warmup_command(args.groups, quiet=args.quiet, jobs=args.jobs)
    return EXIT_OK


def cmd_view(args) -> int:
    """``impulsim view``: serve the live view until interrupted."""
    import time
    try:
        from impulsim.viewer import view_scene
        import viser  # noqa: F401  (checked here for a one-line message)
    except ImportError:
        raise ValueError("impulsim view needs viser: pip install 'impulsim[viewer]'") from None
    if not 0 < args.port < 65536:
        raise ValueError(f"--port must be between 1 and 65535, got {args.port}")
    if args.ghost and not args.replay:
        raise ValueError("--ghost needs --replay RECORDING")
    h = None if args.h is None else _positive(args.h, "--h")
    if args.replay:
        from impulsim.viewer.replay import replay_scene
        viewer = replay_scene(args.scene, args.replay, args.ghost, port=args.port,
                              open_browser=not args.no_browser, host=args.host)
    else:
        if getattr(args, "edit", False):
            from impulsim.viewer.edit_panel import edit_scene as view_scene
        viewer = view_scene(args.scene, port=args.port, open_browser=not args.no_browser, h=h,
                            method=args.method, host=args.host)
    try:       # from the address on: the user may stop the view as soon as it is printed
        print(f"impulsim view: {viewer.url} (Ctrl+C to stop)", flush=True)
        while True:
            time.sleep(1.0)
    except KeyboardInterrupt:     # the way to stop the view: not an error
        print("impulsim view: stopped", flush=True)
    finally:
        viewer.stop()
    return EXIT_OK


# ------------------------------------------------------------------------------------------ helpers


def _positive(value: float, flag: str) -> float:
    if not (value > 0 and value < float("inf")):
        raise ValueError(f"{flag} must be a positive number, got {value}")
    return value


def _nonnegative(value: float, flag: str) -> float:
    if not (value >= 0 and value < float("inf")):
        raise ValueError(f"{flag} must be a non-negative number, got {value}")
    return value


def _error(message: str) -> None:
    print(f"impulsim: error: {' '.join(str(message).split())}", file=sys.stderr)


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the ``impulsim`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    args.debug = getattr(args, "debug", False)
    # every command says when kernels compile, by the library's rule (a live line when stderr is a
    # terminal, impulsim.compiling); -q silences it for this command
    quiet = bool(getattr(args, "quiet", False))
    previous = compile_messages(False) if quiet else None
    try:
        return args.func(args)
    except (ImpulsimError, OSError, ValueError, KeyError) as exc:
        if args.debug:
            raise
        _error(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc)
        return EXIT_ERROR
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:   # a bug: still one line unless --debug
        if args.debug:
            raise
        _error(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)")
        return EXIT_ERROR
    finally:
        default_reporter().finish()
        if quiet:
            compile_messages(previous)


if __name__ == "__main__":
    sys.exit(main())
