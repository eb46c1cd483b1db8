"""The driving simulator: a pilot steers the bob in real time in the browser (``impulsim bob drive``),
runs are recorded, replayed with a ghost and compared line by line (``impulsim bob analyse``)."""
