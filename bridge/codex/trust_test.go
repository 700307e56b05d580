package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
)

// trustProject does what `cordis hooks trust --cwd` does.
func (e *env) trustProject() {
	e.t.Helper()
	found := Discover(e.cwd)
	if len(found) != 1 {
		e.t.Fatalf("Discover(%s) = %+v, want the project file", e.cwd, found)
	}
	if err := e.store.Trust(found[0]); err != nil {
		e.t.Fatal(err)
	}
}

// TestTrust: an untrusted project hook is skipped and reported (once per
// session, in Problems); after `cordis hooks trust` it runs; editing its
// command makes it untrusted again.
func TestTrust(t *testing.T) {
	e := newEnv(t, envOpts{})
	blocker := emit(t, "block", "UserPromptSubmit")
	writeFile(t, e.projectFile(), hooksJSON("UserPromptSubmit", "", blocker))

	d, _ := e.run(e.baseInput(hooks.UserPromptSubmit))
	if d.Block {
		t.Fatal("an untrusted project hook ran")
	}
	if len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "not trusted") ||
		!strings.Contains(d.SystemMessages[0], blocker) || !strings.Contains(d.SystemMessages[0], "cordis hooks trust --cwd "+e.cwd) {
		t.Errorf("report = %q", d.SystemMessages)
	}
	if p := e.bridge.Problems(); len(p) != 1 || !strings.Contains(p[0], "not trusted") || !strings.Contains(p[0], blocker) {
		t.Errorf("Problems() = %q", p)
	}
	// Once per session...
	if d, _ := e.run(e.baseInput(hooks.UserPromptSubmit)); d.Block || len(d.SystemMessages) != 0 {
		t.Errorf("second prompt: %+v", d)
	}
	// ...and again in another session.
	other := e.baseInput(hooks.UserPromptSubmit)
	other.SessionID = "sess-2"
	if d, _ := e.run(other); len(d.SystemMessages) != 1 {
		t.Errorf("other session: %+v", d)
	}

	e.trustProject()
	d, _ = e.run(e.baseInput(hooks.UserPromptSubmit))
	if !d.Block || d.Reason != "blocked because" || len(d.SystemMessages) != 0 {
		t.Errorf("after trust: %+v", d)
	}
	if p := e.bridge.Problems(); len(p) != 0 {
		t.Errorf("Problems() after trust = %q", p)
	}

	// Editing the command makes it untrusted again (reported to a session
	// that already saw the old hook reported).
	edited := emit(t, "exit2", "UserPromptSubmit")
	writeFile(t, e.projectFile(), hooksJSON("UserPromptSubmit", "", edited))
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(e.projectFile(), future, future)
	d, _ = e.run(e.baseInput(hooks.UserPromptSubmit))
	if d.Block {
		t.Fatal("an edited hook ran without being trusted again")
	}
	if len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "changed since it was trusted") || !strings.Contains(d.SystemMessages[0], edited) {
		t.Errorf("report = %q", d.SystemMessages)
	}
	e.trustProject()
	if d, _ := e.run(e.baseInput(hooks.UserPromptSubmit)); !d.Block || d.Reason != "stderr reason" {
		t.Errorf("after trusting the edit: %+v", d)
	}
}

// TestTrustReportedAtFirstTurn: hooks skipped before any turn (SessionStart
// runs at session/new) are reported at the session's first turn.
func TestTrustReportedAtFirstTurn(t *testing.T) {
	e := newEnv(t, envOpts{})
	writeFile(t, e.projectFile(), `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "`+emit(t, "context", "SessionStart")+`"}]}],
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "`+emit(t, "deny", "PreToolUse")+`"}]}]
	}}`)
	if d, _ := e.run(e.baseInput(hooks.SessionStart)); len(d.SystemContext)+len(d.SystemMessages) != 0 {
		t.Errorf("SessionStart: %+v", d)
	}
	d, _ := e.run(e.baseInput(hooks.UserPromptSubmit))
	if len(d.SystemMessages) != 2 || !strings.Contains(d.SystemMessages[0], "SessionStart") || !strings.Contains(d.SystemMessages[1], "PreToolUse [Bash]") {
		t.Errorf("first turn reports %q", d.SystemMessages)
	}
	if d, _ := e.run(e.baseInput(hooks.PreToolUse)); d.Permission != "" || len(d.SystemMessages) != 0 {
		t.Errorf("PreToolUse: %+v", d)
	}
}

// TestTrustWithoutStore: with nowhere to keep trust, project hooks never
// run, and the report says why.
func TestTrustWithoutStore(t *testing.T) {
	e := newEnv(t, envOpts{noTrust: true})
	writeFile(t, e.projectFile(), hooksJSON("UserPromptSubmit", "", emit(t, "block", "UserPromptSubmit")))
	d, _ := e.run(e.baseInput(hooks.UserPromptSubmit))
	if d.Block || len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "no state directory") {
		t.Errorf("%+v", d)
	}
}

// TestHomeProjectIsUserFile: in the home directory the project file is the
// user file, which needs no trust.
func TestHomeProjectIsUserFile(t *testing.T) {
	e := newEnv(t, envOpts{})
	writeFile(t, e.userFile(), hooksJSON("UserPromptSubmit", "", emit(t, "block", "UserPromptSubmit")))
	in := e.baseInput(hooks.UserPromptSubmit)
	in.Cwd = e.home
	if d, _ := e.run(in); !d.Block || len(d.SystemMessages) != 0 {
		t.Errorf("%+v", d)
	}
	if ds := discoverIn(e.home, e.home); len(ds) != 0 {
		t.Errorf("Discover(home) = %+v", ds)
	}
}

func discoverIn(home, cwd string) []trust.Discovered {
	b := New(Config{}, Options{Home: home})
	var out []trust.Discovered
	for _, l := range b.dialect.Layers(cwd) {
		if l.Project {
			out = append(out, trust.Discovered{Path: l.Path})
		}
	}
	return out
}

func TestDiscover(t *testing.T) {
	cwd := t.TempDir()
	if got := Discover(cwd); len(got) != 0 {
		t.Errorf("no file: %+v", got)
	}
	path := filepath.Join(cwd, ".codex", "hooks.json")
	writeFile(t, path, `{"hooks": {"Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "a"}, {"type": "prompt"}]}]}}`)
	got := Discover(cwd)
	if len(got) != 1 || got[0].Path != path || got[0].Dialect != "codex" || len(got[0].Hooks) != 1 || len(got[0].Problems) != 1 {
		t.Fatalf("Discover = %+v", got)
	}
	h := got[0].Hooks[0]
	if h != (trust.Hook{Dialect: "codex", Source: path, Event: "Stop", Matcher: "x", Type: "command", Command: "a"}) {
		t.Errorf("hook %+v", h)
	}
}

func TestDoctor(t *testing.T) {
	e := newEnv(t, envOpts{})
	if got := e.bridge.Doctor(e.cwd); len(got) != 0 {
		t.Errorf("no files: %q", got)
	}
	writeFile(t, e.userFile(), hooksJSON("Stop", "", "true"))
	writeFile(t, e.projectFile(), hooksJSON("PreToolUse", "Bash", "./check.sh"))
	got := e.bridge.Doctor(e.cwd)
	if len(got) != 2 || got[0] != "✓ Codex hooks "+e.userFile()+" (1 hooks)" ||
		!strings.HasPrefix(got[1], "✗ Codex hooks "+e.projectFile()+": skipped, not trusted: PreToolUse [Bash]: ./check.sh") {
		t.Errorf("Doctor = %q", got)
	}
	e.trustProject()
	if got := e.bridge.Doctor(e.cwd); len(got) != 2 || !strings.HasPrefix(got[1], "✓ Codex hooks "+e.projectFile()) {
		t.Errorf("Doctor after trust = %q", got)
	}
}
