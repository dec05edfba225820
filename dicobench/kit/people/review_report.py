"""The review section of a dataset card, from the review log and the rows on disk."""

from __future__ import annotations

import os
from collections import Counter
from typing import Iterable, Mapping

from dicobench.kit.io.shards import Location, read_column
from dicobench.kit.people.decisions import decisions_path, read_log
from dicobench.kit.release.card import markdown_table


def current_versions(shards: Mapping[str, Iterable[Location]]) -> dict[str, tuple[int, str]]:
    """id -> (seed, group) of every row now in the build; `shards` maps a group to its files."""
    out = {}
    for group, files in shards.items():
        for f in files:
            out.update((i, (s, group)) for i, s in zip(read_column(f, "id"), read_column(f, "seed")))
    return out


def review_section(out: Location, shards: Mapping[str, Iterable[Location]], group: str,
                   criteria: Iterable[str], command: str) -> str | None:
    """Markdown: rows reviewed, reviewers, rejections per criterion and group, rows regenerated
    (None when the build has no review log). `shards` maps each group to its files."""
    if not isinstance(out, os.PathLike) or not decisions_path(out).exists():
        return None
    rows = current_versions(shards)
    criteria = list(criteria)
    log = read_log(decisions_path(out), criteria)
    latest = {k: d for k, d in log.latest().items() if d.seed is not None}
    unseeded = sum(d.seed is None for d in log.decisions)
    reviewers = sorted({who for _, _, who in latest})
    judged = {(i, s) for i, s, _ in latest if i in rows}
    rejected = {(i, s) for (i, s, _), d in latest.items() if d.verdict == "reject" and i in rows}
    reviewed_now = {i for i, s in judged if rows[i][0] == s}
    regenerated = {i for i, s in rejected if rows[i][0] != s}
    still_rejected = {i for i, s in rejected if rows[i][0] == s}
    groups = sorted({g for _, g in rows.values()})
    per_criterion = Counter()
    per_group = Counter()
    for (i, s, _), d in latest.items():
        if d.verdict == "reject" and i in rows:
            per_group[rows[i][1]] += 1
            per_criterion.update(d.criteria or ["(none given)"])
    table = [[g, sum(1 for i in reviewed_now if rows[i][1] == g), sum(1 for r in rows.values() if r[1] == g),
              per_group[g], sum(1 for i in regenerated if rows[i][1] == g)] for g in groups]
    parts = [
        "## Human review",
        f"{len(reviewed_now)} of {len(rows)} rows as they are now were reviewed by {len(reviewers)} "
        f"reviewer(s) ({', '.join(reviewers) or 'none'}) in `{command}` against the criteria "
        f"{', '.join(criteria)}. Reviewers rejected {len(rejected)} row version(s); "
        f"{len(regenerated)} row(s) were regenerated from the next seed by a rebuild (a regenerated row is "
        "unreviewed again)"
        + (f", {len(still_rejected)} rejected row(s) await the next rebuild" if still_rejected else "")
        + ".",
        markdown_table([group, "reviewed", "rows", "rejections", "regenerated"], table),
        "Rejections per failed criterion (a rejection may name several): "
        + (", ".join(f"{c} {n}" for c, n in sorted(per_criterion.items())) or "none") + ".",
    ]
    if unseeded:
        parts.append(f"{unseeded} decision line(s) name no `seed`, so tie to no row version, and are not counted.")
    if log.malformed:
        parts.append(f"The review log has {len(log.malformed)} malformed line(s) (not counted): lines "
                     + ", ".join(str(n) for n, _ in log.malformed) + ".")
    return "\n\n".join(parts)
