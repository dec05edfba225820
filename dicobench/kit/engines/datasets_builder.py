"""What both benchmarks' `datasets` builders share: a build config named as a dataset config,
validated before any row is made, with the splits its source keeps apart."""

from __future__ import annotations

import datasets

from dicobench.kit.engines.config import unrecorded_names
from dicobench.kit.errors import UserError


class NamedConfig:
    """Mixin of a `datasets.BuilderConfig` that is also a build config."""

    def create_config_id(self, config_kwargs: dict, custom_features=None) -> str:
        """The cache folder's name: `datasets` spells short kwargs out, so a run setting, an endpoint
        or a key is named there as given, never by its value."""
        hidden = unrecorded_names(type(self))
        named = {k: "given" if k in hidden else v for k, v in config_kwargs.items()}
        return super().create_config_id(named, custom_features)


class ConfigBuilder(datasets.GeneratorBasedBuilder):
    """A builder of one benchmark: `_info` from its features, and a split generator for each
    split `splits(config)` gives; what only a built folder can hold is refused in one line."""

    COMMAND: str  # the command that builds what the builder refuses
    DESCRIPTION: str
    LICENSE: str | None = None

    def features(self) -> datasets.Features:
        raise NotImplementedError

    def splits(self) -> tuple[str, ...]:
        raise NotImplementedError

    def needs_a_folder(self) -> str | None:
        """The flags of the config that keep annotations or model replies beside a build, if any."""
        raise NotImplementedError

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=self.DESCRIPTION, features=self.features(), license=self.LICENSE)

    def _split_generators(self, dl_manager):
        self.config.validate()
        flags = self.needs_a_folder()
        if flags:
            raise UserError(f"the datasets builder keeps no annotations or LLM replies beside a build: use "
                            f"{self.COMMAND} for {flags}")
        return [datasets.SplitGenerator(name=split, gen_kwargs={"split": split}) for split in self.splits()]
