//! Quality-command discovery: the lint, typecheck, test, build and CI commands a project really uses.
