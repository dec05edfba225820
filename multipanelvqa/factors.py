"""MultipanelVQA's interference factors (the paper's Tables 3 and 4) as comparisons of two splits.

A config factor compares each question on an augmented image with the same question on the same
image set and layout in another config (the row ids differ only in their config prefix), so the
accuracy change is paired and its interval comes from a paired bootstrap over the questions. The
layout style compares different images (splash against grid layouts of the original config), so
its interval resamples the two groups independently. Pairs with an unscored side (judge or model
call failed) are left out of the comparison and counted in `unscored`, which makes the entry
incomplete. Factors whose splits are absent are omitted, unless asked for by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dicobench.kit.eval.stats import cluster_bootstrap_ci


@dataclass(frozen=True)
class Factor:
    name: str
    base: str
    variant: str
    paired: bool = True  # False: the two sides are different images (layout style)
    question_types: tuple[str, ...] | None = None  # None: every question type


FACTORS = (
    Factor("visual_similarity", "original", "low_similarity"),
    Factor("layout_style", "splash", "grid", paired=False),
    Factor("subfigure_size", "original", "enlarged"),
    Factor("background", "chessboard", "original"),
    Factor("visual_text_hint", "original", "text_hint"),
    # Table 4: subfigure captions as visual prompts, on Q2 only
    Factor("captions", "original", "captions", question_types=("q2",)),
    Factor("captions_referenced", "original", "captions_referenced", question_types=("q2",)),
)
NAMES = tuple(f.name for f in FACTORS)
GRID_STYLES = ("grid_same", "grid_mixed")


def check_names(wanted: Sequence[str] | None) -> None:
    unknown = [w for w in wanted or () if w not in NAMES]
    if unknown:
        raise ValueError(f"unknown factor {unknown[0]!r}; expected one of {', '.join(NAMES)}")


def pair_key(row_id: str, augmentation: str) -> str:
    """What one question on one image set shares across configs: its id without the config prefix."""
    prefix = f"{augmentation}-"
    return row_id[len(prefix):] if row_id.startswith(prefix) else row_id


def factors(correct: np.ndarray, scored: np.ndarray, question_types: Sequence[str], *,
            augmentations: Sequence[str] | None = None, layout_styles: Sequence[str] | None = None,
            ids: Sequence[str] | None = None, wanted: Sequence[str] | None = None, confidence: float = 0.95,
            n_boot: int = 2000, seed: int = 0) -> list[dict]:
    """One entry per factor whose splits are present (each of `wanted` must be: ValueError if not)."""
    check_names(wanted)
    out = []
    for factor in FACTORS:
        if wanted is not None and factor.name not in wanted:
            continue
        keep = [i for i in range(len(correct))
                if factor.question_types is None or question_types[i] in factor.question_types]
        if factor.paired:
            entry = _paired(factor, correct, scored, keep, augmentations, ids, confidence, n_boot, seed)
        else:
            entry = _layout(factor, correct, scored, keep, augmentations, layout_styles, confidence, n_boot, seed)
        if entry is None:
            if wanted is not None:
                raise ValueError(f"factor {factor.name!r} needs rows of {factor.base!r} and {factor.variant!r}: "
                                 f"{_needs(factor)}")
            continue
        out.append(entry)
    return out


def _needs(factor: Factor) -> str:
    if not factor.paired:
        return "layout styles of the original config (give layout_styles)"
    return f"the same questions in both configs (give ids and augmentations, and score configs {factor.base}" \
           f" and {factor.variant} together, e.g. config all)"


def _paired(factor, correct, scored, keep, augmentations, ids, confidence, n_boot, seed) -> dict | None:
    if augmentations is None or ids is None:
        return None
    base = {pair_key(ids[i], factor.base): i for i in keep if augmentations[i] == factor.base}
    variant = {pair_key(ids[i], factor.variant): i for i in keep if augmentations[i] == factor.variant}
    common = sorted(base.keys() & variant.keys())
    if not common:
        return None
    pairs = [(base[k], variant[k]) for k in common if scored[base[k]] and scored[variant[k]]]
    b = np.array([correct[i] for i, _ in pairs])
    v = np.array([correct[j] for _, j in pairs])
    ci = cluster_bootstrap_ci(v - b, confidence=confidence, n_boot=n_boot, seed=seed) if pairs else None
    return _entry(factor, len(pairs), b, v, ci, len(common) - len(pairs))


def _layout(factor, correct, scored, keep, augmentations, layout_styles, confidence, n_boot, seed) -> dict | None:
    if layout_styles is None:
        return None
    original = [i for i in keep if augmentations is None or augmentations[i] == "original"]
    sides = ([i for i in original if layout_styles[i] == "splash"],
             [i for i in original if layout_styles[i] in GRID_STYLES])
    if not all(sides):
        return None
    b, v = ([correct[i] for i in side if scored[i]] for side in sides)
    unscored = sum(not scored[i] for side in sides for i in side)
    ci = _unpaired_ci(np.array(b), np.array(v), confidence, n_boot, seed) if b and v else None
    return _entry(factor, len(b) + len(v), np.array(b), np.array(v), ci, unscored)


def _unpaired_ci(b: np.ndarray, v: np.ndarray, confidence: float, n_boot: int, seed: int) -> tuple[float, float]:
    """Percentile interval of mean(v) - mean(b), resampling each group on its own."""
    rng = np.random.default_rng(seed)
    diffs = (v[rng.integers(0, v.size, size=(n_boot, v.size))].mean(axis=1)
             - b[rng.integers(0, b.size, size=(n_boot, b.size))].mean(axis=1))
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(diffs, [alpha, 1.0 - alpha])
    return float(low), float(high)


def _entry(factor: Factor, n: int, b: np.ndarray, v: np.ndarray, ci, unscored: int) -> dict:
    base_acc = float(b.mean()) if b.size else None
    variant_acc = float(v.mean()) if v.size else None
    return {
        "factor": factor.name,
        "base": factor.base,
        "variant": factor.variant,
        "n": n,
        "base_accuracy": base_acc,
        "variant_accuracy": variant_acc,
        "delta": variant_acc - base_acc if b.size and v.size else None,
        "delta_ci": list(ci) if ci else None,
        "paired": factor.paired,
        "question_types": list(factor.question_types) if factor.question_types else None,
        "unscored": unscored,
        "complete": unscored == 0,
    }
