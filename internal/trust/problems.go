package trust

import "fmt"

// A hook file with a problem (it does not parse, or an entry has a bad
// matcher or a field of the wrong type) loses some or all of its hooks,
// guards included; the bridges tell each session once, like a skip.

// ProblemNotice is a hook-file problem as the user sees it in the editor.
// problem names the file (and, where the parser gives them, the line and
// column) and what is wrong.
func ProblemNotice(dialect, problem string) string {
	return fmt.Sprintf("cordis found a problem in a %s hook file: %s. Until it is fixed, the hooks it concerns do not run as written; /doctor lists every hook problem.",
		dialectTitle(dialect), problem)
}

// problemKey identifies a problem among a session's notices; it cannot
// be mistaken for a skipped hook's key, which starts with a path.
func problemKey(dialect, problem string) string {
	return "\x00problem\x00" + dialect + "\x00" + problem
}

// PendingProblems reports whether any of the hook-file problems was not
// shown to session yet.
func (n *Notices) PendingProblems(session, dialect string, problems []string) bool {
	keys := make([]string, len(problems))
	for i, p := range problems {
		keys[i] = problemKey(dialect, p)
	}
	return n.pending(session, keys)
}

// TakeProblems returns the notices (ProblemNotice) of the problems not
// shown to session yet, and marks them shown.
func (n *Notices) TakeProblems(session, dialect string, problems []string) []string {
	keys := make([]string, len(problems))
	for i, p := range problems {
		keys[i] = problemKey(dialect, p)
	}
	var out []string
	for _, i := range n.take(session, keys) {
		out = append(out, ProblemNotice(dialect, problems[i]))
	}
	return out
}
