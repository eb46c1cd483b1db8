"""The ``impulsim`` command.

Subcommands::

    impulsim run SCENE [options]     simulate a scene file, write a recording and a checkpoint
    impulsim check SCENE             load and compile a scene file, print what it holds
    impulsim bench NAME [--quick]    run a registered benchmark
    impulsim view SCENE [--port N]   show a scene live in the browser (needs the viewer extra)
    impulsim warmup [GROUP ...]      compile the kernels ahead into Numba's cache (once per installation)

Errors print one line (``impulsim: error: ...``) and exit with code 2; ``--debug`` shows the traceback.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from impulsim.errors import ImpulsimError

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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_run(sub, common)
    _add_check(sub, common)
    _add_bench(sub, common)
    _add_view(sub, common)
    _add_warmup(sub, common)
    return parser


def _add_run(sub, common) -> None:
    p = sub.add_parser("run", parents=[common], help="simulate a scene file",
                       description="Simulate a scene file; write recording.parquet and final_state.npz "
                                   "(and plots with --plot) to the output directory.")
    p.add_argument("scene", help="scene file (YAML)")
    p.add_argument("-d", "--duration", type=float, help="simulated time [s] (default: the scene's)")
    p.add_argument("--h", type=float, dest="h", help="step size [s] (default: the scene's)")
    p.add_argument("--method", help="solver method (default: the scene's)")
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
    p.add_argument("--list", action="store_true", help="list the registered benchmarks")
    p.set_defaults(func=cmd_bench)


def _add_view(sub, common) -> None:
    p = sub.add_parser("view", parents=[common], help="show a scene live in the browser",
                       description="Simulate a scene in its own thread and show it live in the browser, "
                                   "with play, pause, step, reset, real-time factor, step size and method.")
    p.add_argument("scene", help="scene file (YAML)")
    p.add_argument("--port", type=int, default=8080, help="HTTP port of the view (default 8080)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser window")
    p.add_argument("--h", type=float, dest="h", help="step size [s] (default: the scene's)")
    p.add_argument("--method", help="solver method (default: the scene's)")
    p.add_argument("--replay", metavar="RECORDING",
                   help="replay a recording of the scene instead of simulating")
    p.add_argument("--ghost", metavar="RECORDING", help="with --replay: a second recording shown as a ghost")
    p.set_defaults(func=cmd_view)


def _add_warmup(sub, common) -> None:
    from impulsim.warmup import WARMUP_GROUPS
    p = sub.add_parser("warmup", parents=[common], help="compile the kernels ahead (once per installation)",
                       description="Compile the Numba kernels into the on-disk cache now, so that the first "
                                   "step of later runs does not wait for them.")
    p.add_argument("groups", nargs="*", metavar="GROUP",
                   help=f"what to compile: {', '.join(WARMUP_GROUPS)} (default: all)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress")
    p.set_defaults(func=cmd_warmup)


# ------------------------------------------------------------------------------------------ commands


def cmd_run(args) -> int:
    """``impulsim run``: simulate, record, checkpoint, plot, summarize."""
    from impulsim.io import load_scene
    from impulsim.io.checkpoint import load_checkpoint, save_checkpoint
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
    state = load_checkpoint(args.resume, scene.state) if args.resume else None
    sim = scene.simulation(state=state, h=h, method=method, **options)
    compiles = _compile_messages(args, sim)
    recorder = Recorder(scene.model, _metadata(scene, sim, method, options, h, every, args))
    progress = not args.quiet and sys.stderr.isatty()    # a bar only where a terminal shows it
    try:
        result = runner.run(sim, duration, recorder, every, progress=progress, desc=scene.name)
    finally:
        if compiles is not None:
            compiles.uninstall()
    out = Path(args.output) if args.output else Path("out") / Path(args.scene).stem
    out.mkdir(parents=True, exist_ok=True)
    recorder.write(out / "recording.parquet")
    checkpoint = save_checkpoint(sim.state, out / "final_state.npz")
    written = [out / "recording.parquet", checkpoint]
    if args.plot:
        from impulsim.io.plots import plot_recording
        written += plot_recording(recorder.table(), out, eps_d=getattr(sim.method, "eps_d", None))
    if not args.quiet:
        for line in runner.summary(result, scene.name, getattr(sim.method, "eps_d", None)):
            print(line)
        print("wrote " + ", ".join(str(p) for p in written))
    if result.error is not None:
        _error(f"{result.error} (recording and checkpoint hold the run up to the last good step)")
        return EXIT_ERROR
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


def _method_and_options(scene, args) -> tuple[str, dict]:
    """The method to run and its options: the scene's, then the command line's on top."""
    from impulsim.io.settings import check_options, parse_option
    from impulsim.methods import METHODS

    method = args.method or scene.settings.method
    if method not in METHODS:
        raise ValueError(f"--method: unknown method {method!r} (available: {', '.join(sorted(METHODS))})")
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
    from impulsim.io import load_scene
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
        print("\n".join(sorted(bench.REGISTRY)) or "(no benchmarks registered)")
        return EXIT_OK if args.list else EXIT_ERROR
    bench.run(args.name, quick=args.quick, json_path=args.json)
    return EXIT_OK


def cmd_warmup(args) -> int:
    """``impulsim warmup``: compile the kernels of the given groups into the cache."""
    from impulsim.warmup import warmup_command
    warmup_command(args.groups, quiet=args.quiet)
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
                              open_browser=not args.no_browser)
    else:
        viewer = view_scene(args.scene, port=args.port, open_browser=not args.no_browser, h=h,
                            method=args.method)
    print(f"impulsim view: http://localhost:{viewer.port} (Ctrl+C to stop)", flush=True)
    try:
        while True:
            time.sleep(1.0)
    finally:
        viewer.stop()


# ------------------------------------------------------------------------------------------ helpers


def _positive(value: float, flag: str) -> float:
    if not (value > 0 and value < float("inf")):
        raise ValueError(f"{flag} must be a positive number, got {value}")
    return value


def _nonnegative(value: float, flag: str) -> float:
    if not (value >= 0 and value < float("inf")):
        raise ValueError(f"{flag} must be a non-negative number, got {value}")
    return value


def _compile_messages(args, sim):
    """On a terminal and unless -q: a live line on stderr while kernels compile, ended after the step."""
    if args.quiet or not sys.stderr.isatty():
        return None
    from impulsim.warmup import CompileReporter
    reporter = CompileReporter().install()
    reporter.attach(sim)
    return reporter


def _error(message: str) -> None:
    print(f"impulsim: error: {' '.join(str(message).split())}", file=sys.stderr)


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the ``impulsim`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    args.debug = getattr(args, "debug", False)
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


if __name__ == "__main__":
    sys.exit(main())
