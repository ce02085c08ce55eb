"""Child process of the sync-elision race check: runs a built model (separate and fused) on a
ThreadSanitizer-built twin; it must start with sk.twin.binding.tsan_env() (libtsan preloaded).

    python elision_tsan_child.py MODEL.json BUILT.json    # BUILT.json: dataclasses.asdict(run.Built)
"""

import json
import sys

from sk.twin import model as model_mod
from sk.twin import run


def main(model_path: str, built_path: str) -> int:
    with open(built_path, encoding="utf-8") as f:
        doc = json.load(f)
    scopes = {name: run.BuiltScope(**s) for name, s in doc["scopes"].items()}
    built = run.Built(runtime=doc["runtime"], standalone=doc["standalone"], scopes=scopes)
    report = run.execute(model_mod.load(model_path), built, seed=3, repeat=1)
    print("\n".join(report.lines()))
    return 0 if report.identical else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
