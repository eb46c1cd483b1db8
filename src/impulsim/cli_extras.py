"""Parts of the ``impulsim`` command kept apart from cli.py: ``export``, the benchmark descriptions,
the version string, and the quiet stop of a viser server.

``impulsim export gltf SCENE RECORDING OUT.glb`` writes an animated glTF binary (Blender, three.js);
``impulsim export html SCENE RECORDING OUT.html`` a page that replays the recording offline.
"""
from __future__ import annotations

import sys

BENCHMARKS = {
    "bender": "all of Bender's LGS measurements (chain, tree, loops), the scaling plot and the cold start",
    "chain": "Bender's chain of ball joints: time per step against chain length, impulse vs MuJoCo",
    "tree": "Bender's binary tree of ball joints: time per step against tree size",
    "loops": "Bender's closed loops: time per step of the LGS solver on kinematic loops",
    "order": "convergence order of the 2nd/4th/6th-order step schemes on the double pendulum",
    "methods": "every method on the same trees and the double pendulum: time per step and accuracy",
    "collision": "a heap of falling cubes: collision detection time, broad-phase scaling",
    "contact": "Bender's contact experiments: Newton's cradle, stacks, a wall, a funnel, an incline",
    "masspoint": "the mass-point method on its seven report scenes and a 50-link rope",
}
"""One line per registered benchmark, for ``impulsim bench --list``."""


def version_text() -> str:
    """``impulsim X.Y.Z (Python A.B.C, numpy N, numba M)``."""
    import numba
    import numpy

    from impulsim import __version__
    py = ".".join(map(str, sys.version_info[:3]))
    return f"impulsim {__version__} (Python {py}, numpy {numpy.__version__}, numba {numba.__version__})"


def bench_list() -> str:
    """The registered benchmarks, one per line with what each measures."""
    from impulsim import bench
    names = sorted(bench.REGISTRY)
    if not names:
        return "(no benchmarks registered)"
    width = max(map(len, names))
    return "\n".join(f"{name:<{width}}  {BENCHMARKS.get(name, '')}".rstrip() for name in names)


def add_export(sub, common) -> None:
    """The ``export`` subcommand with ``gltf`` and ``html``."""
    p = sub.add_parser("export", parents=[common], help="export a recording as glTF or an HTML replay page",
                       description="Export a recording of a scene (recording.parquet from impulsim run).")
    kinds = p.add_subparsers(dest="format", metavar="FORMAT", required=True)
    for name, what, ext, fps in (("gltf", "an animated glTF 2.0 binary (Blender, three.js)", "glb", 60.0),
                                 ("html", "one HTML page that replays the recording offline", "html", 30.0)):
        q = kinds.add_parser(name, parents=[common], help=what, description=f"Write {what}.")
        q.add_argument("scene", help="scene file (YAML) the recording was made from")
        q.add_argument("recording", help="recording.parquet")
        q.add_argument("output", help=f"output file (.{ext})")
        q.add_argument("--fps", type=float, default=fps,
                       help=f"frames per second of simulated time (default {fps:g})")
        q.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    """``impulsim export gltf|html``."""
    from impulsim.io import load_scene
    from impulsim.io.recording import read_recording
    if not args.fps > 0:
        raise ValueError(f"--fps must be positive, got {args.fps}")
    scene = load_scene(args.scene)
    table = read_recording(args.recording)
    if args.format == "gltf":
        from impulsim.io.gltf import write_glb
        write_glb(args.output, scene.model, table, scene.state, args.fps)
    else:
        try:
            import viser  # noqa: F401
        except ImportError:
            raise ValueError("impulsim export html needs viser: pip install 'impulsim[viewer]'") from None
        from impulsim.io.replay_html import write_replay_html
        write_replay_html(args.output, scene.model, table, scene.state, args.fps)
    print(f"wrote {args.output}")
    return 0
