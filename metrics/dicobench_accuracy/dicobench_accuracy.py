"""DiCoBench accuracy: a thin `evaluate` wrapper over `dicobench.scoring.score`."""

import datasets
import evaluate

from dicobench.kit.eval.completeness import as_metric
from dicobench.kit.eval.judge import as_judge
from dicobench.kit.release.citations import DICOBENCH as _CITATION
from dicobench.scoring import reference_letter, score

_DESCRIPTION = """\
Accuracy on DiCoBench (multi-image fine-grained perception, 5-option multiple choice A-E).
The chosen letter is read from free-form replies without guessing (unreadable replies count as
wrong and are reported as `unparsed_rate`); `strict_accuracy` follows the paper's protocol
(the reply is one letter). Also: per-task and per-track accuracy, E-option rate and
precision/recall/F1, and confidence intervals from a cluster bootstrap.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): the models' replies, free-form.
    references (`list` of `str` or `int`): the correct letters, "A" to "E", or the dataset's
        `answer` ClassLabel indices 0-4.
    tasks (`list` of `str`, optional): the task of each row (names or ClassLabel indices): adds
        `per_task` and `per_track`.
    options (`list` of `list` of `str`, optional): each row's five option texts, so that a reply
        quoting an option's text is read.
    clusters (`list`, optional): a key per row (e.g. its base scene); rows sharing a key are
        resampled together for the confidence intervals.
    failed (`list` of `bool`, optional): rows whose model call failed. A result with any is
        incomplete: `complete` is False, `unscored` counts them, and `accuracy_lower` /
        `accuracy_upper` (them counted wrong / right) replace `accuracy`.
    judge (`dicobench.kit.eval.judge.Judge` or `str`, optional): classify each wrong answer into the
        paper's error types (needs questions, options and cue_labels: each row's cue label texts). A
        spec "openai:<model>" takes judge_base_url, judge_api_key, cache_dir, judge_concurrency and
        judge_timeout as for the MultipanelVQA metric (the keyword form, kept for compatibility).
    confidence (`float`, defaults to 0.95), n_boot (`int`, defaults to 2000), seed (`int`, defaults to 0):
        the bootstrap's settings.
Returns:
    complete, unscored, accuracy (None while incomplete, beside accuracy_lower and accuracy_upper: the
    unscored rows counted wrong, then right; the same for strict_accuracy and task_mean_accuracy),
    accuracy_ci, strict_accuracy, strict_accuracy_ci, task_mean_accuracy, unparsed_rate,
    e_rate, e_reference_rate, e_precision, e_recall, e_f1, error_types (counts of missed_cue,
    ex_nihilo, wrong_option, unparsed overall and per task), judge_error_types (with a judge),
    per_task, per_track, n, n_clusters,
    confidence, ci_method.
Examples:
    >>> import dicobench
    >>> metric = evaluate.load(dicobench.METRIC)  # the module installed with the package
    >>> metric.compute(predictions=["The answer is (B).", "E"], references=["B", "A"])["accuracy"]
    0.5
"""



@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DicobenchAccuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # References as letters, or as the dataset's `answer` ClassLabel indices.
            features=[
                datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
                datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("int64")}),
            ],
            reference_urls=["https://arxiv.org/abs/2606.26602"],
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch (references read as letters first: see `add`)."""
        letters = None if references is None else [reference_letter(r) for r in references]
        return super().add_batch(predictions=predictions, references=letters, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one row. References become letters before `evaluate` picks a feature format: there,
        letters mixed with indices, or a value that is neither, would fail as "invalid literal for
        int()" without naming the value."""
        return super().add(prediction=prediction,
                           reference=None if reference is None else reference_letter(reference), **kwargs)

    def _compute(self, predictions, references, tasks=None, options=None, clusters=None, failed=None, judge=None,
                 questions=None, cue_labels=None, judge_base_url=None, judge_api_key=None, cache_dir=None,
                 judge_concurrency=None, judge_timeout=None, confidence=0.95, n_boot=2000, seed=0):
        judge = as_judge(judge, base_url=judge_base_url, api_key=judge_api_key, cache=cache_dir,
                         concurrency=judge_concurrency, timeout=judge_timeout)
        return as_metric(score(predictions, references, tasks, options, clusters, failed=failed, judge=judge,
                               questions=questions, cue_labels=cue_labels, confidence=confidence, n_boot=n_boot,
                               seed=seed))
