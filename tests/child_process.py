"""Helpers for tests that start impulsim in a child process."""
import signal


def default_sigint():
    """``preexec_fn`` for a child that must stop on Ctrl+C as a terminal user's process does: a background
    job of a non-interactive shell (as a CI runner may start pytest) ignores SIGINT, and a child would
    inherit that and never stop on it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
