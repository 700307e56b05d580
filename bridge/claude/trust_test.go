package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
)

// turnInput is inputFor(ev, cwd) inside a turn of session sid (where the
// bridge reports skipped hooks).
func turnInput(ev hooks.Event, cwd, sid string) *hooks.Input {
	in := inputFor(ev, cwd)
	in.SessionID, in.TurnID = sid, "turn_1"
	return in
}

// touch gives path a modification time of its own, so that an edit of the
// same size is seen.
func touch(t *testing.T, path string, ahead time.Duration) {
	t.Helper()
	future := time.Now().Add(ahead)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
}

func blockGroup(reason string) []groupSpec {
	return []groupSpec{{Hooks: []hookSpec{cmd(`cat >/dev/null; echo '{"decision":"block","reason":"` + reason + `"}'`)}}}
}

// TestProjectHookTrust: an untrusted project hook is skipped and reported
// (once per session, and in Problems); after `cordis hooks trust` it runs;
// editing its command makes it untrusted again.
func TestProjectHookTrust(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	project := filepath.Join(cwd, ".claude", "settings.json")
	writeSettings(t, project, map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: blockGroup("blocked by project")})
	b, _ := standardBridge(t, home)
	ctx := context.Background()

	in := turnInput(hooks.UserPromptSubmit, cwd, "s1")
	if !b.Applies(in) {
		t.Fatal("Applies = false with a skip to report")
	}
	d, err := b.Run(ctx, in)
	if err != nil || d.Block {
		t.Fatalf("an untrusted project hook ran: %+v, %v", d, err)
	}
	if len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "cordis skipped a Claude project hook that is not trusted") ||
		!strings.Contains(d.SystemMessages[0], "blocked by project") || !strings.Contains(d.SystemMessages[0], project) ||
		!strings.Contains(d.SystemMessages[0], "cordis hooks trust --cwd "+cwd) {
		t.Errorf("report = %q", d.SystemMessages)
	}
	if p := b.Problems(); len(p) != 1 || !strings.HasPrefix(p[0], project+": skipped, not trusted: UserPromptSubmit: ") {
		t.Errorf("Problems() = %q", p)
	}
	// Once per session...
	if b.Applies(in) {
		t.Error("Applies = true with nothing left to do")
	}
	if d, _ := b.Run(ctx, in); d.Block || len(d.SystemMessages) != 0 {
		t.Errorf("second prompt: %+v", d)
	}
	// ...and again in another session.
	if d, _ := b.Run(ctx, turnInput(hooks.UserPromptSubmit, cwd, "s2")); len(d.SystemMessages) != 1 {
		t.Errorf("other session: %+v", d)
	}

	trustProject(t, b, cwd)
	if d, _ := b.Run(ctx, in); !d.Block || d.Reason != "blocked by project" || len(d.SystemMessages) != 0 {
		t.Errorf("after trust: %+v", d)
	}
	if p := b.Problems(); len(p) != 0 {
		t.Errorf("Problems() after trust = %q", p)
	}

	// Editing the command makes it untrusted again, reported to a session
	// that was already told about the old one.
	writeSettings(t, project, map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: blockGroup("edited block")})
	touch(t, project, 2*time.Second)
	d, _ = b.Run(ctx, in)
	if d.Block {
		t.Fatal("an edited hook ran without being trusted again")
	}
	if len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "changed since it was trusted") || !strings.Contains(d.SystemMessages[0], "edited block") {
		t.Errorf("report = %q", d.SystemMessages)
	}
	trustProject(t, b, cwd)
	if d, _ := b.Run(ctx, in); !d.Block || d.Reason != "edited block" {
		t.Errorf("after trusting the edit: %+v", d)
	}
}

// TestLocalSettingsNeedTrustToo: settings.local.json is a project file as
// well; the user's file runs meanwhile, and the report comes with its
// decision.
func TestLocalSettingsNeedTrustToo(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeSettings(t, filepath.Join(home, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("user")})
	local := filepath.Join(cwd, ".claude", "settings.local.json")
	writeSettings(t, local, map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("local")})
	b, _ := standardBridge(t, home)
	d, err := b.Run(context.Background(), turnInput(hooks.UserPromptSubmit, cwd, "s1"))
	if err != nil || len(d.AdditionalContext) != 1 || d.AdditionalContext[0] != "user" {
		t.Fatalf("%+v, %v", d, err)
	}
	if len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], local) {
		t.Errorf("report = %q", d.SystemMessages)
	}
	trustProject(t, b, cwd)
	d, _ = b.Run(context.Background(), turnInput(hooks.UserPromptSubmit, cwd, "s1"))
	if strings.Join(d.AdditionalContext, ",") != "user,local" || len(d.SystemMessages) != 0 {
		t.Errorf("after trust: %+v", d)
	}
}

// TestSkipsReportedAtFirstTurn: hooks skipped outside a turn (SessionStart
// at session/new) are reported at the session's first turn, every
// untrusted hook of the files at once, whatever its event; SessionEnd
// forgets the session.
func TestSkipsReportedAtFirstTurn(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeSettings(t, filepath.Join(cwd, ".claude", "settings.json"), map[hooks.Event][]groupSpec{
		hooks.SessionStart: echoGroup("start"),
		hooks.PreToolUse:   {{Matcher: "Bash", Hooks: []hookSpec{cmd("exit 2")}}},
	})
	b, _ := standardBridge(t, home)
	ctx := context.Background()
	start := inputFor(hooks.SessionStart, cwd)
	if b.Applies(start) {
		t.Error("SessionStart: Applies with nothing to run or show")
	}
	if d, _ := b.Run(ctx, start); !isZero(d) {
		t.Errorf("SessionStart: %+v", d)
	}
	d, _ := b.Run(ctx, turnInput(hooks.UserPromptSubmit, cwd, start.SessionID))
	if len(d.SystemMessages) != 2 || !strings.Contains(d.SystemMessages[0], "PreToolUse [Bash]: exit 2") || !strings.Contains(d.SystemMessages[1], "SessionStart: ") {
		t.Errorf("first turn reports %q", d.SystemMessages)
	}
	if d, _ := b.Run(ctx, turnInput(hooks.PreToolUse, cwd, start.SessionID)); d.Block || d.Permission != hooks.NoOpinion || len(d.SystemMessages) != 0 {
		t.Errorf("PreToolUse: %+v", d)
	}
	end := inputFor(hooks.SessionEnd, cwd)
	if !b.Applies(end) {
		t.Error("SessionEnd: Applies is false with a session's notices to forget")
	}
	b.Run(ctx, end)
	if d, _ := b.Run(ctx, turnInput(hooks.UserPromptSubmit, cwd, start.SessionID)); len(d.SystemMessages) != 2 {
		t.Errorf("after SessionEnd the session was not forgotten: %q", d.SystemMessages)
	}
}

// TestUserAndExplicitFilesNeedNoTrust: ~/.claude/settings.json, a file
// named by path in cordis.yml and, in the home directory, the .claude
// files run without trust, even with no store at all.
func TestUserAndExplicitFilesNeedNoTrust(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, filepath.Join(home, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: blockGroup("user")})
	writeSettings(t, filepath.Join(home, ".claude", "settings.local.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("home local")})
	b := New(Config{}, Options{Home: home})
	for _, cwd := range []string{t.TempDir(), home} {
		d, err := b.Run(context.Background(), turnInput(hooks.UserPromptSubmit, cwd, "s1"))
		if err != nil || !d.Block || d.Reason != "user" || len(d.SystemMessages) != 0 {
			t.Errorf("cwd %s: %+v, %v", cwd, d, err)
		}
		if cwd == home && (len(d.AdditionalContext) != 1 || d.AdditionalContext[0] != "home local") {
			t.Errorf("home settings.local.json did not run: %+v", d)
		}
	}
	if ds := discover(filepath.Join(home, ".claude"), home, home); len(ds) != 0 {
		t.Errorf("discover(home) = %+v", ds)
	}

	// An explicit path inside a project's .claude folder is still named
	// by the user.
	cwd := t.TempDir()
	path := filepath.Join(cwd, ".claude", "settings.json")
	writeSettings(t, path, map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: blockGroup("explicit")})
	eb := New(Config{Path: path}, Options{})
	if d, err := eb.Run(context.Background(), turnInput(hooks.UserPromptSubmit, cwd, "s1")); err != nil || !d.Block || d.Reason != "explicit" || len(d.SystemMessages) != 0 {
		t.Errorf("explicit path: %+v, %v", d, err)
	}
	if p := eb.Problems(); len(p) != 0 {
		t.Errorf("explicit path problems: %q", p)
	}
}

// TestTrustWithoutStore: with nowhere to keep trust, project hooks never
// run, and the report says why.
func TestTrustWithoutStore(t *testing.T) {
	cwd := t.TempDir()
	writeSettings(t, filepath.Join(cwd, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: blockGroup("x")})
	b := New(Config{}, Options{Home: t.TempDir()})
	d, _ := b.Run(context.Background(), turnInput(hooks.UserPromptSubmit, cwd, "s1"))
	if d.Block || len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "no state directory") {
		t.Errorf("%+v", d)
	}
}

// TestDisabledProjectReportsNothing: with disableAllHooks nothing runs, so
// nothing is reported as skipped.
func TestDisabledProjectReportsNothing(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeSettings(t, filepath.Join(cwd, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: blockGroup("x")})
	os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"), []byte(`{"disableAllHooks": true}`), 0o644)
	b, _ := standardBridge(t, home)
	if in := turnInput(hooks.UserPromptSubmit, cwd, "s1"); b.Applies(in) {
		t.Error("Applies with every hook disabled")
	}
}

// TestTrustIdentity: what the trust of a hook covers.
func TestTrustIdentity(t *testing.T) {
	parse := func(h hookSpec) trust.Hook {
		t.Helper()
		path := filepath.Join(t.TempDir(), "settings.json")
		writeSettings(t, path, map[hooks.Event][]groupSpec{hooks.PreToolUse: {{Matcher: "Bash", Hooks: []hookSpec{h}}}})
		data, _ := os.ReadFile(path)
		s, err := parseSettings("/p/.claude/settings.json", data)
		if err != nil || len(s.all) != 1 {
			t.Fatalf("%+v %v", s, err)
		}
		return s.all[0]
	}
	base := parse(cmd("./check.sh --strict"))
	if base != (trust.Hook{Dialect: "claude", Source: "/p/.claude/settings.json", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "./check.sh --strict"}) {
		t.Errorf("identity %+v", base)
	}
	// Changes that do not change what runs keep the trust.
	same := []hookSpec{
		{Type: "command", Command: "./check.sh --strict", Timeout: 5},
		{Type: "command", Command: "./check.sh --strict", If: "Bash(rm:*)"},
	}
	for _, h := range same {
		if got := parse(h); got.Hash() != base.Hash() {
			t.Errorf("%+v: identity changed: %+v", h, got)
		}
	}
	exec := parse(hookSpec{Type: "command", Command: "./check.sh", Args: []string{"--strict"}})
	if exec.Command != "./check.sh --strict" || exec.Hash() == base.Hash() {
		t.Errorf("exec form %+v", exec)
	}
	quoted := parse(hookSpec{Type: "command", Command: "./check.sh", Args: []string{"it's", "a b", ""}})
	if quoted.Command != `./check.sh 'it'\''s' 'a b' ''` {
		t.Errorf("exec form quoting: %s", quoted.Command)
	}
	if other := parse(hookSpec{Type: "command", Command: "./check.sh", Args: []string{"--lax"}}); other.Hash() == exec.Hash() {
		t.Error("editing an argument kept the trust")
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh --strict", "shell": "bash"}]}]}}`), 0o644)
	data, _ := os.ReadFile(path)
	s, _ := parseSettings("/p/.claude/settings.json", data)
	if len(s.all) != 1 || s.all[0].Hash() == base.Hash() {
		t.Errorf("changing the shell kept the trust: %+v", s.all)
	}
}

func TestDiscover(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if got := discover(filepath.Join(home, ".claude"), home, cwd); len(got) != 0 {
		t.Errorf("no files: %+v", got)
	}
	project := filepath.Join(cwd, ".claude", "settings.json")
	local := filepath.Join(cwd, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(project), 0o755)
	os.WriteFile(project, []byte(`{"hooks": {"Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "a"}, {"type": "prompt", "prompt": "p"}, {"type": "bogus"}]}]}}`), 0o644)
	os.WriteFile(local, []byte(`{"hooks": `), 0o644)
	writeSettings(t, filepath.Join(home, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.Stop: echoGroup("user")})
	got := discover(filepath.Join(home, ".claude"), home, cwd)
	if len(got) != 2 {
		t.Fatalf("discover = %+v", got)
	}
	if d := got[0]; d.Path != project || d.Dialect != "claude" || len(d.Hooks) != 1 || len(d.Problems) != 2 ||
		d.Hooks[0] != (trust.Hook{Dialect: "claude", Source: project, Event: "Stop", Matcher: "x", Type: "command", Command: "a"}) {
		t.Errorf("project file %+v", d)
	}
	if d := got[1]; d.Path != local || len(d.Hooks) != 0 || len(d.Problems) != 1 || !strings.Contains(d.Problems[0], "malformed JSON") {
		t.Errorf("local file %+v", d)
	}
	// What Discover finds is what the bridge checks: nothing is skipped
	// once trusted; the files' problems are still reported.
	b, _ := standardBridge(t, home)
	trustProject(t, b, cwd)
	d, _ := b.Run(context.Background(), turnInput(hooks.Stop, cwd, "s1"))
	if len(d.SystemMessages) != 2 || !strings.Contains(d.SystemMessages[0], `unknown hook type "bogus"`) || !strings.Contains(d.SystemMessages[1], local+":1:11: malformed JSON") {
		t.Errorf("after trusting what discover found: %q", d.SystemMessages)
	}
}

func TestDoctor(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	b, _ := standardBridge(t, home)
	if got := b.Doctor(cwd); len(got) != 0 {
		t.Errorf("no files: %q", got)
	}
	user := filepath.Join(home, ".claude", "settings.json")
	project := filepath.Join(cwd, ".claude", "settings.json")
	writeSettings(t, user, map[hooks.Event][]groupSpec{hooks.Stop: echoGroup("user")})
	writeSettings(t, project, map[hooks.Event][]groupSpec{hooks.PreToolUse: {{Matcher: "Bash", Hooks: []hookSpec{cmd("./check.sh")}}}})
	got := b.Doctor(cwd)
	if len(got) != 2 || got[0] != "✓ Claude hooks "+user+" (1 hooks)" ||
		got[1] != "✗ Claude hooks "+project+": skipped, not trusted: PreToolUse [Bash]: ./check.sh (run `cordis hooks trust --cwd "+cwd+"`)" {
		t.Errorf("Doctor = %q", got)
	}
	trustProject(t, b, cwd)
	if got := b.Doctor(cwd); len(got) != 2 || got[1] != "✓ Claude hooks "+project+" (1 hooks)" {
		t.Errorf("Doctor after trust = %q", got)
	}
	os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"), []byte(`{`), 0o644)
	if got := b.Doctor(cwd); len(got) != 3 || !strings.HasPrefix(got[2], "✗ Claude hooks "+filepath.Join(cwd, ".claude", "settings.local.json")+":") {
		t.Errorf("Doctor with a malformed file = %q", got)
	}
}
