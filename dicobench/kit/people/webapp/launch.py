"""Start a review or study server on a build: checks first (one-line errors), then serve.

Each server announces itself in one line (what it serves, then `serving on URL`) to the
`announce` callback: the command line prints it; a library call without one logs it (INFO)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from dicobench.kit.errors import UserError
from dicobench.kit.io.rowstore import RowStore, config_folders
from dicobench.kit.people.decisions import DecisionLog, check_reviewer, decisions_path
from dicobench.kit.people.webapp.spec import BenchmarkSpec

if TYPE_CHECKING:
    from dicobench.kit.benchmark import Results


logger = logging.getLogger(__name__)
Announce = Callable[[str], None]  # takes the server's one line: what it serves, and its address


def _announcing(announce: Announce | None, what: str) -> Announce:
    """`announce` (default: the log) given `what` the server serves before each line of its own."""
    return lambda line: (announce or logger.info)(f"{what}; {line}")


def _open_store(spec: BenchmarkSpec, build_dir, config: str) -> tuple[Path, RowStore]:
    root = Path(build_dir)
    folders = config_folders(root, config, spec.configs)  # a known config name first
    spec.check_build(root, config)
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise UserError("the web app needs the app extra: pip install 'dicobench[app]'") from None
    return root.resolve(), RowStore(root, folders, spec.image_columns)


def review(spec: BenchmarkSpec, build_dir, *, host: str = "127.0.0.1", port: int = 8765, reviewer: str | None = None,
           config: str = "all", token: str | None = None, open_browser: bool = False, background: bool = False,
           announce: Announce | None = None):
    """Serve the review page of `build_dir` (blocks, or returns a running `Served`)."""
    from dicobench.kit.people.webapp.review import review_app
    from dicobench.kit.people.webapp.server import access, serve

    root, store = _open_store(spec, build_dir, config)
    log = DecisionLog(decisions_path(root))
    log.check_writable()
    for number, error in log.read().malformed:
        logger.warning(f"warning: {log.path}:{number}: {error} (line kept; fix or remove it by hand)")
    name = reviewer or os.environ.get("USER") or "reviewer"
    try:
        check_reviewer(name)  # it goes into the log and the card's Markdown
    except ValueError as exc:
        raise UserError(f"--reviewer: {exc}") from None
    token, everywhere = access(host, token)  # the page sends the token with its POSTs
    app = review_app(spec, root, store, log, name, token)
    return serve(app, host=host, port=port, token=token, everywhere=everywhere, open_browser=open_browser,
                 background=background,
                 announce=_announcing(announce, f"{spec.name} review: {len(store.rows)} rows, reviewer {name}"))


def results(spec: BenchmarkSpec, results: Results, build_dir, runs, *, host: str = "127.0.0.1", port: int = 8765,
            token: str | None = None, open_browser: bool = False, background: bool = False,
            announce: Announce | None = None):
    """Serve the results explorer of the scored run folders `runs` (one, or two side by side) on the
    build `build_dir` they were scored against (blocks, or returns a running `Served`)."""
    from dicobench.kit.eval.runs import check_reproduces, read_run
    from dicobench.kit.people.webapp.results import results_app
    from dicobench.kit.people.webapp.server import access, serve

    root, store = _open_store(spec, build_dir, "all")
    scored, outcomes = [], []
    for path in runs:
        run = read_run(path, spec.name)
        rows = results.outcomes(run, str(root))
        check_reproduces(run, rows)
        outside = [r.id for r in rows if r.id not in store.rows]
        if outside:
            raise UserError(f"{run.folder} holds rows that {root} does not serve, e.g. {outside[0]}")
        scored.append(run)
        outcomes.append(rows)
    token, everywhere = access(host, token)
    app = results_app(spec, store, scored, outcomes, results.error_types.load(), token)
    names = " and ".join(run.name for run in scored)
    return serve(app, host=host, port=port, token=token, everywhere=everywhere, open_browser=open_browser,
                 background=background,
                 announce=_announcing(announce, f"{spec.name} results: {names}, "
                                                f"{len({r.id for rows in outcomes for r in rows})} rows"))


def review_annotations(annotations, photos=None, *, host: str = "127.0.0.1", port: int = 8765,
                       reviewer: str | None = None, token: str | None = None, open_browser: bool = False,
                       background: bool = False, announce: Announce | None = None):
    """Serve the review page of a COCO annotation file's objects (photos under `photos`, default
    the file's folder); verdicts go beside the file (`dicobench.kit.photos.annotation_review`)."""
    from dicobench.kit.people.webapp.annotations import annotations_app
    from dicobench.kit.people.webapp.server import access, serve
    from dicobench.kit.photos.annotation_review import review_path
    from dicobench.kit.photos.coco import CocoSource
    from dicobench.kit.photos.model import SizePolicy

    source = CocoSource(annotations, photos, SizePolicy(1))
    log = review_path(source.path)
    try:
        open(log, "a").close()
    except OSError as exc:
        raise UserError(f"cannot write the review log {log}: {exc.strerror}") from None
    name = reviewer or os.environ.get("USER") or "reviewer"
    token, everywhere = access(host, token)
    app = annotations_app(source, name, token)
    count = len(source.coco.dataset["annotations"])
    return serve(app, host=host, port=port, token=token, everywhere=everywhere, open_browser=open_browser,
                 background=background,
                 announce=_announcing(announce, f"annotation review: {count} objects in {len(source)} photos, "
                                                f"reviewer {name}"))


def study(spec: BenchmarkSpec, build_dir, *, time_limit: float | None, participant: str = "participant", n: int = 40,
          seed: int = 0, host: str = "127.0.0.1", port: int = 8765, token: str | None = None, config: str = "all",
          open_browser: bool = False, background: bool = False, announce: Announce | None = None):
    """Serve a timed study session on `build_dir` (`time_limit` in seconds, None for none;
    fractions are allowed here, the command line offers 30, 60, 120 and none)."""
    from dicobench.kit.people.webapp.server import access, serve
    from dicobench.kit.people.webapp.study import (
        Session,
        SessionLock,
        declare_sample,
        limit_label,
        participant_order,
        sample,
        session_path,
        study_app,
    )

    if time_limit is not None and not time_limit > 0:
        raise UserError(f"time limit must be positive, got {time_limit}")
    root, store = _open_store(spec, build_dir, config)
    path = session_path(root, participant, time_limit)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot write the study answers {path}: {exc.strerror}") from None
    lock = SessionLock(path, f"the session of {participant} (time limit {limit_label(time_limit)})")
    try:
        try:
            open(path, "a").close()
        except OSError as exc:
            raise UserError(f"cannot write the study answers {path}: {exc.strerror}") from None
        order = participant_order(sample(store, spec, n, seed), seed, participant)
        session = Session(path, order, participant, time_limit)
        declare_sample(path, order, session.answered, participant=participant, time_limit=time_limit, seed=seed,
                       config=config)
        token, everywhere = access(host, token)
        limit = "no time limit" if time_limit is None else f"{time_limit:g} s per item"
        app = study_app(spec, store, session, token, f"{len(order)} items, {limit}.")
        return serve(app, host=host, port=port, token=token, everywhere=everywhere, open_browser=open_browser,
                     background=background, on_stop=lock.release,
                     announce=_announcing(announce, f"{spec.name} study: {participant}, {len(order)} items "
                                                    f"({len(session.remaining())} to go), {limit}"))
    except BaseException:
        lock.release()
        raise
