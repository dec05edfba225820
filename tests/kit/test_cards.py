"""Dataset cards written with huggingface_hub: Hub metadata, named sections, licences that follow
the images, `info`, `push --license` / `--dry-run`, and code in the card that runs as it is, naming
the Hub repo once pushed."""

import re
import shutil

import datasets
import pytest
from huggingface_hub import DatasetCard

from dicobench.build import build as build_dicobench
from dicobench.cli.main import main as dicobench
from dicobench.kit.release.card import STATS_KEY, Section, insert_section
from dicobench.schema import features as dicobench_features
from multipanelvqa.build import build as build_multipanelvqa
from multipanelvqa.cli.main import main as multipanelvqa
from multipanelvqa.schema import features as multipanelvqa_features
from tests.kit.test_hub import fake_hub  # noqa: F401  (the fixture: HfApi backed by a folder)

SECTIONS = ["Load and score", "Uses", "Dataset structure", "Dataset creation", "Bias, risks and limitations",
            "Licences and attribution", "Citation"]


@pytest.fixture(scope="module")
def dico(tmp_path_factory):
    return build_dicobench(tmp_path_factory.mktemp("cards") / "dico", per_task=2, tasks=["attribute", "instance"],
                           num_proc=1, progress=False)


@pytest.fixture(scope="module")
def mpv(tmp_path_factory):
    return build_multipanelvqa(tmp_path_factory.mktemp("cards") / "mpv", layouts=[0, 1], configs=["original"],
                               num_proc=1, progress=False)


@pytest.fixture(scope="module")
def photo_build(tmp_path_factory):
    pytest.importorskip("cv2")
    data = pytest.importorskip("skimage.data")
    from PIL import Image

    root = tmp_path_factory.mktemp("photo_card")
    (root / "photos").mkdir()
    for name in ("astronaut", "coffee", "chelsea"):
        Image.fromarray(getattr(data, name)()).save(root / "photos" / f"{name}.png")
    return build_dicobench(root / "out", source=f"folder:{root / 'photos'}", tasks=["attribute"], per_task=1,
                           upscale=True, num_proc=1, progress=False)


def headings(card: DatasetCard) -> list[str]:
    return [line[3:] for line in card.text.splitlines() if line.startswith("## ")]


def test_dicobench_card_carries_the_hub_metadata_and_sections(dico):
    card = DatasetCard.load(dico / "README.md")
    meta = card.data.to_dict()
    assert meta["license"] == "cc-by-4.0" and meta["annotations_creators"] == ["machine-generated"]
    assert meta["task_categories"] == ["visual-question-answering", "multiple-choice"]
    assert meta["task_ids"] == ["visual-question-answering", "multiple-choice-qa"]
    assert meta["size_categories"] == ["n<1K"] and meta["source_datasets"] == ["original"]
    assert meta["language"] == ["en"] and meta["pretty_name"] == "DiCoBench (generated)" and meta["tags"]
    assert [c["config_name"] for c in meta["configs"]] == ["attribute", "instance", "all"]
    info = {i["config_name"]: i for i in meta["dataset_info"]}
    assert set(info) == {"attribute", "instance", "all"}
    for config, rows in (("attribute", 2), ("all", 4)):
        assert datasets.Features._from_yaml_list(info[config]["features"]) == dicobench_features()
        assert info[config]["splits"] == [{"name": "test", "num_bytes": info[config]["dataset_size"],
                                           "num_examples": rows}]
        assert len(datasets.load_dataset(str(dico), config, split="test")) == rows
    assert sum(p.stat().st_size for p in (dico / "attribute").glob("*.parquet")) == info["attribute"]["download_size"]
    stats = meta[STATS_KEY]["test"]["attribute"]
    assert (stats["rows"] == 2 and sum(stats["answers"].values()) == 2
            and 1500 < stats["image_long_side"]["mean"] < 2100)
    assert headings(card) == SECTIONS
    assert "Font Awesome" in card.text and "@misc{fan_multipanelvqa" in card.text and "@misc{dicobench" in card.text
    assert '"per_task": 2' in card.text  # the build options, in the creation section


def test_multipanelvqa_card(mpv):
    card = DatasetCard.load(mpv / "README.md")
    meta = card.data.to_dict()
    assert meta["license"] == "cc-by-4.0" and meta["task_ids"] == ["visual-question-answering"]
    info = {i["config_name"]: i for i in meta["dataset_info"]}
    assert datasets.Features._from_yaml_list(info["original"]["features"]) == multipanelvqa_features()
    assert (info["original"]["splits"][0]["num_examples"] == 12
            == len(datasets.load_dataset(str(mpv), "all", split="test")))
    assert meta[STATS_KEY]["test"]["original"]["image_long_side"] == {"min": 1000, "mean": 1000, "max": 1000}
    assert headings(card) == SECTIONS


def test_sections_are_named_so_others_can_insert_theirs():
    sections = [Section("creation", "Dataset creation", "x"), Section("limitations", "Bias", "y")]
    review = Section("human_review", "Human review", "z", level=3)
    assert [s.key for s in insert_section(sections, review, after="creation")] == ["creation", "human_review",
                                                                                   "limitations"]


def test_photo_build_has_no_licence_until_push_states_one(photo_build, fake_hub, capsys):  # noqa: F811
    meta = DatasetCard.load(photo_build / "README.md").data.to_dict()
    assert meta["license"] == "unknown" and meta["source_datasets"] == ["extended"]
    assert dicobench(["push", str(photo_build), "--repo-id", "org/photos"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pass --license" in err and fake_hub.calls == []

    argv = ["push", str(photo_build), "--repo-id", "org/photos", "--license", "other", "--license-name", "my-photos",
            "--license-link", "https://example.org/terms", "--dry-run"]
    assert dicobench(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("dry run: would upload 2 files") and "attribute/test-00000-of-00001.parquet" in out
    assert fake_hub.calls == []  # a dry run never contacts the Hub
    card = DatasetCard.load(photo_build / "README.md")
    assert card.data.license == "other" and card.data.to_dict()["license_name"] == "my-photos"
    assert "my-photos (https://example.org/terms)" in card.text

    assert dicobench(["push", str(photo_build), "--repo-id", "org/photos"]) == 0  # the licence is recorded
    pushed = fake_hub.root / "org/photos"
    assert (pushed / "README.md").read_text() == (photo_build / "README.md").read_text()
    assert not (pushed / ".license.json").exists()


def test_license_is_refused_where_the_sources_fix_it(dico, capsys):
    before = (dico / "README.md").read_text()
    assert dicobench(["push", str(dico), "--repo-id", "org/x", "--license", "mit", "--dry-run"]) == 2
    assert "follows its sources (cc-by-4.0" in capsys.readouterr().err
    assert (dico / "README.md").read_text() == before and not (dico / ".license.json").exists()
    assert dicobench(["push", str(dico), "--repo-id", "org/x", "--license", "Not A Licence"]) == 2
    assert "expected a Hub licence id" in capsys.readouterr().err


def test_info_prints_what_the_card_holds(dico, mpv, capsys):
    assert dicobench(["info", str(dico)]) == 0
    out = capsys.readouterr().out
    assert "licence: cc-by-4.0" in out and "configs: attribute, instance, all (default)" in out
    assert "| attribute | 2 | A " in out and "bytes/row" in out and "review: no human review recorded" in out
    assert multipanelvqa(["info", str(mpv)]) == 0
    assert "| original | 12 | q1 " in capsys.readouterr().out


def test_review_decisions_become_the_cards_human_review_section(dico, capsys):
    from dicobench.card import write_card
    from dicobench.kit.people.decisions import DecisionLog, decisions_path, make_decision
    from dicobench.people import CRITERIA

    rows = datasets.load_dataset(str(dico), "all", split="test")
    log = DecisionLog(decisions_path(dico))
    log.check_writable()  # creates the folder, as `review` does
    log.append(make_decision(rows[0]["id"], "r1", "accept", [], "", rows[0]["seed"], [k for k, _ in CRITERIA]))
    log.append(make_decision(rows[1]["id"], "r1", "reject", [CRITERIA[0][0]], "", rows[1]["seed"],
                             [k for k, _ in CRITERIA]))
    write_card(dico)
    card = DatasetCard.load(dico / "README.md")
    assert headings(card) == SECTIONS[:4] + ["Human review"] + SECTIONS[4:]
    assert dicobench(["info", str(dico)]) == 0
    assert "review: 2 of 4 rows as they are now were reviewed by 1 reviewer(s)" in capsys.readouterr().out


def test_info_of_a_hub_repo_reads_its_card(dico, monkeypatch, capsys):
    def load(repo_id, repo_type=None, **kwargs):
        assert repo_id == "org/dico" and repo_type == "dataset"
        return DatasetCard((dico / "README.md").read_text())

    monkeypatch.setattr(DatasetCard, "load", staticmethod(load))
    assert dicobench(["info", "org/dico"]) == 0
    assert "DiCoBench (generated): org/dico" in capsys.readouterr().out


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.S)


def run_blocks(blocks: list[str], capsys) -> list[str]:
    """Run each block alone, in a namespace of its own, as a reader pastes any one of them; what they print."""
    for block in blocks:
        exec(compile(block, "card", "exec"), {})
    return capsys.readouterr().out.split()


def test_the_cards_code_runs_and_names_the_repo_once_pushed(dico, tmp_path, fake_hub, monkeypatch, capsys):  # noqa: F811
    build = tmp_path / "dico"
    shutil.copytree(dico, build)
    card = (build / "README.md").read_text()
    assert "kind colour distance" not in card  # a column that was 0 for every task
    blocks = python_blocks(card.split("## Uses")[0])
    assert len(blocks) == 3 and 'load_dataset(os.getcwd(), "attribute", split="test")' in blocks[0]
    monkeypatch.chdir(build)  # inside the build folder, as the card says
    printed = run_blocks(blocks, capsys)
    assert len(printed) == 2 and all(0 <= float(x) <= 1 for x in printed)  # evaluate()'s and the metric's accuracy

    assert dicobench(["push", str(build), "--repo-id", "someone/dicobench"]) == 0
    capsys.readouterr()
    repo = fake_hub.root / "someone/dicobench"
    pushed = (repo / "README.md").read_text()
    assert 'load_dataset("someone/dicobench", "attribute"' in pushed and "os.getcwd()" not in pushed
    assert "dicobench eval --dataset someone/dicobench" in pushed
    assert not (repo / ".hub.json").exists()  # the record stays in the build folder
    load = datasets.load_dataset

    def hub(path, *args, **kwargs):  # the Hub repo, served from the pushed files (no network in tests)
        return load(str(repo) if path == "someone/dicobench" else path, *args, **kwargs)

    monkeypatch.setattr(datasets, "load_dataset", hub)
    assert len(run_blocks(python_blocks(pushed.split("## Uses")[0]), capsys)) == 2


def test_the_multipanelvqa_cards_code_runs(mpv, tmp_path, monkeypatch, capsys):
    card = (mpv / "README.md").read_text()
    blocks = python_blocks(card.split("## Uses")[0])
    assert 'load_dataset(os.getcwd(), "original", split="test")' in blocks[0]
    monkeypatch.chdir(mpv)
    assert len(run_blocks(blocks, capsys)) == 2
