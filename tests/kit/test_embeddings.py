import numpy as np
import pytest

from dicobench.cli import name_embeddings as script
from dicobench.kit.scene.catalogue import load_catalogue
from dicobench.kit.scene.embeddings import LOCAL_MODEL, TABLE, embed_names, load, openai_embedder, save, shipped
from tests.openai_stub import StubServer, text_vector


def test_shipped_table_covers_the_catalogue_with_unit_vectors():
    table = shipped()
    assert set(table.names) == {e.name for e in load_catalogue()} | {e.name for e in load_catalogue("audited")}
    assert table.model == LOCAL_MODEL and table.vectors.shape == (len(table.names), 384)
    assert np.allclose(np.linalg.norm(table.vectors, axis=1), 1, atol=1e-3)
    with np.load(TABLE) as raw:
        assert raw["vectors"].dtype == np.float16  # small enough to commit
    assert TABLE.stat().st_size < 400_000


def test_shipped_table_carries_real_meaning():
    """Computed by a sentence-embedding model, not placeholders: near kinds rank above far ones."""
    table = shipped()
    sims = table.similarity(["mug", "pen", "truck"], ["beer mug", "fountain pen", "pickup truck", "cow", "tooth"])
    assert (sims[[0, 1, 2], [0, 1, 2]] > 0.7).all() and (sims[:, 3:] < 0.4).all()
    assert "beer mug" in table.near("mug", 0.55) and "tractor" not in table.near("mug", 0.55)
    # a name the audit gave an object keeps that object's vector
    assert table.similarity(["camcorder"], ["video camera"])[0, 0] > 0.999
    with pytest.raises(KeyError, match="no embedding"):
        table.similarity(["unicorn"], ["mug"])


def test_save_and_load_round_trip(tmp_path):
    table = embed_names(["a", "b", "c"], lambda texts: np.array([[3.0, 4.0], [1.0, 0.0], [0.0, -2.0]]), "toy")
    back = load(save(table, tmp_path / "t.npz"))
    assert back.names == ("a", "b", "c") and back.model == "toy"
    assert np.allclose(back.vectors, [[0.6, 0.8], [1, 0], [0, -1]], atol=1e-3)
    assert np.isclose(back.similarity(["a"], ["b"])[0, 0], 0.6, atol=1e-3)


def test_openai_compatible_endpoint_batches_in_order():
    with StubServer() as stub:
        embed = openai_embedder("text-embedding-3-small", base_url=stub.base_url, api_key="k", batch_size=2)
        vectors = embed(["mug", "key", "padlock", "dog", "cat"])
    assert np.allclose(vectors, [text_vector(t) for t in ["mug", "key", "padlock", "dog", "cat"]], atol=1e-6)
    calls = [r for r in stub.requests if r["path"].endswith("/embeddings")]
    assert [c["body"]["input"] for c in calls] == [["mug", "key"], ["padlock", "dog"], ["cat"]]
    assert all(c["body"]["model"] == "text-embedding-3-small" and c["headers"]["authorization"] == "Bearer k"
               for c in calls)


def test_the_table_script_can_use_an_endpoint_and_covers_every_catalogue_version(tmp_path, monkeypatch):
    monkeypatch.setenv("STUB_KEY", "secret")
    with StubServer() as stub:
        script.main(["--out", str(tmp_path / "e.npz"), "--base-url", stub.base_url, "--model", "m", "--api-key-env",
                     "STUB_KEY"])
    table = load(tmp_path / "e.npz")
    assert table.model == "m" and set(table.names) == set(shipped().names)  # the audited names too
    assert stub.requests[0]["headers"]["authorization"] == "Bearer secret"


def test_the_table_script_writes_only_where_it_is_told(capsys):
    """Without --out it refuses: its old default was the installed package's own table."""
    before = TABLE.read_bytes()
    with pytest.raises(SystemExit) as exit:
        script.main(["--base-url", "http://127.0.0.1:9/v1"])
    assert exit.value.code == 2 and "--out" in capsys.readouterr().err
    assert TABLE.read_bytes() == before
