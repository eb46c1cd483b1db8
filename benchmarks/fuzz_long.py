"""Long fuzz run of the registered loaders (tests/reliability/fuzz.py), counting outcomes: clean errors,
tracebacks, hangs and crashes. Cases run in a child process; a child that dies counts as a crash of the
case it was on, and a new child carries on after it.

Usage: python benchmarks/fuzz_long.py [N_CASES] [LOADER] [OUT.jsonl]
"""
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys
from hypothesis import HealthCheck, given, settings, seed
sys.path.insert(0, sys.argv[4])
from tests.reliability import fuzz
loader = fuzz.LOADERS[sys.argv[2]]
fuzz.warm_up(loader)
skip = int(sys.argv[3])
out = open(sys.argv[5], "a")
index = [0]

@seed(20261125)
@settings(max_examples=int(sys.argv[1]), deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(fuzz.mutated(loader.seeds))
def case(text):
    i = index[0]
    index[0] += 1
    if i < skip:
        return
    print(json.dumps({"i": i, "start": True}), file=out, flush=True)
    outcome, detail = fuzz.classify(loader, text)
    print(json.dumps({"i": i, "outcome": outcome, "detail": detail[:300],
                      "text": text[:400] if outcome != "clean" else ""}), file=out, flush=True)

case()
"""


def main(n: int, loader: str, out: Path):
    out.write_text("")
    done = 0
    while True:
        code = subprocess.call([sys.executable, "-c", CHILD, str(n), loader, str(done), str(ROOT), str(out)],
                               cwd=ROOT)
        records = [json.loads(l) for l in out.read_text().splitlines() if l.strip()]
        started = [r["i"] for r in records if r.get("start")]
        finished = {r["i"] for r in records if "outcome" in r}
        last = max(started, default=-1)
        if code == 0 or last < 0:
            break
        if last not in finished:          # the child died on this case
            with out.open("a") as f:
                f.write(json.dumps({"i": last, "outcome": "crash", "detail": f"exit {code}"}) + "\n")
        done = last + 1
    records = [json.loads(l) for l in out.read_text().splitlines() if l.strip()]
    outcomes = Counter(r["outcome"] for r in records if "outcome" in r)
    details = Counter(r["detail"].split(":")[0] for r in records if r.get("outcome") == "clean")
    print(json.dumps({"cases": sum(outcomes.values()), **outcomes}))
    print("loaded:", details.get("loaded", 0), "refused:", sum(outcomes.values()) - details.get("loaded", 0))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000, sys.argv[2] if len(sys.argv) > 2 else "scene",
         Path(sys.argv[3]) if len(sys.argv) > 3 else Path("/tmp/fuzz_long.jsonl"))
