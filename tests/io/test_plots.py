"""--plot output: three PNG files of the sizes the figures are drawn at."""
import struct

from impulsim.io import runner, scene_from_string
from impulsim.io.plots import plot_recording
from impulsim.io.recording import Recorder

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DPI = 100   # plot_recording saves at 100 dots per inch: an 8 in × 3 in figure is 800 × 300 pixels


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    return struct.unpack(">II", data[16:24])     # width, height from the IHDR chunk


def test_plots_are_written_as_png(tmp_path):
    scene = scene_from_string("bodies: [{name: b, shapes: [sphere: {radius: 0.1}], mass: 1}]\n"
                              "joints: [{name: d, type: distance, bodies: [world, b], anchor_a: [0, 1, 0],"
                              " anchor_b: [0, 0, 0]}]\n", "plot.yaml")
    rec = Recorder(scene.model, metadata={"scene": "plot"})
    runner.run(scene.simulation(h=0.01), 0.1, rec)
    paths = plot_recording(rec.table(), tmp_path / "plots", eps_d=1e-6)
    assert [p.name for p in paths] == ["energy.png", "momentum.png", "constraint_error.png"]
    assert _png_size(paths[0]) == (8 * DPI, 3 * DPI)
    assert _png_size(paths[1]) == (8 * DPI, 6 * DPI)       # two panels
    assert _png_size(paths[2]) == (8 * DPI, 3 * DPI)
