// Package codexsetup is where Codex keeps the parts of a team's setup
// that cordis reads besides its hooks (bridge/codex reads those): today
// its skill roots, as neutral setup.Source lists for cmd/cordis to hand
// to the loop beside Claude Code's (internal/claudecode).
//
// It holds no state: its functions are safe for concurrent use.
package codexsetup
