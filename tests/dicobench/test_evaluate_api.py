"""`dicobench.evaluate` / `multipanelvqa.evaluate` with plain Python functions, the runner
registry (by name and through the `dicobench.runners` entry-point group), and exact resume."""

import json
import sys
import textwrap

import datasets
import numpy as np
import pytest

import dicobench
import multipanelvqa
from dicobench.cli.main import main as dicobench_cli
from dicobench.kit.errors import UserError
from dicobench.kit.eval.run_folder import PREDICTIONS
from dicobench.kit.eval.runners import RUNNERS, CallableRunner, Reply, Runner, load_runner, register_runner
from dicobench.kit.io.predictions import first_per_config
from dicobench.schema import LETTERS, prompt_text
from tests.kit.test_eval_cli import write_multipanel


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def rows(small_build):
    """The rows `limit=1` asks: the first of each task (lmms-eval's `--limit`)."""
    every = datasets.load_dataset(str(small_build), "all", split="test")
    return every.select(first_per_config(every["task"], 1))


def oracle(rows, calls):
    """A model that answers every row right, found by its prompt; records what it was given."""
    by_prompt = {prompt_text(r["question"], r["options"]): r for r in rows}

    def model(images, prompt):
        row = by_prompt[prompt]
        calls.append((row["id"], images))
        return f"The answer is ({LETTERS[row['answer']]})."
    return model


def timeless(scores):
    """The scores without what differs between two scorings of the same answers: the predictions
    path and the provenance's time."""
    return {**{k: v for k, v in scores.items() if k != "predictions"},
            "provenance": {k: v for k, v in scores["provenance"].items() if k != "time"}}


def test_a_python_function_is_evaluated_and_scored_like_score(small_build, rows, tmp_path):
    calls = []
    out = tmp_path / "run"
    result = dicobench.evaluate(small_build, oracle(rows, calls), limit=1, out=out, name="oracle")
    assert result["accuracy"] == 1.0 and result["n"] == 8 and (result["split"], result["limit"]) == ("test", 1)
    assert result == json.loads((out / "scores.json").read_text())
    for (key, images), row in zip(sorted(calls), sorted(rows, key=lambda r: r["id"])):
        assert key == row["id"] and len(images) == 2  # both images, in order, pixels as stored
        for given, stored in zip(images, (row["image_a"], row["image_b"])):
            assert np.array_equal(np.asarray(given.convert("RGB")), np.asarray(stored.convert("RGB")))
    records = read(out / PREDICTIONS)
    assert sorted(r["id"] for r in records) == sorted(rows["id"]) and all(r["error"] is None for r in records)
    # the same predictions through the CLI's score give the same numbers (and provenance, under the same name):
    # the run.json beside them says which rows eval asked
    assert dicobench_cli(["score", str(out / PREDICTIONS), "--dataset", str(small_build),
                          "--out", str(tmp_path / "cli"), "--name", "oracle"]) == 0
    cli = json.loads((tmp_path / "cli" / "scores.json").read_text())
    assert timeless(cli) == timeless(result)

    assert timeless(dicobench.evaluate(small_build, oracle(rows, calls := []), limit=1, out=out,
                                       name="oracle")) == timeless(result)
    assert calls == []  # everything was answered: nothing asked again
    wrong = dicobench.evaluate(small_build, lambda images, prompt: "I cannot tell.", config="entity",
                               limit=2)  # no out: temporary
    assert wrong["n"] == 2 and wrong["accuracy"] == 0.0


def test_failures_give_incomplete_scores_and_only_they_are_asked_again(small_build, rows, tmp_path):
    asked = []

    def flaky(images, prompt):
        asked.append(prompt)
        if len(asked) in (2, 4):
            raise RuntimeError("CUDA out of memory")
        return "A"

    out = tmp_path / "run"
    partial = dicobench.evaluate(small_build, flaky, limit=1, out=out)
    assert partial["complete"] is False and partial["unscored"] == 2 and "accuracy" not in partial
    assert partial["accuracy_lower"] <= partial["accuracy_upper"]
    assert json.loads((out / "scores.json").read_text()) == partial
    failed = [r for r in read(out / PREDICTIONS) if r["error"]]
    assert len(failed) == 2 and all("RuntimeError: CUDA out of memory" == r["error"] for r in failed)
    first = list(asked)
    complete = dicobench.evaluate(small_build, flaky, limit=1, out=out)
    assert complete["complete"] is True and complete["n"] == 8 and "accuracy" in complete
    assert asked[len(first):] == [first[1], first[3]]  # the two failed rows, nothing else
    assert len({r["id"] for r in read(out / PREDICTIONS)}) == len(read(out / PREDICTIONS)) == 8


def test_multipanelvqa_evaluate_with_a_function(tmp_path):
    replies = write_multipanel(tmp_path / "mpv")
    seen = []

    def model(images, prompt):
        seen.append(len(images))
        return replies[prompt.rsplit("\n", 1)[0]]

    result = multipanelvqa.evaluate(tmp_path / "mpv", model, out=tmp_path / "run")
    assert result["benchmark"] == "multipanelvqa" and result["n"] == 3 and result["accuracy"] == 1.0
    assert seen == [1, 1, 1]  # one composite image per question
    limited = multipanelvqa.evaluate(tmp_path / "mpv", model, limit=1)  # the first question of the one augmentation
    assert (limited["n"], limited["limit"], limited["accuracy"]) == (1, 1, 1.0) and len(seen) == 4


def test_multipanelvqa_evaluate_in_the_single_view_asks_only_the_targeted_question(tmp_path):
    replies = write_multipanel(tmp_path / "mpv")
    sizes = []

    def model(images, prompt):
        sizes.append(images[0].size)
        return replies[prompt.rsplit("\n", 1)[0]]

    result = multipanelvqa.evaluate(tmp_path / "mpv", model, view="single", out=tmp_path / "run")
    assert result["n"] == 1 and result["complete"] is True and result["accuracy"] == 1.0
    assert sizes == [(500, 500)]  # the Q2's target subfigure alone, not the 1000x1000 composite
    assert result["provenance"]["view"] == "single"
    assert json.loads((tmp_path / "run" / "run.json").read_text())["provenance"]["view"] == "single"


class Echo(Runner):
    """A registered runner: answers every prompt with its model name's letter."""

    options = ("batch_size",)
    built = []

    def __init__(self, model, *, batch_size=1):
        self.model, self.batch_size = model, batch_size
        Echo.built.append((model, batch_size))

    def generate(self, prompts):
        return [Reply(f"Answer: {self.model}") for _ in prompts]


def test_a_registered_runner_works_from_the_command_line(small_build, tmp_path, capsys):
    with RUNNERS.registered("echo", Echo):  # as register_runner("echo", Echo) does, undone afterwards
        _echo_runs(small_build, tmp_path, capsys)


def _echo_runs(small_build, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["eval", "--dataset", str(small_build), "--model", "echo:B", "--limit", "3", "--out", str(out),
            "--batch-size", "2", "--quiet"]
    assert dicobench_cli(argv) == 0
    assert Echo.built[-1] == ("B", 2)
    assert all(r["parsed"] == "B" for r in read(out / PREDICTIONS))
    assert dicobench_cli(argv + ["--concurrency", "4"]) == 2  # an option it does not take is refused
    assert "--concurrency: not an option of echo: models" in capsys.readouterr().err
    with pytest.raises(ValueError):
        register_runner("bad:name", Echo)
    with pytest.raises(ValueError, match="runner 'echo' is already registered"):
        register_runner("echo", CallableRunner)  # a taken name is refused, not replaced


def test_an_unknown_runner_is_refused_before_anything_loads(tmp_path, capsys):
    # the dataset does not exist: the model spec is refused first, with the runners known
    argv = ["eval", "--dataset", str(tmp_path / "missing"), "--model", "gguf:x", "--out", str(tmp_path / "o")]
    assert dicobench_cli(argv) == 2
    err = capsys.readouterr().err
    assert "unknown model 'gguf:x'" in err and "hf" in err and "openai" in err and "cannot load dataset" not in err
    assert not (tmp_path / "o").exists()


def test_runners_from_installed_entry_points(tmp_path, monkeypatch):
    """A package declaring `[dicobench.runners] letter = letter_runner:LetterRunner` is found."""
    (tmp_path / "letter_runner.py").write_text(textwrap.dedent('''
        from dicobench.kit.eval.runners import Reply, Runner

        class LetterRunner(Runner):
            def __init__(self, model):
                self.model = model

            def generate(self, prompts):
                return [Reply(self.model) for _ in prompts]
    '''))
    info = tmp_path / "letter_runner-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: letter-runner\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[dicobench.runners]\nletter = letter_runner:LetterRunner\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with load_runner("letter:C") as runner:
        assert [r.text for r in runner.generate([["q"], ["r"]])] == ["C", "C"]
    with pytest.raises(UserError, match="--base-url: not an option of letter"):
        load_runner("letter:C", base_url="http://127.0.0.1:1/v1")
    monkeypatch.delitem(sys.modules, "letter_runner", raising=False)


def test_runner_options_need_a_spec(small_build):
    with pytest.raises(UserError, match="apply only when model is a spec"):
        dicobench.evaluate(small_build, lambda images, prompt: "A", batch_size=2)
    with pytest.raises(UserError, match="unknown mode"):
        dicobench.evaluate(small_build, lambda images, prompt: "A", mode="chatty")


SECRET = "sk-judge-SECRET-9876543210"


def test_evaluate_takes_a_judge_whose_key_is_written_nowhere(small_build, tmp_path, monkeypatch):
    from openai_stub import StubServer

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    def reply(body):  # MultipanelVQA's judge prompts begin "For question:"; DiCoBench's asks for a type
        return "No" if body["messages"][0]["content"].startswith("For question:") else "missed_cue"

    with StubServer(reply=reply) as stub:
        judge = dicobench.Judge.from_spec("openai:j", base_url=stub.base_url, api_key=SECRET, cache=tmp_path / "cache")
        result = dicobench.evaluate(small_build, lambda images, prompt: "E", out=tmp_path / "run", limit=4,
                                    mode="describe", judge=judge)
        write_multipanel(tmp_path / "mpv")
        mpv_result = multipanelvqa.evaluate(tmp_path / "mpv", lambda images, prompt: "maybe", out=tmp_path / "mpv-run",
                                            judge=multipanelvqa.Judge.from_spec(
                                                "openai:j", base_url=stub.base_url, api_key=SECRET,
                                                cache=tmp_path / "cache"))
    assert stub.requests and all(r["headers"]["authorization"] == f"Bearer {SECRET}" for r in stub.requests)
    judged = result["judge_error_types"]
    wrong = sum(1 for line in read(tmp_path / "run" / PREDICTIONS) if line["parsed"] != line["answer"])
    assert judged["judge"] == "openai:j" and judged["overall"]["missed_cue"] == wrong > 0
    assert result["provenance"]["judge"] == "openai:j"
    assert mpv_result["judge"] == "openai:j" and mpv_result["judged"] == mpv_result["rule_undecided"] == 3
    assert mpv_result["complete"] and mpv_result["accuracy"] == 0.0
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"scores.json", "run.json", PREDICTIONS, "completions.sqlite"} <= {p.name for p in written}
    assert all(SECRET.encode() not in p.read_bytes() for p in written)


def test_evaluate_keeps_the_judges_keyword_form(small_build, tmp_path):
    from openai_stub import StubServer

    with StubServer(reply=lambda body: "ex_nihilo") as stub:
        result = dicobench.evaluate(small_build, lambda images, prompt: "A", limit=3, judge="openai:j",
                                    judge_base_url=stub.base_url, judge_api_key=SECRET,
                                    judge_cache=tmp_path / "cache")
    assert result["judge_error_types"]["judge"] == "openai:j" and len(stub.requests) >= 1
    with pytest.raises(UserError, match="carries its own settings"):
        dicobench.evaluate(small_build, lambda images, prompt: "A", limit=3,
                           judge=dicobench.Judge("j"), judge_base_url="http://127.0.0.1:1/v1")


def my_model(images, prompt):
    return "A"


def test_a_function_names_the_run_on_charts_and_leaderboards(small_build, tmp_path):
    result = dicobench.evaluate(small_build, my_model, limit=2, out=tmp_path / "run")
    assert result["provenance"]["model"] == "my_model"  # not CallableRunner
    assert json.loads((tmp_path / "run" / "run.json").read_text())["model"] == "my_model"

    class Model:
        def __call__(self, images, prompt):
            return "B"

        def answer(self, images, prompt):
            return "C"

    assert dicobench.evaluate(small_build, Model(), limit=1)["provenance"]["model"] == "Model"
    assert dicobench.evaluate(small_build, Model().answer, limit=1)["provenance"]["model"] == "Model.answer"
    assert dicobench.evaluate(small_build, my_model, limit=1, name="mine")["provenance"]["model"] == "mine"


def test_a_function_with_the_wrong_signature_is_refused_before_the_first_row(small_build, tmp_path):
    called = []

    def one_argument(images):
        called.append(images)
        return "A"

    with pytest.raises(UserError, match=r"one_argument\(images\) cannot be called as model\(images, prompt\)"):
        dicobench.evaluate(small_build, one_argument, out=tmp_path / "run")
    with pytest.raises(UserError, match="cannot be called as model"):
        multipanelvqa.evaluate(tmp_path / "absent", lambda images, prompt, extra: "A")  # before any data loads
    assert called == [] and not (tmp_path / "run").exists()
    assert dicobench.evaluate(small_build, lambda *parts: "A", config="entity", limit=1)["n"] == 1  # it can take two


def test_progress_shows_by_default_where_a_terminal_is_attached(small_build, capsys, monkeypatch):
    dicobench.evaluate(small_build, my_model, limit=2)
    assert "dicobench eval" not in capsys.readouterr().err  # not a terminal: no bar
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    dicobench.evaluate(small_build, my_model, limit=2)
    assert "dicobench eval" in capsys.readouterr().err  # a terminal: the bar, as eval shows it
    dicobench.evaluate(small_build, my_model, limit=2, progress=False)
    assert "dicobench eval" not in capsys.readouterr().err


def test_a_run_that_reads_no_letter_from_any_reply_says_so(small_build, tmp_path, caplog):
    """The library warns through logging (a command shows it on stderr; so does Python without
    logging configured)."""
    caplog.set_level("WARNING", logger="dicobench")
    result = dicobench.evaluate(small_build, lambda images, prompt: "I think it is the cup.", config="entity",
                                out=tmp_path / "run")
    assert result["accuracy"] == 0.0 and result["unparsed_rate"] == 1.0
    said = caplog.text
    assert "no letter (A-E) could be read from any of the 2 replies (the first: 'I think it is the cup.')" in said
    assert str(tmp_path / "run" / PREDICTIONS) in said
    caplog.clear()
    dicobench.evaluate(small_build, lambda images, prompt: "The answer is (A).", config="entity")
    assert "could be read" not in caplog.text  # letters read: nothing to say
    write_multipanel(tmp_path / "mpv")
    multipanelvqa.evaluate(tmp_path / "mpv", lambda images, prompt: "???")
    assert "no answer could be read by the rules from any of the 3 replies" in caplog.text
