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
	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// newRulesHarness wires permission rules as cmd/cordis does: the built-in
// hook reads Claude's settings files and trusts a project allow rule only
// through the state directory's trust store, where "Always allow" answers
// are recorded when they are saved to the project.
func newRulesHarness(t *testing.T, state, cwd string, o looptest.Options, script ...http.HandlerFunc) *looptest.Harness {
	t.Helper()
	rules := permrules.Trust{Store: trust.Open(state), Files: projectFiles}
	pipe := hooks.NewPipeline()
	// These tests are about rules and answers: echo, which they use as
	// the command asked about, is read-only, so that allowance is off.
	cfg, off := builtin.DefaultConfig(), false
	cfg.PermissionRules.ReadOnlyCommands = &off
	set, err := builtin.Register(pipe, cfg, builtin.Options{StateDir: state, Settings: projectFiles.Settings, TrustedRule: rules.Trusted})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	o.Hooks = pipe
	o.Config = func(c *loop.Config) {
		c.StateDir = state
		c.SavePermissionRule = rules.SaveAllow
	}
	h := looptest.NewHarness(t, o, script...)
	h.Cwd, h.StateDir = cwd, state
	return h
}

// answerLog records the requests the editor gets and answers each
// with the next answer.
type answerLog struct {
	mu      sync.Mutex
	asked   []*acp.RequestPermissionRequest
	answers []string
}

func (l *answerLog) answer(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, p)
	option := acp.PermRejectOnce
	if len(l.answers) > 0 {
		option, l.answers = l.answers[0], l.answers[1:]
	}
	return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: option}}, nil
}

func (l *answerLog) titles() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, p := range l.asked {
		out = append(out, p.ToolCall.Title)
	}
	return out
}

func optionName(p *acp.RequestPermissionRequest, kind string) string {
	for _, o := range p.Options {
		if o.Kind == kind {
			return o.Name
		}
	}
	return ""
}

func bashCall(id, command string) looptest.Block {
	return looptest.ToolUse(id, "Bash", map[string]any{"command": command})
}

// Issue 16 item 6: "Always allow" on `echo first` allowed every later Bash
// call, `touch second-unasked.txt` included. The answer now allows the
// prefix `echo` only, is saved to the project's settings.local.json, and
// holds for a new agent over the same state directory.
func TestAlwaysAllowIsScopedAndSurvivesARestart(t *testing.T) {
	state, cwd := t.TempDir(), t.TempDir()
	h := newRulesHarness(t, state, cwd, looptest.Options{},
		looptest.StreamBlocks("tool_use", bashCall("toolu_1", "echo first")),
		looptest.StreamBlocks("tool_use", bashCall("toolu_2", "echo second"), bashCall("toolu_3", "touch second-unasked.txt")),
		looptest.ReplyText("done"))
	answered := &answerLog{answers: []string{acp.PermAllowAlways, acp.PermRejectOnce}}
	h.Editor.OnPermission = answered.answer
	h.Prompt(h.NewSession(), "go")

	if got := answered.titles(); len(got) != 2 || got[0] != "echo first" || got[1] != "touch second-unasked.txt" {
		t.Fatalf("asked about %q, want `echo first` then `touch second-unasked.txt`", got)
	}
	if name := optionName(answered.asked[0], acp.PermAllowAlways); name != "Always allow `echo:*` in this project" {
		t.Errorf("the always option is named %q", name)
	}
	if _, err := os.Stat(filepath.Join(cwd, "second-unasked.txt")); err == nil {
		t.Fatal("touch ran without being asked")
	}
	if text, isErr := looptest.ToolResult(t, h.Model.Requests()[2], "toolu_2"); isErr || text != "second" {
		t.Errorf("echo second: %q (error %v)", text, isErr)
	}
	saved, err := os.ReadFile(filepath.Join(cwd, ".claude", "settings.local.json"))
	if err != nil || !strings.Contains(string(saved), `"Bash(echo:*)"`) {
		t.Fatalf("settings.local.json: %v\n%s", err, saved)
	}

	// A new agent (a restart) over the same state directory and project.
	h2 := newRulesHarness(t, state, cwd, looptest.Options{},
		looptest.StreamBlocks("tool_use", bashCall("toolu_4", "echo third"), bashCall("toolu_5", "touch third-unasked.txt")),
		looptest.ReplyText("done"))
	answered2 := &answerLog{}
	h2.Editor.OnPermission = answered2.answer
	h2.Prompt(h2.NewSession(), "again")
	if got := answered2.titles(); len(got) != 1 || got[0] != "touch third-unasked.txt" {
		t.Fatalf("after a restart asked about %q, want only the touch", got)
	}
	if text, isErr := looptest.ToolResult(t, h2.Model.Requests()[1], "toolu_4"); isErr || text != "third" {
		t.Errorf("echo third: %q (error %v)", text, isErr)
	}
}

// A rule planted in a cloned repository's .claude/settings.local.json is
// not honoured until the user trusts it (and the user is told); a deny
// rule there is.
func TestPlantedProjectRules(t *testing.T) {
	state, cwd := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755)
	os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"),
		[]byte(`{"permissions": {"allow": ["Bash(touch:*)"], "deny": ["Bash(rm:*)"]}}`), 0o644)
	os.Mkdir(filepath.Join(cwd, "keep"), 0o755)
	h := newRulesHarness(t, state, cwd, looptest.Options{},
		looptest.StreamBlocks("tool_use", bashCall("toolu_1", "touch planted.txt"), bashCall("toolu_2", "rm -rf keep")),
		looptest.ReplyText("done"))
	answered := &answerLog{}
	h.Editor.OnPermission = answered.answer
	sid := h.NewSession()
	h.Prompt(sid, "go")

	if got := answered.titles(); len(got) != 1 || got[0] != "touch planted.txt" {
		t.Fatalf("asked about %q, want the planted-allowed touch only", got)
	}
	if _, err := os.Stat(filepath.Join(cwd, "planted.txt")); err == nil {
		t.Error("the planted allow rule ran touch")
	}
	if _, err := os.Stat(filepath.Join(cwd, "keep")); err != nil {
		t.Error("the deny rule did not hold: keep/ is gone")
	}
	if text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_2"); !isErr || !strings.Contains(text, "deny Bash(rm:*)") {
		t.Errorf("rm: %q (error %v)", text, isErr)
	}
	if shown := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(shown, "ignored the allow rule Bash(touch:*)") {
		t.Errorf("the skipped rule was not reported: %q", shown)
	}

	// Trusted (as `cordis hooks trust` does), it holds.
	store := trust.Open(state)
	for _, d := range projectFiles.Discover(cwd) {
		if err := store.Trust(d); err != nil {
			t.Fatal(err)
		}
	}
	h2 := newRulesHarness(t, state, cwd, looptest.Options{},
		looptest.StreamBlocks("tool_use", bashCall("toolu_3", "touch trusted.txt")),
		looptest.ReplyText("done"))
	h2.Editor.OnPermission = neverAsk(t)
	h2.Prompt(h2.NewSession(), "go")
	if _, err := os.Stat(filepath.Join(cwd, "trusted.txt")); err != nil {
		t.Errorf("the trusted rule did not allow touch: %v", err)
	}
}

// Issue 16 item 5 / issue 20 item 1: the Bash request's title is the
// command, shortened only with a visible marker, and its content the whole
// command; the tool_call carries it too (editors hide an execute call's
// raw input).
func TestBashPermissionShowsTheWholeCommand(t *testing.T) {
	twoLines := "echo ok\ntouch second-line.txt"
	longTail := "echo " + strings.Repeat("a", 100) + "; touch hidden-tail.txt"
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use",
			looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": twoLines, "description": "Say ok"}),
			bashCall("toolu_2", longTail)),
		looptest.ReplyText("done"))
	answered := &answerLog{answers: []string{acp.PermAllowAlways, acp.PermRejectOnce}}
	h.Editor.OnPermission = answered.answer
	sid := h.NewSession()
	h.Prompt(sid, "go")

	if len(answered.asked) != 2 {
		t.Fatalf("asked %d times", len(answered.asked))
	}
	for i, want := range []struct{ title, command string }{
		{"echo ok …(+1 line)", twoLines},
		{strings.TrimRight(longTail[:119], " ") + "…", longTail},
	} {
		p := answered.asked[i]
		if p.ToolCall.Title != want.title {
			t.Errorf("request %d title = %q, want %q", i, p.ToolCall.Title, want.title)
		}
		if !contentHas(p.ToolCall.Content, "```sh\n"+want.command+"\n```") {
			t.Errorf("request %d content lacks the whole command: %+v", i, p.ToolCall.Content)
		}
		call := toolCallsOf(h.Editor.Updates(sid))[p.ToolCall.ToolCallID]
		if call == nil || call.Title != want.title || !contentHas(call.Content, want.command) {
			t.Errorf("tool_call %d = %+v", i, call)
		}
	}
	// A multi-line command has no always option; answering it anyway
	// fails closed.
	if name := optionName(answered.asked[0], acp.PermAllowAlways); name != "" {
		t.Errorf("a multi-line command offers %q", name)
	}
	if _, err := os.Stat(filepath.Join(h.Cwd, "second-line.txt")); err == nil {
		t.Error("an option that was not offered ran the command")
	}
	if text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1"); !isErr || !strings.Contains(text, "not offered") {
		t.Errorf("toolu_1: %q (error %v)", text, isErr)
	}
}

// Issue 20 item 1: Write and Edit requests carry the diff, computed before
// asking and without writing.
func TestEditPermissionShowsTheDiff(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{})
	existing := filepath.Join(h.Cwd, "a.txt")
	os.WriteFile(existing, []byte("one\ntwo\n"), 0o644)
	fresh := filepath.Join(h.Cwd, "new.txt")
	h.Model.Append(
		looptest.StreamBlocks("tool_use",
			looptest.ToolUse("toolu_1", "Write", map[string]any{"file_path": fresh, "content": "hello\n"}),
			looptest.ToolUse("toolu_2", "Edit", map[string]any{"file_path": existing, "old_string": "two", "new_string": "2"})),
		looptest.ReplyText("done"),
	)
	var existedWhenAsked bool
	answered := &answerLog{answers: []string{acp.PermAllowOnce, acp.PermAllowOnce}}
	h.Editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		if p.ToolCall.ToolCallID == "toolu_1" {
			_, err := os.Stat(fresh)
			existedWhenAsked = err == nil
		}
		return answered.answer(ctx, p)
	}
	h.Prompt(h.NewSession(), "go")
	if len(answered.asked) != 2 || existedWhenAsked {
		t.Fatalf("asked %d times; the file existed when asked: %v", len(answered.asked), existedWhenAsked)
	}
	diffOf := func(p *acp.RequestPermissionRequest) *acp.ToolCallContent {
		for i, c := range p.ToolCall.Content {
			if c.Type == "diff" {
				return &p.ToolCall.Content[i]
			}
		}
		return nil
	}
	if d := diffOf(answered.asked[0]); d == nil || d.Path != fresh || d.OldText != nil || *d.NewText != "hello\n" {
		t.Errorf("Write request diff = %+v", d)
	} else if b, _ := json.Marshal(d); !strings.Contains(string(b), `"oldText":null`) {
		t.Errorf("a new file's diff is not oldText null: %s", b)
	}
	if d := diffOf(answered.asked[1]); d == nil || d.Path != existing || d.OldText == nil || *d.OldText != "one\ntwo\n" || *d.NewText != "one\n2\n" {
		t.Errorf("Edit request diff = %+v", d)
	}
	if name := optionName(answered.asked[1], acp.PermAllowAlways); name != "Always allow edits to `a.txt` in this session" {
		t.Errorf("the Edit always option is named %q", name)
	}
}

// A hook that rewrites the command rewrites what the user approves.
func TestPermissionShowsTheRewrittenCommand(t *testing.T) {
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.PreToolUse {
			return hooks.Decision{UpdatedInput: json.RawMessage(`{"command":"echo rewritten"}`)}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams}, looptest.StreamBlocks("tool_use", bashCall("toolu_1", "echo original")), looptest.ReplyText("ok"))
	answered := &answerLog{answers: []string{acp.PermAllowOnce}}
	h.Editor.OnPermission = answered.answer
	h.Prompt(h.NewSession(), "go")
	if got := answered.titles(); len(got) != 1 || got[0] != "echo rewritten" || !contentHas(answered.asked[0].ToolCall.Content, "echo rewritten") {
		t.Errorf("asked about %q, content %+v", got, answered.asked)
	}
}

// Issue 16 item 11: in plan mode an MCP tool runs only when the user
// allows that call, whatever its readOnlyHint, and even when a hook
// allows it; there is no "always allow" to give there.
func TestMCPToolInPlanModeAsksTheUser(t *testing.T) {
	allowAll := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.PreToolUse || in.Event == hooks.PermissionRequest {
			return hooks.Decision{Permission: hooks.Allow}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: allowAll, Mode: loop.ModePlan},
		looptest.StreamBlocks("tool_use",
			looptest.ToolUse("toolu_1", "mcp__t__echo", map[string]any{"text": "one"}),
			looptest.ToolUse("toolu_2", "mcp__t__echo", map[string]any{"text": "two"}),
			looptest.ToolUse("toolu_3", "mcp__t__echo", map[string]any{"text": "three"})),
		looptest.ReplyText("done"))
	answered := &answerLog{answers: []string{acp.PermAllowOnce, acp.PermRejectOnce, acp.PermAllowAlways}}
	h.Editor.OnPermission = answered.answer
	h.Prompt(newSessionWith(t, h, stdioMCP("t", "")), "plan")

	if len(answered.asked) != 3 {
		t.Fatalf("asked %d times, want every call", len(answered.asked))
	}
	if name := optionName(answered.asked[0], acp.PermAllowAlways); name != "" {
		t.Errorf("plan mode offers %q", name)
	}
	if !contentHas(answered.asked[0].ToolCall.Content, "Plan mode") {
		t.Errorf("the request does not say why it asks: %+v", answered.asked[0].ToolCall.Content)
	}
	req := h.Model.Requests()[1]
	if text, isErr := looptest.ToolResult(t, req, "toolu_1"); isErr || text != "echo: one" {
		t.Errorf("allowed call: %q (error %v)", text, isErr)
	}
	for _, id := range []string{"toolu_2", "toolu_3"} {
		if text, isErr := looptest.ToolResult(t, req, id); !isErr || strings.Contains(text, "echo:") {
			t.Errorf("%s ran: %q", id, text)
		}
	}
}

func contentHas(content []acp.ToolCallContent, text string) bool {
	for _, c := range content {
		if c.Content != nil && strings.Contains(c.Content.Text, text) {
			return true
		}
	}
	return false
}
