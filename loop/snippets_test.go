package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// writeCommand puts a project prompt command into the harness's cwd.
func writeCommand(t *testing.T, h *looptest.Harness, name, body string) {
	t.Helper()
	dir := filepath.Join(h.Cwd, ".cordis", "commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func assertNotCreated(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created: a shell snippet ran that must not", filepath.Base(p))
		}
	}
}

// permissionLog records the editor's permission requests and answers
// each with option.
type permissionLog struct {
	mu   sync.Mutex
	reqs []*acp.RequestPermissionRequest
}

func (l *permissionLog) answer(option string) func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return func(_ context.Context, r *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		l.mu.Lock()
		l.reqs = append(l.reqs, r)
		l.mu.Unlock()
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: option}}, nil
	}
}

func (l *permissionLog) all() []*acp.RequestPermissionRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*acp.RequestPermissionRequest(nil), l.reqs...)
}

// TestSnippetDeniedByPreToolUseHook: a snippet passes the PreToolUse seam
// as Claude Code's Bash; a deny stops every snippet of the command (even
// an approved, harmless one) and names the command and the reason.
func TestSnippetDeniedByPreToolUseHook(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	guard := hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		if in.Event != hooks.PreToolUse {
			return hooks.Decision{}
		}
		mu.Lock()
		seen = append(seen, in.ToolName+" "+string(in.ToolInput))
		mu.Unlock()
		var input struct{ Command string }
		json.Unmarshal(in.ToolInput, &input)
		if in.ToolName == "Bash" && strings.Contains(input.Command, "touch") {
			return hooks.Decision{Permission: hooks.Deny, Reason: "no touching in this repository"}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: guard, Config: func(c *loop.Config) { withHome(c, t.TempDir()) }})
	first, marker := filepath.Join(h.Cwd, "first"), filepath.Join(h.Cwd, "marker")
	writeCommand(t, h, "setup", "Setup: !{echo hi > "+first+"} then !`touch "+marker+"`")
	h.Editor.OnPermission = looptest.Allow(acp.PermAllowOnce)
	sid := h.NewSession()
	h.Prompt(sid, "/setup")

	assertNotCreated(t, first, marker)
	text := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, "touch "+marker) || !strings.Contains(text, "denied by a PreToolUse hook: no touching in this repository") {
		t.Fatalf("the user was not told which snippet was denied and why: %q", text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || !strings.HasPrefix(seen[0], `Bash {"command":"echo hi > `) {
		t.Fatalf("PreToolUse saw %q, want both snippets as Bash {command}", seen)
	}
	if n := len(h.Model.Requests()); n != 0 {
		t.Fatalf("%d model requests after a denied snippet", n)
	}
}

// TestUserPromptSubmitBlockPreventsSnippets: the prompt hooks run before
// the template expands; a blocked prompt runs none of its snippets, and
// the hook sees the command as typed.
func TestUserPromptSubmitBlockPreventsSnippets(t *testing.T) {
	var mu sync.Mutex
	var prompts []string
	block := hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.UserPromptSubmit {
			mu.Lock()
			prompts = append(prompts, in.Prompt)
			mu.Unlock()
			return hooks.Decision{Block: true, Reason: "deploys are frozen"}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: block, Config: func(c *loop.Config) { withHome(c, t.TempDir()) }})
	marker := filepath.Join(h.Cwd, "marker")
	writeCommand(t, h, "deploy", "Deploy: !{touch "+marker+"}")
	var perms permissionLog
	h.Editor.OnPermission = perms.answer(acp.PermAllowOnce)
	sid := h.NewSession()
	h.Prompt(sid, "/deploy now")

	assertNotCreated(t, marker)
	if n := len(perms.all()); n != 0 {
		t.Errorf("%d permission requests for a blocked prompt", n)
	}
	if text := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(text, "deploys are frozen") {
		t.Fatalf("block not shown: %q", text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(prompts) != 1 || prompts[0] != "/deploy now" {
		t.Fatalf("UserPromptSubmit prompts = %q, want the command as typed", prompts)
	}
}

// TestSnippetsComeOnlyFromTheTemplate: an argument's and an included
// file's !{…} are text: not run, not in the permission request. The one
// request lists the template's own commands in full.
func TestSnippetsComeOnlyFromTheTemplate(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()) }}, looptest.ReplyText("ok"))
	fromArgs, fromFile := filepath.Join(h.Cwd, "from-args"), filepath.Join(h.Cwd, "from-file")
	os.WriteFile(filepath.Join(h.Cwd, "NOTES.md"), []byte("build: !{touch "+fromFile+"} and !`touch "+fromFile+"`"), 0o644)
	long := "echo " + strings.Repeat("x", 150) + "; echo tail-visible"
	writeCommand(t, h, "review", "Review $ARGUMENTS\nNotes: @{NOTES.md}\nState: !{echo one}\nMore: !{"+long+"}")
	var perms permissionLog
	h.Editor.OnPermission = perms.answer(acp.PermAllowOnce)
	sid := h.NewSession()
	h.Prompt(sid, "/review !{touch "+fromArgs+"} please")

	assertNotCreated(t, fromArgs, fromFile)
	reqs := perms.all()
	if len(reqs) != 1 {
		t.Fatalf("%d permission requests, want 1", len(reqs))
	}
	var content strings.Builder
	for _, c := range reqs[0].ToolCall.Content {
		if c.Content != nil {
			content.WriteString(c.Content.Text)
		}
	}
	shown := reqs[0].ToolCall.Title + "\n" + content.String() + "\n" + string(reqs[0].ToolCall.RawInput)
	if strings.Contains(shown, "touch") {
		t.Fatalf("text from an argument or a file joined the approval list:\n%s", shown)
	}
	if !strings.Contains(content.String(), "echo one") || !strings.Contains(content.String(), long) {
		t.Fatalf("the request's content does not show every command in full:\n%s", content.String())
	}
	msgs, _ := json.Marshal(h.Model.Requests()[0]["messages"])
	for _, want := range []string{"Review !{touch ", "build: !{touch ", "State: one", "tail-visible"} {
		if !strings.Contains(string(msgs), want) {
			t.Errorf("the prompt lacks %q: %s", want, msgs)
		}
	}
}

// TestSnippetDeniedByPermissionRule: the built-in permission rules govern
// snippets like Bash calls; deny wins even in bypassPermissions mode.
func TestSnippetDeniedByPermissionRule(t *testing.T) {
	cfg := builtin.DefaultConfig()
	cfg.PermissionRules.Deny = []string{"Bash(touch:*)"}
	pipe, _ := withBuiltins(t, cfg)
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass, Config: func(c *loop.Config) { withHome(c, t.TempDir()) }})
	marker := filepath.Join(h.Cwd, "marker")
	writeCommand(t, h, "init", "Init: !{echo start && touch "+marker+"}")
	h.Editor.OnPermission = neverAsk(t)
	sid := h.NewSession()
	h.Prompt(sid, "/init")

	assertNotCreated(t, marker)
	if text := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(text, "Bash(touch:*)") {
		t.Fatalf("the rule was not named: %q", text)
	}
	if n := len(h.Model.Requests()); n != 0 {
		t.Fatalf("%d model requests after a denied snippet", n)
	}
}

// TestSnippetModes: bypassPermissions runs snippets without asking (like
// Bash); plan mode, which is read-only, runs none.
func TestSnippetModes(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass, Config: func(c *loop.Config) { withHome(c, t.TempDir()) }}, looptest.ReplyText("ok"))
	marker := filepath.Join(h.Cwd, "marker")
	writeCommand(t, h, "mark", "Mark: !{touch "+marker+" && echo marked}")
	h.Editor.OnPermission = neverAsk(t)
	sid := h.NewSession()
	h.Prompt(sid, "/mark")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("bypassPermissions did not run the snippet: %v", err)
	}
	os.Remove(marker)
	h.Prompt(sid, "/mode plan")
	h.Prompt(sid, "/mark")
	assertNotCreated(t, marker)
	if text := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(text, "plan mode") {
		t.Fatalf("plan mode refusal not shown: %q", text)
	}
}
