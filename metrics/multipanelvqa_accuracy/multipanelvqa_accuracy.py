"""MultipanelVQA accuracy: a thin `evaluate` wrapper over `multipanelvqa.scoring.score`."""

import datasets
import evaluate

from dicobench.kit.eval.completeness import as_metric
from dicobench.kit.eval.judge import as_judge
from dicobench.kit.release.citations import MULTIPANELVQA as _CITATION
from multipanelvqa.scoring import score

_DESCRIPTION = """\
Accuracy on MultipanelVQA (questions about images made of 2-8 subfigures), per question.
Rules first (normalised exact match, yes/no, choices a-d, number words); with
`judge="openai:<model>"` the rule mismatches go to an LLM judge with the paper's prompts
(Appendix D). Rows the judge could not answer (`unjudged`) or the model did not (`failed`) are
unscored: the result is incomplete (`complete` False) and reports `accuracy_lower` (unscored
counted wrong) and `accuracy_upper` (counted right), with `accuracy` None. Judge replies are
cached on disk, so a rerun sends only what is still missing.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): the models' replies.
    references (`list` of `str`): the reference answers (yes/no, a short answer, or a letter a-d).
    questions (`list` of `str`): the questions asked (the judge sees them).
    question_types (`list` of `str` or `int`): "q1", "q2", "q3" (or ClassLabel indices 0-2).
    choices (`list` of `list` of `str`, optional): the four position descriptions of each Q3 row.
    augmentations (`list` of `str`, optional): adds `per_augmentation`.
    subsets (`list` of `str` or `int`, optional): "synthetic"/"real_world": adds `per_subset`.
    clusters (`list`, optional): rows sharing a key are resampled together for the CIs.
    failed (`list` of `bool`, optional): rows whose model call failed (unscored).
    layout_styles (`list` of `str` or `int`, optional): splash/grid_same/grid_mixed: adds `per_layout_style`.
    num_subfigures (`list` of `int`, optional): adds `per_num_subfigures` (the paper's Figure 5).
    sources (`list` of `str`, optional): adds `per_source`.
    ids (`list` of `str`, optional): the row ids; with `augmentations` (and `layout_styles`) they pair
        the same questions across configs for `factors` (the paper's Tables 3 and 4).
    factors (`list` of `str`, optional): the factors to compare (each must be present); default:
        every factor whose configs are present.
    controlled (`list` of `bool`, optional): rows kept by the paper's singles control: adds
        `controlled`, their accuracy (see multipanelvqa.singles).
    judge (`dicobench.kit.eval.judge.Judge` or `str`, optional): the judge of rule mismatches: a Judge,
        or a spec "openai:<model>" with the keyword form below (kept for compatibility):
    judge_base_url (`str`, optional): any OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp server).
    judge_api_key (`str`, optional): defaults to the OPENAI_API_KEY environment variable.
    cache_dir (`str`, optional): where judge replies are cached (default ~/.cache/dicobench/judge).
    judge_concurrency (`int`, defaults to 8), judge_timeout (`float`, seconds, defaults to 60).
    confidence (`float`, defaults to 0.95), n_boot (`int`, defaults to 2000), seed (`int`, defaults to 0).
Returns:
    complete, unscored, accuracy (None while incomplete, beside accuracy_lower and accuracy_upper),
    accuracy_ci, n, scored, failed, correct, rule_correct, rule_wrong, rule_undecided, judge,
    judged, unjudged, judge_usage, judge_errors, per_question_type, per_augmentation, per_subset,
    per_subset_question_type, per_layout_style, per_num_subfigures, per_source, factors (each: factor,
    base, variant, n, base_accuracy, variant_accuracy, delta, delta_ci, paired, unscored, complete).
Examples:
    >>> import multipanelvqa
    >>> metric = evaluate.load(multipanelvqa.METRIC)  # the module installed with the package
    >>> metric.compute(predictions=["Yes, all of them."], references=["yes"],
    ...                questions=["Do all subfigures show a cat?"], question_types=["q1"])["accuracy"]
    1.0
"""



def _features(question_type):
    return datasets.Features(
        {
            "predictions": datasets.Value("string"),
            "references": datasets.Value("string"),
            "questions": datasets.Value("string"),
            "question_types": question_type,
        }
    )


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MultipanelvqaAccuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # Question types as names, or as the dataset's `question_type` ClassLabel indices.
            features=[_features(datasets.Value("string")), _features(datasets.Value("int64"))],
            reference_urls=["https://sites.google.com/view/multipanelvqa/home"],
        )

    def _compute(self, predictions, references, questions, question_types, choices=None, augmentations=None,
                 subsets=None, clusters=None, failed=None, ids=None, layout_styles=None, num_subfigures=None,
                 sources=None, factors=None, controlled=None, judge=None, judge_base_url=None, judge_api_key=None,
                 cache_dir=None, judge_concurrency=None, judge_timeout=None, confidence=0.95, n_boot=2000, seed=0):
        judge = as_judge(judge, base_url=judge_base_url, api_key=judge_api_key, cache=cache_dir,
                         concurrency=judge_concurrency, timeout=judge_timeout)
        return as_metric(score(predictions, references, questions, question_types, judge, choices=choices,
                               augmentations=augmentations, subsets=subsets, clusters=clusters, failed=failed,
                               ids=ids, layout_styles=layout_styles, num_subfigures=num_subfigures, sources=sources,
                               factors=factors, controlled=controlled, confidence=confidence, n_boot=n_boot,
                               seed=seed))
