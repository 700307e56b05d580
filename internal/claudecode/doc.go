// Package claudecode is Claude Code's setup on disk: where its settings,
// commands, skills and custom subagents live, the user's and the
// project's, with the user's folder following $CLAUDE_CONFIG_DIR as
// Claude Code does. It returns them as internal/setup sources, in Claude
// Code's precedence, for cmd/cordis to hand to the loop and the built-in
// hooks, which then read a team's Claude Code setup without naming it.
//
// A leaf package: it imports nothing of cordis but internal/setup. It
// reads no file and no environment of its own (the caller passes getenv).
package claudecode
