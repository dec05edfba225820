"""What every harness bridge needs: the configs of a dataset, whether it is a local build,
and writing a predictions file from (id, response) pairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Mapping

from dicobench.kit.errors import UserError, first_line


def is_local(dataset: str) -> bool:
    """A folder on this machine (a build), rather than a Hub repo id."""
    return Path(dataset).exists()


def dataset_configs(dataset: str, combined: str = "all") -> list[str]:
    """The configs a dataset folder or Hub repo declares, without the one that combines them."""
    import datasets

    try:
        names = datasets.get_dataset_config_names(dataset)
    except Exception as exc:  # any failure to read the dataset is the user's input
        raise UserError(f"cannot read the configs of {dataset}: {first_line(exc)}") from None
    return [n for n in names if n != combined]


def write_predictions(pairs: Iterable[tuple[str, str | None]], out: str | Path,
                      errors: Mapping[str, str] | None = None) -> int:
    """`out` as a predictions file (one {"id", "response"} per line, with the `error` of the rows in
    `errors`: failed calls, unscored); the number of rows. A row seen twice is refused: two answers
    to one question cannot both be scored."""
    seen: dict[str, str | None] = {}
    for key, response in pairs:
        if key in seen:
            raise UserError(f"the results hold row {key!r} twice: keep one run per file")
        seen[key] = response
    if not seen:
        raise UserError("the results hold no rows")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    errors = errors or {}
    tmp.write_text("".join(json.dumps({"id": k, "response": v, **({"error": errors[k]} if k in errors else {})},
                                      ensure_ascii=False) + "\n" for k, v in seen.items()), encoding="utf-8")
    tmp.replace(out)
    return len(seen)
