package claude

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
)

// TestClaudeConfigDir: without an explicit Home, the user's settings.json
// is read from $CLAUDE_CONFIG_DIR, as Claude Code does, and its hooks run
// with no trust needed.
func TestClaudeConfigDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", dir)
	t.Setenv("HOME", t.TempDir()) // ~/.claude is empty
	writeSettings(t, filepath.Join(dir, "settings.json"), map[hooks.Event][]groupSpec{
		hooks.UserPromptSubmit: {{Hooks: []hookSpec{cmd(`echo "from CLAUDE_CONFIG_DIR"`)}}},
	})
	b := New(Config{}, Options{})
	d, err := b.Run(context.Background(), &hooks.Input{Event: hooks.UserPromptSubmit, SessionID: "s", Cwd: t.TempDir(), Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(d.AdditionalContext, "\n"), "from CLAUDE_CONFIG_DIR") {
		t.Fatalf("decision %+v: the hook in $CLAUDE_CONFIG_DIR did not run", d)
	}
}
