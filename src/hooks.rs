//! git hooks: installing, removing and running the pre-push gate.
