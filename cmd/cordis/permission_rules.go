package main

import (
	"os"
	"path/filepath"

	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop"
)

// wirePermissionRules gives the built-in permission-rules hook Claude
// Code's settings files to read rules from (the user's, trusted, and the
// project's, whose allow rules count once trusted in the state directory's
// trust store), and the loop the way to keep an "Always allow" answer: in
// the project's .claude/settings.local.json, trusted in the same store.
func wirePermissionRules(opts *builtin.Options, out *loop.Config, stateDir, home string) {
	rules := permrules.Trust{Store: trust.Open(stateDir)}
	opts.ClaudeDir = claudeUserDir(home)
	opts.TrustedRule = rules.Trusted
	out.SavePermissionRule = rules.SaveAllow
}

// claudeUserDir is Claude Code's user folder: $CLAUDE_CONFIG_DIR when set
// (as Claude Code and the bridges read it), else ~/.claude; "" without a
// home directory.
func claudeUserDir(home string) string {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return dir
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}
