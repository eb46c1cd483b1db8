"""``impulsim bob drive TRACK`` (the driving simulator in the browser) and ``impulsim bob analyse`` (line
analysis of two recorded runs)."""
from __future__ import annotations

import time


def add_drive_parsers(bsub, common) -> None:
    """Register ``drive`` and ``analyse`` on the ``impulsim bob`` subcommand parsers."""
    d = bsub.add_parser("drive", parents=[common], help="drive the bob yourself in the browser",
                        description="Serve the driving simulator on 127.0.0.1 and print its URL (with the "
                                    "session's token). Arrow keys or a game controller steer; Enter starts.")
    d.add_argument("track", help='track name ("test_chute", "sanki") or track file')
    d.add_argument("--bob", default="two_man", help="bob file or shipped name (default two_man)")
    d.add_argument("--pilot-name", default="pilot", help="whose setup and runs (default pilot)")
    d.add_argument("--runs-dir", default="out/drive", help="where runs (and pilots' setups) are kept")
    d.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default: any free one)")
    d.add_argument("--no-reference", action="store_true", help="skip the pilot model's reference run")
    d.add_argument("--open", action="store_true", help="open the page in the default browser")
    d.set_defaults(func=cmd_drive)
    a = bsub.add_parser("analyse", parents=[common], help="line analysis of two recorded runs",
                        description="Δv, Δt, height h_S and lateral offset b_S of RUN against REF along s, "
                                    "in one curve or from start to finish (PNG).")
    a.add_argument("run", help="recorded run (Parquet)")
    a.add_argument("ref", help="reference run (Parquet)")
    a.add_argument("--curve", type=int, default=None, help="curve number (1-based; default start to finish)")
    a.add_argument("--track", default=None, help="track (default: the one named in the run)")
    a.add_argument("-o", "--output", default=None, help="PNG (default out/analysis.png)")
    a.set_defaults(func=cmd_analyse)


def cmd_drive(args) -> int:
    from pathlib import Path

    from impulsim.apps.bobsleigh.drive.server import DriveServer
    from impulsim.apps.bobsleigh.drive.session import DriveSession
    from impulsim.apps.bobsleigh.drive.setup import load_setup
    pilots = Path(args.runs_dir) / "pilots"
    session = DriveSession(args.track, bob=args.bob, pilot_name=args.pilot_name, runs_dir=args.runs_dir,
                           setup=load_setup(pilots, args.pilot_name), reference=not args.no_reference)
    server = DriveServer(session, port=args.port, pilots_dir=pilots).start()
    print(f"driving simulator: {server.url}")
    print(f"force feedback:    ws://127.0.0.1:{server.port}/ff?token={server.token}  (100 Hz JSON: t, M_soll, F_soll)")
    if args.open:
        import webbrowser
        webbrowser.open(server.url)
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        server.stop()
    return 0


def cmd_analyse(args) -> int:
    from pathlib import Path

    from impulsim.apps.bobsleigh.drive.analysis import analyse
    out = Path(args.output or "out/analysis.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    cmp = analyse(args.run, args.ref, track=args.track, curve=args.curve, out=out)
    print(f"s = {cmp['s'][0]:.1f} … {cmp['s'][-1]:.1f} m: Δt at the end {cmp['dt'][-1]:+.4f} s, "
          f"Δv at the end {cmp['dv'][-1]:+.2f} m/s")
    print(f"wrote {out}")
    return 0
