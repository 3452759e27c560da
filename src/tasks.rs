//! `[VERIFY]` task items: run their commands in order and report VERIFICATION_PASS or _FAIL.
