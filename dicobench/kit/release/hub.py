"""Publish a built benchmark folder (README card + `<config>/<split>-*.parquet`) to the Hub.

The folder is validated first (card, shards, licence), then uploaded with
`HfApi.upload_folder`: with `hf_xet` installed (huggingface_hub's default) that is its streamed,
resumable upload, which sends only the chunks the Hub does not already hold and commits a large
folder in batches (rerun an interrupted push to resume it); without it, one commit. With
`split=`, only that split's shards and the card change; the other splits already on the Hub stay
as they are. Shards of the pushed split(s) that the folder no longer has are deleted.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import httpx2
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError, HFValidationError
from huggingface_hub.utils import validate_repo_id

from dicobench.kit.errors import UserError, first_line
from dicobench.kit.release.layout import README, card_patterns, glob_regex, read_configs, read_metadata
from dicobench.kit.release.licences import UNKNOWN


def _is_shard(path: str, split: str | None) -> bool:
    """A data shard of the layout: `<config>/<split>-*.parquet` (any split when `split` is None)."""
    split_re = re.escape(split) if split else r"[^/]+"
    return re.fullmatch(rf"[^/.][^/]*/{split_re}-[^/]*\.parquet", path) is not None


def _unmatched(patterns, paths) -> list[tuple[str, str, str]]:
    return [p for p in patterns if not any(map(glob_regex(p[2]).match, paths))]


def _local_shards(folder: Path, configs: list[dict], split: str | None) -> list[str]:
    """Validate `folder` for a push and return the shards to upload (repo-relative posix paths).

    The card must list `split` (when given), and every pattern of the pushed split(s) must match
    a local shard, so a push never publishes a card that points at nothing."""
    shards = sorted(p.relative_to(folder).as_posix() for p in folder.glob("*/*.parquet"))
    shards = [s for s in shards if _is_shard(s, split)]
    patterns = [p for p in card_patterns(configs) if split is None or p[1] == split]
    if split is not None and not patterns:
        splits = sorted({p[1] for p in card_patterns(configs)})
        raise UserError(f"split {split!r} is not in {folder / README} (it has: {', '.join(splits)})")
    if not shards:
        raise UserError(f"no {split or '<split>'}-*.parquet shards under {folder}/<config>/: run `build` first")
    missing = _unmatched(patterns, shards)
    if missing:
        config, split_name, pattern = missing[0]
        raise UserError(f"{folder / README}: config {config!r} split {split_name!r} path {pattern!r} matches no shard")
    return shards


@dataclass(frozen=True)
class PushPlan:
    """What a push uploads, after the folder passed validation."""

    folder: Path
    repo_id: str
    files: tuple[str, ...]  # README.md and the shards, repo-relative
    num_bytes: int
    split: str | None

    def describe(self) -> str:
        scope = f"split {self.split!r}" if self.split else "every split"
        lines = [f"dry run: would upload {len(self.files)} files ({self.num_bytes / 1e6:.1f} MB) from "
                 f"{self.folder} to the dataset repo {self.repo_id}, replacing {scope}:"]
        lines += [f"  {f}  {(self.folder / f).stat().st_size} bytes" for f in self.files]
        lines.append(f"and would delete the repo's {self.split or '<split>'}-*.parquet shards not listed above")
        return "\n".join(lines)


def plan_push(folder, repo_id: str, split: str | None = None, *, require_licence: bool = True) -> PushPlan:
    """Validate `folder` for a push to `repo_id` without contacting the Hub: a valid repo id, a
    card with `configs:` that match local shards, shards that pass `verify_build`, and
    (`require_licence`) a stated licence."""
    folder = Path(folder)
    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise UserError(f"bad --repo-id {repo_id!r}: {first_line(exc)}") from None
    from dicobench.kit.release.verify import verify_build  # deferred: it loads datasets and pyarrow

    configs = read_configs(folder)
    shards = _local_shards(folder, configs, split)
    verify_build(folder, split=split)  # footers, columns and row counts, before anything is published
    if require_licence and read_metadata(folder).get("license", UNKNOWN) == UNKNOWN:
        raise UserError(f"{folder / README} states no licence (photos of unknown terms): pass --license ID, "
                        "the licence of the photos (e.g. cc-by-4.0; `other` with --license-name and --license-link)")
    files = (README, *shards)
    return PushPlan(folder, repo_id, files, sum((folder / f).stat().st_size for f in files), split)


def push_folder(
    folder,
    repo_id: str,
    *,
    token: str | None = None,
    private: bool = False,
    split: str | None = None,
    revision: str | None = None,
    commit_message: str | None = None,
) -> str:
    """Upload `folder` to the dataset repo `repo_id` and return the repo URL.

    Without `split`, the repo's shards become exactly the folder's (stale shards are deleted).
    With `split`, only `<config>/<split>-*.parquet` and README.md are replaced. `token` defaults
    to what huggingface_hub finds (HF_TOKEN, then the saved login); it is never written or
    printed. `private` applies when the repo is created; an existing repo keeps its visibility.
    """
    plan = plan_push(folder, repo_id, split)
    configs = read_configs(plan.folder)
    shards = plan.files[1:]
    api = HfApi(token=token)
    with hub_errors(repo_id):
        url = api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        if revision is not None:
            api.create_branch(repo_id, branch=revision, repo_type="dataset", exist_ok=True)
        remote = api.list_repo_files(repo_id, repo_type="dataset", revision=revision)
        stale = [f for f in remote if _is_shard(f, split) and f not in shards]
        final = (set(remote) - set(stale)) | set(shards)
        missing = _unmatched(card_patterns(configs), final)
        if missing:
            config, split_name, pattern = missing[0]
            raise UserError(
                f"after this push, config {config!r} split {split_name!r} ({pattern!r}) would match no file "
                f"in {repo_id}: push that split too, or push without --split"
            )
        message = commit_message or (f"Update split {split}" if split else f"Upload {plan.folder.name}")
        api.upload_folder(repo_id=repo_id, folder_path=plan.folder, repo_type="dataset", revision=revision,
                          commit_message=message, allow_patterns=[glob_escape(f) for f in plan.files],
                          delete_patterns=[glob_escape(f) for f in stale] or None)
    return str(url)


def glob_escape(path: str) -> str:
    """`path` as an fnmatch pattern matching only itself (upload_folder filters by patterns)."""
    return re.sub(r"([*?\[])", r"[\1]", path)


@contextmanager
def hub_errors(repo_id: str) -> Iterator[None]:
    """Hub failures as one-line UserErrors: refused access, and a Hub that cannot be reached."""
    try:
        yield
    except HfHubHTTPError as exc:
        status = getattr(exc.response, "status_code", None)
        if status in (401, 403):
            raise UserError(f"the Hub refused access to {repo_id} (HTTP {status}): use a token with write access "
                            "(HF_TOKEN or --hub-token)") from None
        raise UserError(f"the Hub answered HTTP {status} for {repo_id}: {first_line(exc)}") from None
    except (OSError, httpx2.HTTPError) as exc:  # offline mode, DNS, refused connections
        raise UserError(f"cannot reach the Hub for {repo_id}: {first_line(exc)}") from None

