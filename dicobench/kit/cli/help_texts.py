"""The one-line help of each shared subcommand, which the subcommand list (`shared`) and the
subcommands' own parsers both show."""

HELP = {
    "push": "publish a built folder to the Hugging Face Hub",
    "info": "print what a built folder's or Hub repo's dataset card holds; --verify checks a build against it",
    "publish-metric": "publish the {benchmark.metric} evaluate module as a Hub metric repository",
    "preview": "draw a contact sheet of the first rows of a built folder",
    "review": "review every row of a build in the browser (accept / reject, with criteria), or browse a scored run's "
              "answers (--predictions)",
    "study": "measure human accuracy under a time limit in the browser",
    "human": "pool study sessions: accuracy against time limit (chart, table, JSON)",
    "report": "write one self-contained HTML page of scored runs (tables, charts, wrong answers)",
    "export": "write task files for lmms-eval or VLMEvalKit",
    "import": "turn another harness's outputs into a predictions file",
}
