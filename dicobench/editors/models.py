"""Model backends for photo edits: a pixel editor (`--editor diffusers:<id>`, or any kind in
`dicobench.editors.registry.EDITOR_KINDS`),
LLM-written instructions (`--instructions openai:<model>`) and a VLM check of each edit
(`--verify openai:<model>`).

`ModelOptions` is what the build records (it says how the bytes were made: never a key);
`Backends` are the opened models, once per worker process and shard. The edit op that uses
them is `dicobench.editors.photo.instructed`. Nothing heavy is imported until a backend is opened.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from dicobench.editors.registry import EDITOR_KINDS, EditorKind, PixelEditor, editor_usages
from dicobench.kit.errors import UserError

TEMPLATE = "template"


@dataclass(frozen=True)
class ModelOptions:
    editor: str | None = None  # "diffusers:<model id or folder>" (an `EDITOR_KINDS` spec)
    instructions: str = TEMPLATE  # or "openai:<model>"
    verify: str | None = None  # "openai:<model>"
    edit_steps: int | None = None  # the editor's denoising steps (default: its pipeline's usual)
    edit_size: int | None = None  # the long side it edits at (default: its pipeline's native size)

    def check(self) -> None:
        """Refuse malformed specs before any work starts (one clear line each)."""
        if self.editor is not None and EDITOR_KINDS.for_spec(self.editor) is None:
            raise UserError(f"unknown editor {self.editor!r}; expected {editor_usages()}")
        for flag, value in (("--edit-steps", self.edit_steps), ("--edit-size", self.edit_size)):
            if value is not None and (self.editor is None or value <= 0):
                raise UserError(f"{flag} must be a positive number and needs --editor")
        if self.instructions != TEMPLATE:
            _model("--instructions", self.instructions)
        if self.verify is not None:
            _model("--verify", self.verify)
        if self.instructions != TEMPLATE and self.editor is None:
            raise UserError("--instructions openai:<model> writes instructions for an editor: "
                            "give --editor diffusers:<model-id>")

    @property
    def uses_llm(self) -> bool:
        return self.instructions != TEMPLATE or self.verify is not None


def _model(flag: str, spec: str) -> str:
    provider, _, model = spec.partition(":")
    if provider != "openai" or not model:
        raise UserError(f"unknown {flag} {spec!r}; expected openai:<model>")
    return model


@dataclass(frozen=True)
class Endpoint:
    """Where the LLM backends are reached: not recorded (a resumed build may use another
    server for the same model), and the key never leaves memory."""

    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)


@dataclass
class Backends:
    """The opened models of one shard; any of them may be absent."""

    editor: PixelEditor | None = None  # e.g. a dicobench.editors.photo.diffusers_editor.InpaintEditor
    writer: object | None = None  # a dicobench.editors.instructions.InstructionGenerator
    verifier: object | None = None  # a dicobench.editors.instructions.EditVerifier
    options: ModelOptions = ModelOptions()

    def made_by(self, task: str) -> str:
        """The rows' `generator` words for an instructed edit."""
        return f"{task} edits by {self.editor.name} from {self.options.instructions} instructions"

    def verified_by(self) -> str:
        return f"; verified by {self.options.verify}" if self.verifier is not None else ""

    def close(self) -> None:
        for part in (self.writer, self.verifier):
            if part is not None:
                part.client.close()


@functools.lru_cache(maxsize=1)
def _editor(kind: EditorKind, rest: str, steps: int | None, size: int | None) -> PixelEditor:
    """One editor per process: loading a pipeline takes far longer than a shard (keyed by the
    kind too: a kind registered later under the same prefix opens its own editor)."""
    return kind.open(rest, steps, size)


def open_backends(models: ModelOptions, endpoint: Endpoint, cache_dir: Path | None) -> Backends:
    """The models `models` asks for; LLM replies are cached under `cache_dir`, so a rerun of
    the same shard sends nothing and writes the same bytes."""
    from dicobench.editors.instructions import EditVerifier, InstructionGenerator
    from dicobench.kit.eval.chat import ChatClient

    def client(flag, spec):
        return ChatClient(_model(flag, spec), base_url=endpoint.base_url, api_key=endpoint.api_key,
                          cache_dir=cache_dir)

    backends = Backends(options=models)
    if models.editor:
        backends.editor = _editor(EDITOR_KINDS.for_spec(models.editor), models.editor.partition(":")[2],
                                  models.edit_steps, models.edit_size)
    if models.instructions != TEMPLATE:
        backends.writer = InstructionGenerator(client("--instructions", models.instructions))
    if models.verify:
        backends.verifier = EditVerifier(client("--verify", models.verify))
    return backends
