// Package udiff renders the difference between two texts as a unified
// diff (the `diff -u` format, three lines of context), for test failures
// and replay mismatches that a person has to read.
//
//	fmt.Print(udiff.Unified("expected/stdout.jsonl", "actual", want, got))
//
// Lines are compared whole; a missing final newline is shown as
// "\ No newline at end of file". Equal texts give "". The common prefix and
// suffix are trimmed first and the middle is aligned with a longest common
// subsequence; a middle too large to align cheaply is shown as one
// replacement hunk, which is still correct, only less tidy.
//
// Lines and Hunks expose the edit script and its grouping, so other
// formats (the Codex bridge's apply_patch envelopes) share the algorithm.
//
// Functions are pure and safe for concurrent use.
package udiff
