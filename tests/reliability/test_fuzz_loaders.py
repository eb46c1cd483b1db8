"""Fuzzing every registered loader (tests/reliability/fuzz.py): hostile text gives a clean one-line error
or a loaded input, never a traceback or a hang. A few hundred cases per loader here (fixed seed); thousands
with ``pytest --fuzz-long``."""
import pytest
from hypothesis import HealthCheck, given, settings, seed

from tests.reliability import fuzz


@pytest.fixture(scope="module")
def n_cases(request):
    return 3000 if request.config.getoption("--fuzz-long") else 300


@pytest.mark.parametrize("name", sorted(fuzz.LOADERS))
def test_loader_gives_only_clean_errors(name, n_cases):
    loader = fuzz.LOADERS[name]
    fuzz.warm_up(loader)
    findings = []

    @seed(20261125)
    @settings(max_examples=n_cases, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(fuzz.mutated(loader.seeds))
    def case(text):
        outcome, detail = fuzz.classify(loader, text)
        if outcome != "clean":
            findings.append((outcome, detail, text[:300]))

    case()
    assert findings == [], f"{len(findings)} findings, first: {findings[0]}"
