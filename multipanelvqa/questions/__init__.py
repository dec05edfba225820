"""The questions of a multipanel image: from the common question, or from an LLM."""
