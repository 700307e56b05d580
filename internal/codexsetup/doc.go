// Package codexsetup is where Codex keeps the parts of a team's setup
// that cordis reads besides its hooks (bridge/codex reads those): its
// user folder ($CODEX_HOME, else ~/.codex), its skill roots and the
// folder of its saved prompts, as neutral setup.Source lists for
// cmd/cordis to hand to the loop beside Claude Code's
// (internal/claudecode), and the MCP servers and trusted projects of a
// config.toml (decoded with github.com/pelletier/go-toml/v2), which
// cmd/cordis turns into the session's servers.
//
// It holds no state and reads no file itself: its functions are safe for
// concurrent use, and a Config is immutable once parsed.
package codexsetup
