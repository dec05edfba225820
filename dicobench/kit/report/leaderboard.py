"""Leaderboards from `scores.json` files: one row per model, as the papers' main tables.

Runs of one model (the same `--name`, e.g. sampled at temperature > 0) are one row, reported as
mean ± standard deviation (sample, ddof=1). An incomplete result (dicobench.kit.eval.completeness) shows
its bounds, lower-upper, and is ranked by its lower bound. Each model's best and worst column
are marked, the best value of each column is bold, and rows for random chance and for people
(study sessions scored like a model, a row per time limit) can be added. Written as Markdown, CSV and LaTeX.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal, Mapping, Sequence

from dicobench.kit.errors import UserError
from dicobench.kit.eval.completeness import span
from dicobench.kit.people.study_scores import limit_order, row_name

SCORES = "scores.json"


@dataclass(frozen=True)
class Column:
    key: str  # CSV header
    label: str  # table header
    group: str  # header over several columns (e.g. a track), "" for none
    get: Callable[[Mapping], Mapping | None]  # a scores.json -> the result group shown (accuracy or bounds)
    ranked: bool = True  # takes part in marking a model's best and worst column


@dataclass(frozen=True)
class Cell:
    mean: float | None  # None when some run is incomplete
    std: float | None  # None for a single run
    lower: float
    upper: float
    runs: int

    @property
    def rank_value(self) -> float:
        return self.mean if self.mean is not None else self.lower

    def text(self) -> str:
        if self.mean is None:
            return f"{100 * self.lower:.1f}-{100 * self.upper:.1f}"
        if self.std is None:
            return f"{100 * self.mean:.1f}"
        return f"{100 * self.mean:.1f} ± {100 * self.std:.1f}"


RowKind = Literal["model", "view", "chance", "human"]  # a model's row, another view of a model, random chance, people


@dataclass
class Row:
    name: str
    kind: RowKind
    cells: list[Cell | None]
    best: int | None = None  # index of the column marked best for this row
    worst: int | None = None


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[Row] = field(default_factory=list)

    def bold(self) -> list[set[int]]:
        """Per column, the rows (indices) with the best model value (ties all bold)."""
        out = []
        for c in range(len(self.columns)):
            values = [(r, row.cells[c].rank_value) for r, row in enumerate(self.rows)
                      if row.kind == "model" and row.cells[c] is not None]
            top = max((v for _, v in values), default=None)
            out.append({r for r, v in values if top is not None and math.isclose(v, top)})
        return out


def cell(groups: Sequence[Mapping | None]) -> Cell | None:
    """One cell over the runs' result groups; None when no run has the group."""
    present = [g for g in groups if g is not None and span(g) is not None]
    if not present:
        return None
    spans = [span(g) for g in present]
    complete = all(g.get("accuracy") is not None for g in present)
    lows = [low for low, _ in spans]
    highs = [high for _, high in spans]
    mean = sum(lows) / len(lows) if complete else None
    std = None
    if complete and len(lows) > 1:
        std = math.sqrt(sum((v - mean) ** 2 for v in lows) / (len(lows) - 1))
    return Cell(mean, std, sum(lows) / len(lows), sum(highs) / len(highs), len(spans))


def constant(value: float | None) -> Cell | None:
    return None if value is None else Cell(value, None, value, value, 1)


def leaderboard_table(title: str, columns: Sequence[Column], models: Mapping[str, Sequence[Mapping]],
                      chance: Mapping[str, float] | None = None,
                      human: Mapping[str, Sequence[Mapping]] | None = None) -> Table:
    """The table: a row per model (its runs averaged), then random chance, then a row per group
    of people's sessions (`human`: row name -> scores, e.g. one per time limit) when given."""
    table = Table(title, list(columns))
    for name, runs in models.items():
        row = Row(name, "model", [cell([c.get(run) for run in runs]) for c in columns])
        ranked = [(i, row.cells[i].rank_value) for i, c in enumerate(columns) if c.ranked and row.cells[i]]
        if len(ranked) >= 2 and len({v for _, v in ranked}) > 1:
            row.best = max(ranked, key=lambda kv: kv[1])[0]
            row.worst = min(ranked, key=lambda kv: kv[1])[0]
        table.rows.append(row)
    if chance:
        table.rows.append(Row("Random chance", "chance", [constant(chance.get(c.key)) for c in columns]))
    for name, runs in (human or {}).items():
        table.rows.append(Row(name, "human", [cell([c.get(run) for run in runs]) for c in columns]))
    return table


def _texts(table: Table, bold: Callable[[str], str], best: Callable[[str], str], worst: Callable[[str], str],
           missing: str = "-") -> list[list[str]]:
    strong = table.bold()
    out = []
    for r, row in enumerate(table.rows):
        texts = []
        for c, value in enumerate(row.cells):
            text = missing if value is None else value.text()
            if value is not None and r in strong[c]:
                text = bold(text)
            if c == row.best:
                text = best(text)
            elif c == row.worst:
                text = worst(text)
            texts.append(text)
        out.append(texts)
    return out


def _header_groups(columns: Sequence[Column]) -> list[tuple[str, int]]:
    groups: list[tuple[str, int]] = []
    for c in columns:
        if groups and groups[-1][0] == c.group:
            groups[-1] = (c.group, groups[-1][1] + 1)
        else:
            groups.append((c.group, 1))
    return groups


def markdown(table: Table) -> str:
    """GitHub Markdown; a model's best column is marked ▲, its worst ▼; the best per column is bold."""
    labels = [(f"{c.group} " if c.group else "") + c.label for c in table.columns]
    lines = [f"**{table.title}** (accuracy %; ▲ a model's best column, ▼ its worst; bold: best per column)", "",
             "| model | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for row, texts in zip(table.rows, _texts(table, lambda t: f"**{t}**", lambda t: f"{t} ▲", lambda t: f"{t} ▼")):
        name = f"*{row.name}*" if row.kind in ("chance", "human") else row.name
        lines.append(f"| {name} | " + " | ".join(texts) + " |")
    return "\n".join(lines) + "\n"


def csv_text(table: Table) -> str:
    """Plain values (percent, mean; bounds for incomplete cells), std and run count columns, and the
    best/worst column names."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    header = ["model", "kind", "runs"]
    for c in table.columns:
        header += [c.key, f"{c.key}_std", f"{c.key}_lower", f"{c.key}_upper"]
    writer.writerow(header + ["best", "worst"])
    for row in table.rows:
        runs = max((v.runs for v in row.cells if v), default=0)
        values: list = [row.name, row.kind, runs]
        for v in row.cells:
            if v is None:
                values += ["", "", "", ""]
            else:
                values += [_num(v.mean), _num(v.std), _num(v.lower), _num(v.upper)]
        values += [table.columns[row.best].key if row.best is not None else "",
                   table.columns[row.worst].key if row.worst is not None else ""]
        writer.writerow(values)
    return buf.getvalue()


def _num(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}"


_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}"}


def _tex(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text).replace("±", r"$\pm$")


def latex(table: Table) -> str:
    """A booktabs table (needs \\usepackage{booktabs,xcolor}): best column blue, worst red, best per column bold."""
    n = len(table.columns)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{l" + "r" * n + "}", r"\toprule"]
    groups = _header_groups(table.columns)
    if any(g for g, _ in groups):
        parts, rules, start = [""], [], 2
        for group, width in groups:
            parts.append(rf"\multicolumn{{{width}}}{{c}}{{{_tex(group.capitalize())}}}" if group else
                         " & ".join([""] * width))
            if group:
                rules.append(rf"\cmidrule(lr){{{start}-{start + width - 1}}}")
            start += width
        lines.append(" & ".join(parts) + r" \\")
        lines.append(" ".join(rules))
    lines.append("Model & " + " & ".join(_tex(c.label) for c in table.columns) + r" \\")
    lines.append(r"\midrule")
    texts = _texts(table, lambda t: rf"\textbf{{{t}}}", lambda t: rf"\textcolor{{blue}}{{{t}}}",
                   lambda t: rf"\textcolor{{red}}{{{t}}}")
    for i, (row, cells) in enumerate(zip(table.rows, texts)):
        before = table.rows[i - 1].kind if i else "model"
        if row.kind != before and {row.kind, before} != {"chance", "human"}:  # models | views | references
            lines.append(r"\midrule")
        lines.append(_tex(row.name) + " & " + " & ".join(c.replace("±", r"$\pm$") for c in cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(table.title)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def write_table(table: Table, out: Path, stem: str = "leaderboard") -> list[Path]:
    """`table` as OUT/STEM.md, .csv and .tex; their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for suffix, render in ((".md", markdown), (".csv", csv_text), (".tex", latex)):
        path = out / f"{stem}{suffix}"
        path.write_text(render(table), encoding="utf-8")
        paths.append(path)
    return paths


def load_scores(paths: Sequence[str | Path], benchmark: str) -> list[dict]:
    """The scores.json of each path (a result folder or the file itself), checked to be this
    benchmark's and to record provenance. Each gets `_source` (its path). A run given twice (the
    same file, or a copy of it: the same bytes) is refused: it would count one model's run twice."""
    import hashlib

    found, seen = [], {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            path = path / SCORES
        try:
            raw = path.read_bytes()
            scores = json.loads(raw.decode("utf-8"))
        except OSError as exc:
            raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
        except ValueError:
            raise UserError(f"{path} is not a scores.json (invalid JSON)") from None
        digest = hashlib.sha256(raw).hexdigest()
        if digest in seen:
            raise UserError(f"{given} is the same run as {seen[digest]} (the same scores.json): give each run once")
        seen[digest] = given
        if not isinstance(scores, dict) or scores.get("benchmark") != benchmark:
            raise UserError(f"{path} holds no {benchmark} scores (benchmark: "
                            f"{scores.get('benchmark') if isinstance(scores, dict) else None!r})")
        if not isinstance(scores.get("provenance"), dict):
            raise UserError(f"{path} records no provenance: score its predictions again with this version")
        scores["_source"] = str(path)
        found.append(scores)
    return found


def same_rows(scores: Sequence[Mapping], what: str = "models") -> None:
    """Refuse to compare scores of different rows (another dataset, config, split or selection)."""
    first = scores[0]
    for other in scores[1:]:
        if other["provenance"].get("fingerprint") != first["provenance"].get("fingerprint"):
            raise UserError(
                f"{other['_source']} scores other rows than {first['_source']} (dataset {_where(other)} vs "
                f"{_where(first)}): a leaderboard compares {what} on the same rows")


def _dataset(made: Mapping):
    """What identifies a scored dataset: a local build by the digest of its shards (a copied or moved
    build is the same), else its folder or Hub repo and revision."""
    source = made.get("dataset") or {}
    return source.get("digest") or (source.get("path"), source.get("repo"), source.get("revision"))


def same_dataset(scores: Mapping, reference: Mapping) -> None:
    """Refuse scores of another dataset, config or split than `reference`'s."""
    made, other = scores["provenance"], reference["provenance"]
    if _dataset(made) != _dataset(other) or any(made.get(k) != other.get(k) for k in ("config", "split")):
        raise UserError(f"{scores['_source']} scores another dataset ({_where(scores)}) than "
                        f"{reference['_source']} ({_where(reference)})")


def _where(scores: Mapping) -> str:
    made = scores["provenance"]
    source = made.get("dataset") or {}
    return f"{source.get('path') or source.get('repo')} {made.get('config')}/{made.get('split')}"


def name_of(scores: Mapping) -> str:
    return scores["provenance"].get("name") or Path(scores.get("predictions") or scores["_source"]).stem


def by_model(scores: Sequence[Mapping]) -> dict[str, dict[str, list[Mapping]]]:
    """name -> view -> runs, in the order given."""
    out: dict[str, dict[str, list[Mapping]]] = {}
    for s in scores:
        out.setdefault(name_of(s), {}).setdefault(s["provenance"].get("view") or "full", []).append(s)
    return out


def by_time_limit(scores: Sequence[Mapping]) -> dict[str, list[Mapping]]:
    """People's session scores grouped into rows, one per time limit (shortest first, no limit
    last); each participant's session is one run of its row."""
    out: dict[str, list[Mapping]] = {}
    for s in sorted(scores, key=limit_order):
        out.setdefault(row_name(s), []).append(s)
    return out


@dataclass(frozen=True)
class LeaderboardSpec:
    """What a benchmark's `leaderboard` command needs: its columns for the scores given, the chance
    level per column key, and the charts it draws (into `out`, returning their paths)."""

    benchmark: str
    title: str
    columns: Callable[[Sequence[Mapping]], list[Column]]
    chance: Mapping[str, float]
    charts: Callable[[Table, Mapping[str, Mapping[str, list[Mapping]]], list[Column], Path], list[Path]]


def build_leaderboard(spec: LeaderboardSpec, results: Sequence[str | Path], out: str | Path,
                      human: Sequence[str | Path] = ()) -> tuple[Table, list[Path]]:
    """The leaderboard of `results` (result folders or scores.json files) and its charts, written to
    `out`: (the table, the files written). Bad input raises UserError."""
    out = Path(out)
    scores = load_scores(results, spec.benchmark)
    full = [s for s in scores if (s["provenance"].get("view") or "full") == "full"]
    same_rows(full or scores)
    human = load_scores(human, spec.benchmark) if human else []
    for other in [s for s in scores if s not in full] + human:  # ablation views and studies may cover fewer rows
        same_dataset(other, (full or scores)[0])
    runs = by_model(scores)
    columns = spec.columns(scores)
    models = {name: views["full"] for name, views in runs.items() if "full" in views}
    table = leaderboard_table(spec.title, columns, models, spec.chance, by_time_limit(human))
    for name, views in runs.items():  # other views of a model (ablations): rows of their own, never bold
        for view, view_runs in views.items():
            if view != "full":
                row = leaderboard_table(spec.title, columns, {f"{name} ({view})": view_runs}).rows[0]
                row.kind = "view"
                table.rows.insert(sum(r.kind in ("model", "view") for r in table.rows), row)
    return table, write_table(table, out) + spec.charts(table, runs, columns, out)
