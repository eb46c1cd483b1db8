"""``impulsim bob run TRACK``: one run of the bob with the pilot, its split times and a 100 Hz recording."""
from __future__ import annotations

from pathlib import Path


def add_bob_parser(sub, common) -> None:
    """Register ``impulsim bob run`` on the subcommand parsers ``sub``."""
    p = sub.add_parser("bob", parents=[common], help="bobsleigh runs",
                       description="Bobsleigh simulator: runs of a two-man bob driven by a pilot model.")
    bsub = p.add_subparsers(dest="bob_command", metavar="COMMAND", required=True)
    r = bsub.add_parser("run", parents=[common], help="one run down a track",
                        description="Start at the start line with a start speed, time the timing stations, "
                                    "stop at the finish or in a crash; print the splits and write the "
                                    "100 Hz recording (Parquet).")
    r.add_argument("track", help='track name ("test_chute", "whistler") or track file')
    r.add_argument("--bob", default="two_man", help="bob file or shipped name (default two_man)")
    r.add_argument("--pilot", default="", metavar="K=V,...",
                   help="pilot parameters, e.g. gain=3,look_ahead=0.6,line_pull=0.3")
    r.add_argument("--setup", default="", metavar="K=V,...",
                   help="bob setup, e.g. directness=0.7,mu_t=0.004,mu_b_max=0.1,eps_n=0.05")
    r.add_argument("--start-speed", type=float, default=10.0, help="speed at the start line [m/s]")
    r.add_argument("--start-at", type=float, default=None, metavar="S",
                   help="start the nose at station S [m] instead of the start line (earlier splits not taken)")
    r.add_argument("--dt", type=float, default=2e-4, help="time step [s] (default 0.2 ms)")
    r.add_argument("--max-time", type=float, default=120.0, help="longest run [s]")
    r.add_argument("-o", "--output", help="Parquet file (default out/bob_<track>.parquet)")
    r.set_defaults(func=cmd_bob_run)
    from impulsim.apps.bobsleigh.drive.cli import add_drive_parsers
    add_drive_parsers(bsub, common)


SETUP_KEYS = {"directness": ("directness", None), "beta_max": ("beta_max", "deg"),
              "mu_t": ("runner", "mu_t"), "mu_r_ratio": ("runner", "mu_r_ratio"),
              "mu_b_min": ("runner", "mu_b_min"), "mu_b_max": ("runner", "mu_b_max"),
              "lam_n_max": ("runner", "lam_n_max"), "eps_n": ("bumper", "eps_n"), "mu_bumper": ("bumper", "mu")}


def parse_setup(text: str) -> dict:
    """``"directness=0.7,mu_t=0.004"`` → the ``setup`` argument of :func:`run`."""
    import math
    out = {}
    for item in filter(None, (x.strip() for x in (text or "").split(","))):
        key, _, val = item.partition("=")
        if key not in SETUP_KEYS:
            raise ValueError(f"--setup: unknown key {key!r} (known: {', '.join(sorted(SETUP_KEYS))})")
        try:
            v = float(val)
        except ValueError:
            raise ValueError(f"--setup: {key} needs a number, got {val!r}") from None
        group, sub = SETUP_KEYS[key]
        if sub is None:
            out[group] = v
        elif sub == "deg":
            out[group] = math.radians(v)
        else:
            out.setdefault(group, {})[sub] = v
    return out


def cmd_bob_run(args) -> int:
    from impulsim.apps.bobsleigh.pilot import Pilot
    from impulsim.apps.bobsleigh.run import run
    pilot = Pilot.from_text(args.pilot)
    result = run(args.track, bob=args.bob, pilot=pilot, start_speed=args.start_speed, h=args.dt,
                 max_time=args.max_time, setup=parse_setup(args.setup), start_at=args.start_at)
    out = Path(args.output) if args.output else Path("out") / f"bob_{Path(args.track).stem}.parquet"
    out.parent.mkdir(parents=True, exist_ok=True)
    result.to_parquet(out)
    print(result.summary())
    print(f"wrote {out}")
    return 0 if result.outcome == "finish" else 1


__all__ = ["add_bob_parser", "parse_setup", "cmd_bob_run"]
