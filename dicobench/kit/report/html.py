"""One HTML file that holds scored runs, to read offline or send to someone: `report RUN_DIR...
--out FILE.html` and `score --html FILE`.

Per run: the score table with its intervals and the lines `score` prints under it, the charts
`score` drew (the run folder's PNGs, as data URIs), the error types per group (and the judge's verdicts), a seeded
sample of wrong rows with their images as thumbnails (cue boxes drawn), the question, the reply
and what was read from it, and how the numbers were made (the scores' provenance). Several runs
get a comparison table first. Everything is inlined and the page's Content-Security-Policy
allows no fetch at all; every text that comes from a file (replies above all) is escaped. The
same runs and options give the same bytes.
"""

from __future__ import annotations

import base64
import io
import random
import tempfile
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from dicobench.kit import __version__
from dicobench.kit.eval.completeness import format_value, headline, interval
from dicobench.kit.eval.report import SCORES, draw
from dicobench.kit.eval.runs import Outcome, ScoredRun, check_reproduces, read_run, tally
from dicobench.kit.io.outputs import output_file
from dicobench.kit.scene.geometry import bounding, xyxy

if TYPE_CHECKING:
    from dicobench.kit.benchmark import Benchmark

SAMPLE = 12  # wrong rows shown per run, by default
THUMB = 320  # pixels, the longer side of a thumbnail
POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"  # nothing is ever fetched

STYLE = """
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: #1d232b; background: #eef1f4; }
header { padding: 18px 28px; background: #1f2a37; color: #fff; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: #c9d3dd; }
main { padding: 8px 28px 40px; max-width: 1500px; }
section.run { background: #fff; border-radius: 6px; padding: 16px 22px; margin: 18px 0; box-shadow: 0 1px 2px #0002; }
h2 { margin: 4px 0 6px; font-size: 19px; }
h3 { margin: 20px 0 6px; font-size: 15px; border-bottom: 1px solid #dde3e9; padding-bottom: 3px; }
.headline { font-size: 15px; margin: 0 0 6px; }
.warn { color: #b8383c; font-weight: 600; }
.cols { display: flex; flex-wrap: wrap; gap: 28px; align-items: flex-start; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e6ebf0; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f6f9; font-weight: 600; }
tr.total td { font-weight: 600; border-top: 2px solid #cfd6dd; }
ul.notes { margin: 6px 0 0; padding-left: 18px; color: #44515e; font-size: 12.5px; max-width: 640px; }
dl.made { display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; margin: 0; \
font-size: 12.5px; max-width: 640px; }
dl.made dt { color: #5b6b7a; }
dl.made dd { margin: 0; word-break: break-all; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.charts figure { margin: 0; background: #fff; border: 1px solid #e6ebf0; border-radius: 4px; padding: 6px; }
.charts img { display: block; width: 460px; max-width: 100%; height: auto; }
.cards { display: flex; flex-direction: column; gap: 14px; }
.card { display: flex; flex-wrap: wrap; gap: 16px; border: 1px solid #dde3e9; border-radius: 6px; padding: 10px 12px;
        background: #fbfcfd; }
.card .thumbs { display: flex; gap: 8px; align-items: flex-start; }
.card .thumbs figure { margin: 0; }
.card .thumbs img { display: block; max-width: 320px; max-height: 320px; border-radius: 3px; }
.card .thumbs img.zoom { margin-top: 6px; max-width: 160px; }
.card .text { flex: 1; min-width: 360px; }
.card .thumbs figcaption { font-size: 11px; color: #5b6b7a; }
.card .id { font-family: ui-monospace, monospace; font-size: 12px; color: #5b6b7a; }
.card .question { margin: 4px 0; font-weight: 600; white-space: pre-line; }
.card ol { list-style: none; padding: 0; margin: 4px 0; font-size: 13px; }
.card li { padding: 1px 6px; border-radius: 3px; }
.card li.right { background: #e3f6ec; }
.card li.chosen { background: #fde8e8; }
.card li b { display: inline-block; width: 1.5em; }
.card pre { white-space: pre-wrap; word-break: break-word; background: #f1f4f7; border-radius: 4px; padding: 6px 8px;
            margin: 4px 0; font-size: 12.5px; max-height: 180px; overflow: auto; }
.tag { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 12px; background: #e6ebf0; \
margin-right: 4px; }
.tag.wrong { background: #fde8e8; color: #8c2226; }
footer { padding: 0 28px 24px; color: #5b6b7a; font-size: 12px; }
"""


def write_html_report(benchmark: Benchmark, runs: Sequence[str | Path], out: str | Path, *, dataset: str | None = None,
                      sample: int = SAMPLE, seed: int = 0, thumb: int = THUMB) -> Path:
    """Write the report of the run folders `runs` (each as `eval --out` or `score --out` wrote it)
    to `out`; `dataset` is where their rows are read (default: the dataset each run was scored on).
    `sample` wrong rows per run, drawn with `seed`, get `thumb`-pixel thumbnails."""
    from dicobench.kit.errors import UserError

    if not runs:
        raise UserError("no run folder to report")
    if sample < 0 or thumb < 16:
        raise UserError(f"need --sample >= 0 and --thumb >= 16 (got {sample}, {thumb})")
    out = output_file(out)  # a folder in the way is refused before any work
    loaded = []
    for path in runs:
        run = read_run(path, benchmark.name)
        where = dataset or run.dataset
        rows = benchmark.results.outcomes(run, where)
        check_reproduces(run, rows)
        loaded.append((run, where, rows))
    sections = [_run_section(benchmark, k, run, where, rows, sample, seed, thumb)
                for k, (run, where, rows) in enumerate(loaded)]
    title = f"{benchmark.name} results: " + ", ".join(run.name for run, _, _ in loaded)
    page = "".join([
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        f"<header><h1>{escape(benchmark.name)} results</h1><p>{len(loaded)} scored run{'s' * (len(loaded) > 1)}: "
        f"{escape(', '.join(run.name for run, _, _ in loaded))}</p></header>\n<main>\n",
        _comparison(loaded) if len(loaded) > 1 else "",
        *sections,
        f"</main>\n<footer>Written by {escape(benchmark.name)} report ({escape(__version__)}) from each run's "
        "scores.json and predictions; the page holds everything it shows and fetches nothing.</footer>\n",
        "</body>\n</html>\n",
    ])
    out.write_text(page, encoding="utf-8")
    return out


def _comparison(loaded) -> str:
    rows = "".join(
        f"<tr><td><a href=\"#run-{k}\">{escape(run.name)}</a></td><td>{escape(str(run.model or '-'))}</td>"
        f"<td>{run.scores['n']}</td><td>{escape(format_value(run.scores))}</td>"
        f"<td>{escape(interval(run.scores.get('accuracy_ci')))}</td>"
        f"<td>{'yes' if run.scores.get('complete', True) else 'no'}</td></tr>"
        for k, (run, _, _) in enumerate(loaded))
    return ("<section class=\"run\"><h2>Runs</h2><table><tr><th>run</th><th>model</th><th>n</th><th>acc %</th>"
            f"<th>CI</th><th>complete</th></tr>{rows}</table></section>\n")


def _run_section(benchmark: Benchmark, k: int, run: ScoredRun, dataset: str, rows: list[Outcome], sample: int,
                 seed: int, thumb: int) -> str:
    scores = run.scores
    warning = headline(scores)
    head = (f"<p class=\"headline\">accuracy <b>{escape(format_value(scores))}%</b> "
            f"{escape(interval(scores.get('accuracy_ci')))} over {scores['n']} rows "
            f"({escape(str(scores.get('config')))}/{escape(str(scores.get('split')))})</p>")
    return "".join([
        f"<section class=\"run\" id=\"run-{k}\">\n<h2>{escape(run.name)}</h2>\n{head}\n",
        f"<p class=\"warn\">{escape(warning)}</p>\n" if warning else "",
        "<div class=\"cols\"><div><h3>Scores</h3>", _table(benchmark.results.table(scores)),
        "<ul class=\"notes\">", *(f"<li>{escape(line)}</li>" for line in benchmark.results.notes(scores)),
        "</ul></div>",
        "<div><h3>How the numbers were made</h3>", _provenance(run, dataset), "</div></div>\n",
        _charts(run, benchmark.results.figures(scores, run.name)),
        _errors(rows, benchmark.results.error_types.load()),
        _wrong(benchmark, run, dataset, rows, sample, seed, thumb),
        "</section>\n",
    ])


def _table(rows: Sequence[Sequence[str]]) -> str:
    header, *body = rows
    cells = "".join(f"<th>{escape(c)}</th>" for c in header)
    lines = "".join(_tr(r[0]) + "".join(f"<td>{escape(c)}</td>" for c in r)
                    + "</tr>" for r in body)
    return f"<table><tr>{cells}</tr>{lines}</table>"


def _tr(label: str) -> str:
    return '<tr class="total">' if label == "overall" else "<tr>"


def _provenance(run: ScoredRun, dataset: str) -> str:
    made = run.scores["provenance"]
    source = made.get("dataset") or {}
    where = source.get("path") or source.get("repo") or run.scores["dataset"]
    if source.get("revision"):
        where += f" @ {source['revision']}"
    versions = ", ".join(f"{k} {v}" for k, v in (made.get("versions") or {}).items() if v)
    fields = [("model", made.get("model")), ("name", made.get("name")), ("dataset", where),
              ("rows read from", dataset), ("fingerprint", made.get("fingerprint")), ("rows", made.get("n_rows")),
              ("config / split", f"{run.scores.get('config')} / {run.scores.get('split')}"),
              ("view", made.get("view")),
              ("mode", run.scores.get("mode")), ("prompt hash", made.get("prompt_hash")), ("judge", made.get("judge")),
              ("bootstrap", f"{made.get('n_boot')} resamples, seed {made.get('seed')}, {run.scores.get('ci_method')}"),
              ("versions", versions), ("scored", made.get("time")), ("predictions", str(run.predictions))]
    items = "".join(f"<dt>{escape(name)}</dt><dd>{escape(str(value))}</dd>" for name, value in fields
                    if value not in (None, ""))
    return f"<dl class=\"made\">{items}</dl>"


def _charts(run: ScoredRun, figures) -> str:
    """The charts `score` draws for these scores: the PNGs it wrote into the run folder after its
    scores.json, the others drawn afresh (the same bytes)."""
    if not figures:
        return ""
    scored = (run.folder / SCORES).stat().st_mtime_ns
    kept = {f.file: run.folder / f.file for f in figures
            if (run.folder / f.file).is_file() and (run.folder / f.file).stat().st_mtime_ns >= scored}
    missing = [f for f in figures if f.file not in kept]
    with tempfile.TemporaryDirectory() as folder:
        kept.update((f.file, path) for f, path in zip(missing, draw(missing, Path(folder))))
        drawn = [(f.file, kept[f.file].read_bytes()) for f in figures]
    items = "".join(f"<figure><img alt=\"{escape(name)}\" src=\"{_data_uri(data, 'image/png')}\">"
                    f"<figcaption>{escape(name)}</figcaption></figure>" for name, data in drawn)
    return f"<h3>Charts</h3><div class=\"charts\">{items}</div>\n"


def _errors(rows: list[Outcome], kinds: Sequence[str]) -> str:
    counts = tally(rows, "error_type", kinds)
    order = [g for g in dict.fromkeys(r.group for r in rows)] + ["overall"]
    head = "".join(f"<th>{escape(k.replace('_', ' '))}</th>" for k in kinds)
    body = "".join(_tr(g) + f"<td>{escape(g)}</td>"
                   + "".join(f"<td>{counts.get(g, {}).get(k, 0)}</td>" for k in kinds)
                   + f"<td>{sum(counts.get(g, {}).values())}</td></tr>" for g in order)
    text = f"<h3>Error types</h3><div class=\"cols\"><table><tr><th>group</th>{head}<th>errors</th></tr>{body}</table>"
    verdicts = sorted({r.judge for r in rows if r.judge})
    if verdicts:
        judged = tally(rows, "judge", verdicts)
        head = "".join(f"<th>{escape(v.replace('_', ' '))}</th>" for v in verdicts)
        body = "".join(_tr(g) + f"<td>{escape(g)}</td>"
                       + "".join(f"<td>{judged.get(g, {}).get(v, 0)}</td>" for v in verdicts) + "</tr>"
                       for g in order if g in judged)
        text += f"<table><tr><th>judge's verdict</th>{head}</tr>{body}</table>"
    return text + "</div>\n"


def _wrong(benchmark: Benchmark, run: ScoredRun, dataset: str, rows: list[Outcome], sample: int, seed: int,
           thumb: int) -> str:
    wrong = [r for r in rows if r.outcome == "wrong"]
    chosen = sorted(random.Random(seed).sample(wrong, min(sample, len(wrong))), key=lambda r: r.position)
    title = f"<h3>Wrong answers: {len(chosen)} of {len(wrong)}, drawn with seed {seed}</h3>"
    if not chosen:
        return title + "<p>None to show.</p>\n"
    views = _views(benchmark, dataset, run.scores, chosen, thumb)
    return title + "<div class=\"cards\">" + "".join(_card(r, *views[r.position]) for r in chosen) + "</div>\n"


def _views(benchmark: Benchmark, dataset: str, scores: dict, chosen: list[Outcome], thumb: int) -> dict:
    """Position -> (the row as the review page sees it, its thumbnails as data URIs with their labels)."""
    from dicobench.kit.io.predictions import load_split
    from dicobench.kit.io.rowstore import decode_labels
    from dicobench.kit.report.preview import tile

    spec = benchmark.people
    rows = load_split(dataset, scores["config"], scores["split"]).select([r.position for r in chosen])
    found = {}
    for r, row in zip(chosen, rows):
        view = spec.review_view(decode_labels(rows.features, {k: v for k, v in row.items()
                                                               if k not in spec.image_columns}))
        images = []
        for i, (column, label) in enumerate(zip(spec.image_columns, spec.image_labels)):
            image, boxes = row[column], [b["bbox"] for b in view["boxes"] if b["image"] == i]
            around = _around(boxes, image.size)
            zoom = None if around is None else _jpeg(tile(image.crop(around), [
                (x - around[0], y - around[1], w, h) for x, y, w, h in boxes], thumb // 2))
            images.append((label, _jpeg(tile(image, boxes, thumb)), zoom))
        found[r.position] = (view, images)
    return found


def _around(boxes: Sequence[Sequence[float]], size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """A square around the boxes, three times their extent (at least an eighth of the image's shorter
    side), inside the image; None without boxes or where they cover much of the image (a composite's
    panels): the whole image shows them already."""
    if not boxes:
        return None
    x0, y0, x1, y1 = xyxy(bounding(boxes))
    width, height = size
    if (x1 - x0) * (y1 - y0) > width * height / 16:
        return None
    side = min(max(3 * (x1 - x0), 3 * (y1 - y0), min(width, height) / 8), width, height)
    left = min(max(0, (x0 + x1 - side) / 2), width - side)
    top = min(max(0, (y0 + y1 - side) / 2), height - side)
    return round(left), round(top), round(left + side), round(top + side)


def _jpeg(image) -> str:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=85)
    return _data_uri(buffer.getvalue(), "image/jpeg")


def _card(r: Outcome, view: dict, images: list[tuple[str, str, str | None]]) -> str:
    thumbs = "".join(f"<figure><img alt=\"{escape(label)}\" src=\"{uri}\"><figcaption>{escape(label)}</figcaption>"
                     + (f"<img class=\"zoom\" alt=\"{escape(label)}, around the cue\" src=\"{zoom}\">"
                        f"<figcaption>{escape(label)}, around the cue</figcaption>" if zoom else "")
                     + "</figure>" for label, uri, zoom in images)
    options = "".join(
        f"<li class=\"{'right' if o['letter'] == r.answer else 'chosen' if o['letter'] == r.read else ''}\">"
        f"<b>{escape(o['letter'])}.</b> {escape(o['text'])}"
        + (" &#10003;" if o["letter"] == r.answer else " &larr; read" if o["letter"] == r.read else "") + "</li>"
        for o in view["options"])
    tags = [f"<span class=\"tag\">{escape(r.group)}</span>",
            f"<span class=\"tag wrong\">{escape((r.error_type or '').replace('_', ' '))}</span>"]
    if r.judge:
        tags.append(f"<span class=\"tag\">judge: {escape(r.judge.replace('_', ' '))}</span>")
    read = "nothing read" if r.read is None else f"read: {r.read}"
    return "".join([
        f"<div class=\"card\"><div class=\"thumbs\">{thumbs}</div><div class=\"text\">",
        f"<div>{''.join(tags)} <span class=\"id\">{escape(r.id)}</span></div>",
        f"<div class=\"question\">{escape(view['question'])}</div>",
        f"<ol>{options}</ol>" if options else f"<div>right answer: <b>{escape(r.answer)}</b></div>",
        f"<div>reply ({escape(read)}; right: {escape(r.answer)}):</div>"
        f"<pre>{escape(r.response or '')}</pre></div></div>",
    ])


def _data_uri(data: bytes, kind: str) -> str:
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"
