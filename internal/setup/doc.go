// Package setup names where an agent's setup lives on disk as sources: a
// folder or file that is either the user's (an absolute path) or a
// project's (a path relative to the project directory). The loop and the
// built-in hooks read the sources they are given and never know whose
// layout they follow; cmd/cordis gives them cordis's own (CordisCommands)
// and Claude Code's (internal/claudecode).
//
// A leaf package: it imports nothing of cordis. Values are immutable and
// safe to share between goroutines.
package setup
