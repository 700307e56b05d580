package e2e_test

// Trust of Claude Code project hooks through full turns: the bridge on
// the standard files (as the shipped cordis.yml loads it) plus one on an
// explicit path, with a trust store, as cmd/cordis assembles them.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// TestClaudeProjectHookTrust: an untrusted project hook is skipped and the
// skip is shown in the editor once per session (and by /doctor) while
// the user-level and explicit-path hooks run; after trusting it runs; an
// edit makes it untrusted again.
func TestClaudeProjectHookTrust(t *testing.T) {
	home, store := t.TempDir(), trust.Open(t.TempDir())
	contextHook := func(text string) string {
		return `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo '` + text + `'"}]}]}}`
	}
	writeFile := func(path, data string, ahead time.Duration) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		future := time.Now().Add(ahead)
		os.Chtimes(path, future, future)
	}
	writeFile(filepath.Join(home, ".claude", "settings.json"), contextHook("context from the user file"), 0)
	explicit := filepath.Join(t.TempDir(), "team-hooks.json")
	writeFile(explicit, contextHook("context from the explicit file"), 0)

	p := hooks.NewPipeline()
	standard := claude.New(claude.Config{}, claude.Options{Name: "claude-hooks", Home: home, Trust: store})
	standard.Register(p)
	claude.New(claude.Config{Path: explicit}, claude.Options{Name: "team-hooks", Trust: store}).Register(p)
	h := looptest.NewHarness(t, looptest.Options{Hooks: p, Config: func(c *loop.Config) { c.Doctor = standard.Doctor }},
		looptest.ReplyText("one"), looptest.ReplyText("two"), looptest.ReplyText("four"))

	project := filepath.Join(h.Cwd, ".claude", "settings.json")
	write := func(reason string, ahead time.Duration) {
		t.Helper()
		writeFile(project, `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"`+reason+`\"}'"}]}]}}`, ahead)
	}
	write("blocked by project", time.Second)
	sid := h.NewSession()
	const skipped = "cordis skipped a Claude project hook that is not trusted"

	h.Prompt(sid, "first")
	text := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, skipped) || !strings.Contains(text, project) || !strings.Contains(text, "cordis hooks trust --cwd "+h.Cwd) {
		t.Fatalf("the skip was not shown: %q", text)
	}
	if strings.Contains(text, "Prompt blocked") || len(h.Model.Requests()) != 1 {
		t.Fatalf("the untrusted hook ran: %q", text)
	}
	msgs := jsonOf(h.Model.Requests()[0]["messages"])
	if !strings.Contains(msgs, "context from the user file") || !strings.Contains(msgs, "context from the explicit file") {
		t.Fatalf("the user-level and explicit hooks did not run: %s", msgs)
	}

	h.Prompt(sid, "/doctor")
	if text := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(text, "✗ Claude hooks "+project+": skipped, not trusted") {
		t.Errorf("/doctor does not list the skipped hook: %q", text)
	}

	h.Prompt(sid, "second")
	if n := strings.Count(looptest.AgentText(h.Editor.Updates(sid)), skipped); n != 1 {
		t.Fatalf("the skip was shown %d times in one session", n)
	}
	if len(h.Model.Requests()) != 2 {
		t.Fatalf("%d requests, want 2", len(h.Model.Requests()))
	}

	// What `cordis hooks trust --cwd` does.
	found := claude.Discover(h.Cwd)
	if len(found) != 1 || found[0].Path != project {
		t.Fatalf("Discover = %+v", found)
	}
	if err := store.Trust(found[0]); err != nil {
		t.Fatal(err)
	}
	h.Prompt(sid, "third")
	if text := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(text, "Prompt blocked by a hook: blocked by project") {
		t.Fatalf("the trusted hook did not run: %q", text)
	}
	if len(h.Model.Requests()) != 2 {
		t.Fatalf("the blocked prompt reached the model")
	}

	write("blocked by an edited project hook", 3*time.Second)
	h.Prompt(sid, "fourth")
	text = looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, "cordis skipped a Claude project hook that is changed since it was trusted") || len(h.Model.Requests()) != 3 {
		t.Fatalf("the edited hook was not skipped and reported: %q (%d requests)", text, len(h.Model.Requests()))
	}
	if strings.Contains(text, "Prompt blocked by a hook: blocked by an edited project hook") {
		t.Fatalf("the edited hook ran: %q", text)
	}
}
