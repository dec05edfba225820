"""One-image baselines of the difference track: readers who see image 2 alone, and know exactly
what every object there looks like (they read the scene itself, not its pixels), and pick an
option by what its text names, as a model does that searches one image for the named thing.

- `found`: an option whose after-state (a white box, a trail of paw prints by a bathtub, a red
  door above a brown door) stands somewhere in image 2, at random among such options;
- `most`: the option whose after-state stands there most often;
- `gain`: the option whose after-state outnumbers its before-state by the most there.

Each is scored over the rows whose answer is one of A-D (chance 25%), with the four answers of
every proposal, for a preset and for the same preset without decoys (`--decoys 0`: each state an
option names stands once), built in the same process. Ties are counted as the chance of picking
the answer among them.

    python benchmarks/bench_one_image.py [--difficulty hard] [--per-task 40]
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from dicobench.checks import Rejected
from dicobench.generate import sample_seed
from dicobench.kit.scene.difficulty import preset
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.schema import DIFFERENCE_TASKS
from dicobench.sources.procedural import edited_scenes
from dicobench.tasks.registry import get_task


def strategies(edits, truth: int) -> dict[str, float]:
    """Each strategy's chance of picking option `truth` from its image 2 alone."""
    image = edits[truth].scene
    after = np.array([len(e.states[1].instances(image)) for e in edits])
    before = np.array([len(e.states[0].instances(image)) for e in edits])
    found = after > 0
    return {"found": _credit(found if found.any() else np.ones(len(edits), bool), truth),
            "most": _credit(after == after.max(), truth),
            "gain": _credit(after - before == (after - before).max(), truth)}


def _credit(picked: np.ndarray, truth: int) -> float:
    return float(picked[truth]) / int(picked.sum())


def measure(task: str, cfg: SceneConfig, n: int) -> dict[str, float]:
    propose = _propose(task)
    scores: dict[str, list[float]] = {}
    made = 0
    for index in range(n):
        for attempt in range(20):
            rng = np.random.default_rng(sample_seed(0, "test", task, index, attempt))
            try:
                _, edits, _ = edited_scenes(propose, rng, cfg)
            except Rejected:
                continue
            made += 1
            for truth in range(len(edits)):
                for name, value in strategies(edits, truth).items():
                    scores.setdefault(name, []).append(value)
            break
    return {"rows": 4 * made, **{name: float(np.mean(v)) for name, v in scores.items()}}


def _propose(task: str):
    import importlib

    return importlib.import_module(get_task(task).proposers["procedural"].module).propose


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--difficulty", default="hard")
    ap.add_argument("--per-task", type=int, default=40)
    args = ap.parse_args(argv)
    level = preset(args.difficulty)
    print(f"{'task':22s} {'decoys':>6s} {'rows':>5s} " + " ".join(f"{s:>7s}" for s in ("found", "most", "gain")))
    for task in DIFFERENCE_TASKS:
        for decoys in (level.decoys, 0):
            cfg = SceneConfig.from_difficulty(dataclasses.replace(level, decoys=decoys))
            m = measure(task, cfg, args.per_task)
            print(f"{task:22s} {decoys:>6d} {m['rows']:>5d} "
                  + " ".join(f"{100 * m[s]:>6.1f}%" for s in ("found", "most", "gain")))
    print("chance 25.0% (answers A-D); decoys 0: each state an option names stands once")


if __name__ == "__main__":
    main()
