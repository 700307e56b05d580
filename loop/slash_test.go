package loop_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

func TestHelpAndUnknownCommandsNeverReachTheModel(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()) }})
	sid := h.NewSession()
	if stop := h.Prompt(sid, "/help"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	help := looptest.AgentText(h.Editor.Updates(sid))
	for _, want := range []string{"/compact", "/clear", "/status", "/doctor"} {
		if !strings.Contains(help, want) {
			t.Errorf("/help does not list %s:\n%s", want, help)
		}
	}
	h.Prompt(sid, "/compct")
	text := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, "Unknown command /compct. Did you mean /compact") || !strings.Contains(text, "/help") {
		t.Fatalf("unknown command answer: %q", text)
	}
	if n := len(h.Model.Requests()); n != 0 {
		t.Fatalf("%d model requests for commands", n)
	}
}

func TestPathLikePromptsGoToTheModel(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, looptest.ReplyText("a path"), looptest.ReplyText("another path"))
	sid := h.NewSession()
	h.Prompt(sid, "/var/log/syslog is full of errors")
	h.Prompt(sid, "/tmp")
	reqs := h.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	first, _ := json.Marshal(reqs[0]["messages"])
	if !strings.Contains(string(first), "/var/log/syslog is full of errors") {
		t.Fatalf("path prompt not sent as text: %s", first)
	}
}

func TestCustomPromptCommandExpandsAndKeepsTools(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()) }}, looptest.ReplyText("reviewed"))
	os.MkdirAll(filepath.Join(h.Cwd, ".claude", "commands"), 0o755)
	os.WriteFile(filepath.Join(h.Cwd, ".claude", "commands", "review.md"),
		[]byte("---\ndescription: Review a file\nargument-hint: [file]\nallowed-tools: Read, Grep\n---\nReview $0 carefully. Notes: @{notes.txt}"), 0o644)
	os.WriteFile(filepath.Join(h.Cwd, "notes.txt"), []byte("prefer small functions"), 0o644)
	sid := h.NewSession()
	var advertised *acp.AvailableCommandsUpdate
	// The list follows the session/new response.
	waitFor(t, func() bool {
		for _, u := range h.Editor.Updates(sid) {
			if a, ok := u.(*acp.AvailableCommandsUpdate); ok {
				advertised = a
			}
		}
		return advertised != nil
	})
	found := false
	for _, c := range advertised.AvailableCommands {
		if c.Name == "review" && c.Description == "Review a file" && c.Input != nil && c.Input.Hint == "[file]" {
			found = true
		}
	}
	if !found {
		t.Fatalf("review not advertised: %+v", advertised)
	}
	h.Prompt(sid, "/review main.go")
	req := h.Model.Requests()[0]
	msgs, _ := json.Marshal(req["messages"])
	if !strings.Contains(string(msgs), "Review main.go carefully. Notes: prefer small functions") {
		t.Fatalf("expansion not sent: %s", msgs)
	}
	var names []string
	for _, tl := range req["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	// allowed-tools pre-approves; it does not take the other tools away.
	if !strings.Contains(strings.Join(names, ","), "Read,Write,Edit,Bash,Glob,Grep") {
		t.Fatalf("tools = %v, want every tool still offered (allowed-tools only pre-approves)", names)
	}
}

func TestShellInCommandIsConfirmedOrNotRun(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()) }}, looptest.ReplyText("ok"))
	os.MkdirAll(filepath.Join(h.Cwd, ".cordis", "commands"), 0o755)
	marker := filepath.Join(h.Cwd, "ran")
	os.WriteFile(filepath.Join(h.Cwd, ".cordis", "commands", "status-git.md"), []byte("State: !{touch "+marker+"; echo fine}"), 0o644)
	sid := h.NewSession()
	h.Editor.OnPermission = looptest.Allow(acp.PermRejectOnce)
	h.Prompt(sid, "/status-git")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the shell command ran although the user declined")
	}
	if !strings.Contains(looptest.AgentText(h.Editor.Updates(sid)), "not approved") {
		t.Fatalf("no refusal shown: %q", looptest.AgentText(h.Editor.Updates(sid)))
	}
	h.Editor.OnPermission = looptest.Allow(acp.PermAllowOnce)
	h.Prompt(sid, "/status-git")
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the approved shell command did not run")
	}
	msgs, _ := json.Marshal(h.Model.Requests()[0]["messages"])
	if !strings.Contains(string(msgs), "State: fine") {
		t.Fatalf("shell output not substituted: %s", msgs)
	}
}

func TestCompactReplacesHistoryAndFiresSeams(t *testing.T) {
	var mu sync.Mutex
	var events []string
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		mu.Lock()
		defer mu.Unlock()
		switch in.Event {
		case hooks.PreCompact:
			events = append(events, "PreCompact:"+in.Trigger)
		case hooks.PostCompact:
			events = append(events, "PostCompact:"+in.Trigger+":"+in.CompactSummary)
		case hooks.SessionStart:
			events = append(events, "SessionStart:"+in.Source)
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams}, looptest.ReplyText("first answer"), looptest.ReplyText("SUMMARY: user asked a question"), looptest.ReplyText("after compaction"))
	sid := h.NewSession()
	h.Prompt(sid, "first question")
	h.Prompt(sid, "/compact keep it short")
	h.Prompt(sid, "next question")
	reqs := h.Model.Requests()
	compactReq, _ := json.Marshal(reqs[1])
	if !strings.Contains(string(compactReq), "keep it short") || !strings.Contains(string(compactReq), "first question") {
		t.Fatalf("compaction request lacks instructions or history: %s", compactReq)
	}
	after, _ := json.Marshal(reqs[2]["messages"])
	if strings.Contains(string(after), "first question") || !strings.Contains(string(after), "SUMMARY: user asked a question") {
		t.Fatalf("history after compaction: %s", after)
	}
	if got := strings.Join(events, ","); got != "SessionStart:startup,PreCompact:manual,PostCompact:manual:SUMMARY: user asked a question,SessionStart:compact" {
		t.Fatalf("seams = %s", got)
	}
}

func TestClearStartsOver(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, looptest.ReplyText("one"), looptest.ReplyText("two"))
	sid := h.NewSession()
	h.Prompt(sid, "remember 42")
	h.Prompt(sid, "/clear")
	h.Prompt(sid, "what number?")
	msgs, _ := json.Marshal(h.Model.Requests()[1]["messages"])
	if strings.Contains(string(msgs), "remember 42") {
		t.Fatalf("history survived /clear: %s", msgs)
	}
}

// While a model turn runs, /status answers at once and /clear refuses,
// and neither cancels the turn.
func TestCommandsDuringTurn(t *testing.T) {
	release := make(chan struct{})
	stalled := func(w http.ResponseWriter, r *http.Request) {
		<-release
		looptest.ReplyText("finished")(w, r)
	}
	h := looptest.NewHarness(t, looptest.Options{}, stalled)
	sid := h.NewSession()
	done := make(chan acp.StopReason)
	go func() {
		stop, _ := h.Editor.Prompt(h.Ctx, sid, "long task")
		done <- stop
	}()
	waitFor(t, func() bool { return len(h.Model.Requests()) == 1 })
	if stop := h.Prompt(sid, "/status"); stop != acp.StopEndTurn {
		t.Fatalf("/status stop = %q", stop)
	}
	h.Prompt(sid, "/clear")
	text := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, "Session "+sid) || !strings.Contains(text, "cannot run while a turn is in progress") {
		t.Fatalf("agent text during turn: %q", text)
	}
	close(release)
	if stop := <-done; stop != acp.StopEndTurn {
		t.Fatalf("the running turn ended with %q; commands must not cancel it", stop)
	}
}

func TestExportWritesTranscript(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, looptest.ReplyText("the answer is 4"))
	sid := h.NewSession()
	h.Prompt(sid, "what is 2+2?")
	h.Prompt(sid, "/export md out.md")
	data, err := os.ReadFile(filepath.Join(h.Cwd, "out.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "## User\n\nwhat is 2+2?") || !strings.Contains(string(data), "the answer is 4") {
		t.Fatalf("export:\n%s", data)
	}
	h.Prompt(sid, "/export json /etc/cordis-escape.json")
	if !strings.Contains(looptest.AgentText(h.Editor.Updates(sid)), "outside") {
		t.Fatal("export outside the session's directories was not refused")
	}
}

func TestDoctorReportsProblems(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) {
		withHome(c, t.TempDir())
		c.Doctor = func(cwd string) []string {
			return []string{"✗ Claude hooks: " + cwd + "/.claude/settings.json: invalid JSON"}
		}
	}})
	os.MkdirAll(filepath.Join(h.Cwd, ".cordis", "commands"), 0o755)
	os.WriteFile(filepath.Join(h.Cwd, ".cordis", "commands", "bad.md"), []byte("---\ndescription: the frontmatter never ends\nx"), 0o644)
	sid := h.NewSession()
	h.Prompt(sid, "/doctor")
	got := looptest.AgentText(h.Editor.Updates(sid))
	for _, want := range []string{"✓ model provider anthropic has credentials", "✗ command file " + filepath.Join(h.Cwd, ".cordis", "commands", "bad.md"), "settings.json: invalid JSON"} {
		if !strings.Contains(got, want) {
			t.Errorf("/doctor output lacks %q:\n%s", want, got)
		}
	}
}

func TestHooksCommandListsAndToggles(t *testing.T) {
	pipe := hooks.NewPipeline()
	ran := 0
	pipe.Register(hooks.Stop, hooks.Func("counter", func(context.Context, *hooks.Input) (hooks.Decision, error) {
		ran++
		return hooks.Decision{}, nil
	}), hooks.RegisterOptions{Priority: 7})
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe}, looptest.ReplyText("one"), looptest.ReplyText("two"))
	sid := h.NewSession()
	h.Prompt(sid, "/hooks")
	if got := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(got, "Stop\n  - counter (priority 7, on)") {
		t.Fatalf("/hooks:\n%s", got)
	}
	h.Prompt(sid, "x")
	h.Prompt(sid, "/hooks disable counter")
	h.Prompt(sid, "y")
	if ran != 1 {
		t.Fatalf("the Stop hook ran %d times, want 1 (disabled before the second turn)", ran)
	}
	h.Prompt(sid, "/budget")
	if got := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(got, "This session: 2 model requests") {
		t.Fatalf("/budget: %q", got)
	}
}
