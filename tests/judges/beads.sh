# Judge rubrics for specs/beads.md (run with `vermas status --judge`).

test_bead_file_readable() {
  judge_files "crates/vermas-core/src/bead/model.rs" "README.md"
  judge_criterion "A bead file is plain markdown with YAML front matter that a person can read, diff and edit by hand: fields are written one per line in a fixed order, lists of notes and dependencies use one line per entry, and the README documents every field."
}
