"""The ice channel of a bobsleigh track, built from its construction parameters (Rempfler 2015, chapter 3).

    from impulsim.apps.bobsleigh.track import Track, load_track
    track = load_track("whistler")          # a shipped track, or a path to a track file
    track.centerline(s); track.frame(s); track.project(points); track.mesh(); track.triangle_mesh()

Modules: :mod:`.profile` (plan view), :mod:`.height`, :mod:`.section` (cross-sections as rational
curves), :mod:`.surface` (loft, mesh, boundary elements), :mod:`.query` (where a point is on the track),
:mod:`.files` (track files), :mod:`.plots`, :mod:`.cli`. The user guide is docs/bobsleigh_track.md.
"""
from impulsim.apps.bobsleigh.track.model import Track
from impulsim.apps.bobsleigh.track.files import TrackFileError, load_track, shipped_tracks, track_from_string

__all__ = ["Track", "load_track", "track_from_string", "shipped_tracks", "TrackFileError"]
