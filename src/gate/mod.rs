//! Deterministic gates: a shell command, its exit code and a classification; never an LLM.
