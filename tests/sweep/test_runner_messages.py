"""The sweep's own warm-up message and the process's compile line do not both say the same compile."""
import time

import pytest

import impulsim
from impulsim.sweep.runner import _timed_warm_up


@pytest.mark.parametrize("line_on", [True, False])
def test_warm_up_says_the_compile_only_where_the_compile_line_does_not(line_on):
    said = []
    previous = impulsim.compile_messages(line_on)
    try:
        _timed_warm_up(lambda: time.sleep(1.1), said.append)     # a warm-up that took over a second
    finally:
        impulsim.compile_messages(previous)
    assert len(said) == (0 if line_on else 1)
    if said:
        assert said[0].startswith("compiled the kernels once in") and "cached for the workers" in said[0]
