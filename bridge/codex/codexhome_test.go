package codex

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
)

// TestCodexHome: without an explicit Home, the user layer is $CODEX_HOME,
// as in Codex, and a UserPromptSubmit hook declared there runs.
func TestCodexHome(t *testing.T) {
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	t.Setenv("HOME", t.TempDir()) // ~/.codex is empty: only CODEX_HOME can supply the hook
	writeFile(t, filepath.Join(codexHome, "hooks.json"), hooksJSON("UserPromptSubmit", "", `echo "from CODEX_HOME"`))

	b := New(Config{}, Options{Trust: trust.Open(t.TempDir()), Shell: []string{"sh", "-c"}})
	cwd := t.TempDir()
	d, err := b.Run(context.Background(), &hooks.Input{Event: hooks.UserPromptSubmit, SessionID: "s", Cwd: cwd, Prompt: "hi", TurnID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(d.AdditionalContext, "\n"), "from CODEX_HOME") {
		t.Fatalf("decision %+v: the hook in $CODEX_HOME did not run", d)
	}
}
