package claude

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/hooks"
)

func str(s string) *string { return &s }

// jsonDecision is what each event's testdata/json/<Event>.json decides
// when honoured.
var jsonDecision = map[hooks.Event]hooks.Decision{
	hooks.PreToolUse:         {Permission: hooks.Deny, Reason: "json deny reason", AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message"}},
	hooks.PermissionRequest:  {Permission: hooks.Allow, UpdatedInput: json.RawMessage(`{"command":"ls"}`), SystemMessages: []string{"json system message"}},
	hooks.PostToolUse:        {Block: true, Reason: "json block reason", AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message"}},
	hooks.PostToolUseFailure: {AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message"}},
	hooks.UserPromptSubmit:   {Block: true, Reason: "json block reason", AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message"}},
	hooks.Stop:               {Block: true, Reason: "json block reason", SystemMessages: []string{"json system message"}},
	hooks.SubagentStop:       {Block: true, Reason: "json block reason", SystemMessages: []string{"json system message"}},
	hooks.PreCompact:         {Block: true, Reason: "json block reason", SystemMessages: []string{"json system message"}},
	hooks.SessionStart:       {AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message"}},
	hooks.SubagentStart:      {AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message"}},
	hooks.SessionEnd:         {SystemMessages: []string{"json system message"}},
	hooks.Notification:       {SystemMessages: []string{"json system message"}},
	hooks.PostCompact:        {SystemMessages: []string{"json system message"}},
}

// exit2Decision is exit 2 with "blocked by stderr" on stderr (§6.2).
var exit2Decision = map[hooks.Event]hooks.Decision{
	hooks.PreToolUse:         {Permission: hooks.Deny, Reason: "blocked by stderr"},
	hooks.PermissionRequest:  {}, // not honoured
	hooks.PostToolUse:        {Block: true, Reason: "blocked by stderr"},
	hooks.PostToolUseFailure: {Block: true, Reason: "blocked by stderr"},
	hooks.UserPromptSubmit:   {Block: true, Reason: "blocked by stderr"},
	hooks.Stop:               {Block: true, Reason: "blocked by stderr"},
	hooks.SubagentStop:       {Block: true, Reason: "blocked by stderr"},
	hooks.PreCompact:         {Block: true, Reason: "blocked by stderr"},
	hooks.SessionStart:       {SystemMessages: []string{"blocked by stderr"}},
	hooks.SubagentStart:      {SystemMessages: []string{"blocked by stderr"}},
	hooks.SessionEnd:         {SystemMessages: []string{"blocked by stderr"}},
	hooks.Notification:       {},                                              // ignored
	hooks.PostCompact:        {SystemMessages: []string{"blocked by stderr"}}, // shown to the user only
}

// exit2JSONDecision is exit 2 with the event's JSON on stdout and "stderr
// reason" on stderr: the JSON is read, the block stands, the JSON reason
// wins over stderr.
var exit2JSONDecision = map[hooks.Event]hooks.Decision{
	hooks.PreToolUse:         jsonDecision[hooks.PreToolUse],
	hooks.PermissionRequest:  jsonDecision[hooks.PermissionRequest],
	hooks.PostToolUse:        jsonDecision[hooks.PostToolUse],
	hooks.PostToolUseFailure: {Block: true, Reason: "stderr reason", AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message"}},
	hooks.UserPromptSubmit:   jsonDecision[hooks.UserPromptSubmit],
	hooks.Stop:               jsonDecision[hooks.Stop],
	hooks.SubagentStop:       jsonDecision[hooks.SubagentStop],
	hooks.PreCompact:         jsonDecision[hooks.PreCompact],
	hooks.SessionStart:       {AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message", "stderr reason"}},
	hooks.SubagentStart:      {AdditionalContext: []string{"json context"}, SystemMessages: []string{"json system message", "stderr reason"}},
	hooks.SessionEnd:         {SystemMessages: []string{"json system message", "stderr reason"}},
	hooks.Notification:       jsonDecision[hooks.Notification],
	hooks.PostCompact:        {SystemMessages: []string{"json system message", "stderr reason"}},
}

// contextEvents take plain stdout on exit 0 as context.
func plainDecision(ev hooks.Event, text string) hooks.Decision {
	if ev == hooks.UserPromptSubmit || ev == hooks.SessionStart {
		return hooks.Decision{AdditionalContext: []string{text}}
	}
	return hooks.Decision{}
}

func TestTranslateEveryEventAndOutputForm(t *testing.T) {
	td := testdataDir(t)
	script := func(name string) string { return filepath.Join(td, name) }
	forms := []struct {
		name    string
		command func(ev hooks.Event) string
		timeout float64
		want    func(ev hooks.Event) hooks.Decision
		wantErr string // substring of the error; "" for none
		// notRun: the hook could not run; on a guard event that is
		// shown to the user (wantErr is in the message) instead of
		// returned as the error.
		notRun bool
	}{
		{name: "exit0_plain", command: func(hooks.Event) string { return script("plain.sh") },
			want: func(ev hooks.Event) hooks.Decision { return plainDecision(ev, "plain text from hook") }},
		{name: "exit0_json", command: func(ev hooks.Event) string { return script("json.sh") + " " + string(ev) },
			want: func(ev hooks.Event) hooks.Decision { return jsonDecision[ev] }},
		{name: "exit2_stderr", command: func(hooks.Event) string { return script("exit2.sh") },
			want: func(ev hooks.Event) hooks.Decision { return exit2Decision[ev] }},
		{name: "exit2_json", command: func(ev hooks.Event) string { return script("exit2json.sh") + " " + string(ev) },
			want: func(ev hooks.Event) hooks.Decision { return exit2JSONDecision[ev] }},
		{name: "exit1", command: func(hooks.Event) string { return script("exit1.sh") },
			want: func(hooks.Event) hooks.Decision { return hooks.Decision{} }, wantErr: "exit status 1: something broke"},
		{name: "exit1_json", command: func(ev hooks.Event) string { return script("exit1json.sh") + " " + string(ev) },
			want: func(ev hooks.Event) hooks.Decision { return jsonDecision[ev] }},
		{name: "garbage", command: func(hooks.Event) string { return script("garbage.sh") },
			want: func(ev hooks.Event) hooks.Decision { return plainDecision(ev, `{garbage: "not json"`) }},
		{name: "timeout", command: func(hooks.Event) string { return script("hang.sh") }, timeout: 0.3,
			want: func(hooks.Event) hooks.Decision { return hooks.Decision{} }, wantErr: "timed out", notRun: true},
		{name: "crash", command: func(hooks.Event) string { return script("crash.sh") },
			want: func(hooks.Event) hooks.Decision { return hooks.Decision{} }, wantErr: "killed by", notRun: true},
		{name: "missing_interpreter", command: func(hooks.Event) string { return script("missing_interp.sh") },
			want: func(hooks.Event) hooks.Decision { return hooks.Decision{} }, wantErr: "exit status 12", notRun: true},
		{name: "missing_program", command: func(hooks.Event) string { return "/nonexistent/python3 " + script("plain.sh") },
			want: func(hooks.Event) hooks.Decision { return hooks.Decision{} }, wantErr: "exit status 127", notRun: true},
	}
	for _, ev := range supportedEvents {
		for _, f := range forms {
			t.Run(string(ev)+"/"+f.name, func(t *testing.T) {
				t.Parallel()
				b := bridgeWith(t, ev, hookSpec{Type: "command", Command: f.command(ev), Timeout: f.timeout})
				d, err := runRecorded(b, inputFor(ev, t.TempDir()))
				if f.notRun && guard.Guards(ev) {
					if err == nil || !strings.Contains(err.Error(), f.wantErr) || len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "could not run: ") ||
						!strings.Contains(d.SystemMessages[0], f.wantErr) || d.Permission != hooks.NoOpinion {
						t.Errorf("a guard that could not run: %+v, %v", d, err)
					}
					return
				}
				if diff := cmp.Diff(f.want(ev), d, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("decision (-want +got):\n%s", diff)
				}
				switch {
				case f.wantErr == "" && err != nil:
					t.Errorf("unexpected error: %v", err)
				case f.wantErr != "" && (err == nil || !strings.Contains(err.Error(), f.wantErr)):
					t.Errorf("error = %v, want one containing %q", err, f.wantErr)
				}
			})
		}
	}
}

// run translates one fixed stdout/exit for ev through a real command.
func runOutput(t *testing.T, ev hooks.Event, stdout string, exit int) (hooks.Decision, error) {
	t.Helper()
	return runOutputs(t, ev, []string{stdout}, []int{exit})
}

func runOutputs(t *testing.T, ev hooks.Event, stdouts []string, exits []int) (hooks.Decision, error) {
	t.Helper()
	var specs []hookSpec
	for i, s := range stdouts {
		specs = append(specs, cmd("cat >/dev/null; printf '%s' '"+strings.ReplaceAll(s, "'", `'\''`)+"'; exit "+itoa(exits[i])))
	}
	b := bridgeWith(t, ev, specs...)
	return runRecorded(b, inputFor(ev, t.TempDir()))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestPreToolUseOutputs(t *testing.T) {
	tests := []struct {
		name   string
		stdout string
		exit   int
		want   hooks.Decision
		err    bool
	}{
		{"allow", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}}`, 0,
			hooks.Decision{Permission: hooks.Allow, Reason: "fine"}, false},
		{"ask is not downgraded", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check"}}`, 0,
			hooks.Decision{Permission: hooks.Ask, Reason: "check"}, false},
		{"defer asks the editor", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`, 0,
			hooks.Decision{Permission: hooks.Ask}, false},
		{"deny without reason", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, 0,
			hooks.Decision{Permission: hooks.Deny}, false},
		{"allow with updatedInput", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, 0,
			hooks.Decision{Permission: hooks.Allow, UpdatedInput: json.RawMessage(`{"command":"ls"}`)}, false},
		{"deny drops updatedInput", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","updatedInput":{"command":"ls"}}}`, 0,
			hooks.Decision{Permission: hooks.Deny}, false},
		{"legacy approve", `{"decision":"approve","reason":"ok"}`, 0, hooks.Decision{Permission: hooks.Allow, Reason: "ok"}, false},
		{"legacy block", `{"decision":"block","reason":"no"}`, 0, hooks.Decision{Permission: hooks.Deny, Reason: "no"}, false},
		{"hookSpecificOutput wins over legacy", `{"decision":"approve","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`, 0,
			hooks.Decision{Permission: hooks.Ask}, false},
		{"top-level permissionDecision is ignored", `{"permissionDecision":"deny"}`, 0, hooks.Decision{}, false},
		{"hookSpecificOutput without hookEventName", `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, 0, hooks.Decision{}, true},
		{"hookSpecificOutput for another event", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}`, 0, hooks.Decision{}, true},
		{"bad permissionDecision", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}`, 0, hooks.Decision{}, true},
		{"wrong type", `{"continue":"no"}`, 0, hooks.Decision{}, true},
		{"continue false", `{"continue":false,"stopReason":"halt","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, 0,
			hooks.Decision{StopTurn: true, StopReason: "halt", Permission: hooks.Allow}, false},
		{"exit 1 with deny JSON denies", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json"}}`, 1,
			hooks.Decision{Permission: hooks.Deny, Reason: "json"}, false},
		{"exit 2 overrides JSON allow", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"a":1}}}`, 2,
			hooks.Decision{Permission: hooks.Deny}, false},
		{"exit 2 with invalid JSON blocks", `{"hookSpecificOutput":`, 2, hooks.Decision{Permission: hooks.Deny}, false},
		{"exit 1 with invalid JSON is an error", `{"x":`, 1, hooks.Decision{}, true},
		{"leading whitespace JSON", "  \n{\"decision\":\"block\",\"reason\":\"r\"}\n", 0, hooks.Decision{Permission: hooks.Deny, Reason: "r"}, false},
		{"suppressOutput has no effect", `{"suppressOutput":true}`, 0, hooks.Decision{}, false},
		{"plain stdout is not context", "hello", 0, hooks.Decision{}, false},
		{"unknown fields ignored", `{"terminalSequence":"x","hookSpecificOutput":{"hookEventName":"PreToolUse","sessionTitle":"t"}}`, 0, hooks.Decision{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := runOutput(t, hooks.PreToolUse, tt.stdout, tt.exit)
			if diff := cmp.Diff(tt.want, d, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if (err != nil) != tt.err {
				t.Errorf("error = %v, want error %v", err, tt.err)
			}
		})
	}
}

func TestEventSpecificOutputs(t *testing.T) {
	tests := []struct {
		name   string
		ev     hooks.Event
		stdout string
		exit   int
		want   hooks.Decision
		err    bool
	}{
		{"PermissionRequest deny", hooks.PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"nope"}}}`, 0,
			hooks.Decision{Permission: hooks.Deny, Reason: "nope"}, false},
		{"PermissionRequest deny interrupt", hooks.PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"stop","interrupt":true}}}`, 0,
			hooks.Decision{Permission: hooks.Deny, Reason: "stop", StopTurn: true, StopReason: "stop"}, false},
		{"PermissionRequest allow with updatedPermissions", hooks.PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[
			{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*"},{"toolName":"WebFetch"}],"behavior":"allow","destination":"localSettings"},
			{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}`, 0,
			hooks.Decision{Permission: hooks.Allow, UpdatedPermissions: []hooks.PermissionUpdate{
				{Type: "addRules", Rules: []string{"Bash(npm test:*)", "WebFetch"}, Behavior: "allow", Destination: "localSettings"},
				{Type: "setMode", Mode: "acceptEdits", Destination: "session"},
			}}, false},
		{"PermissionRequest bad behavior", hooks.PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"ask"}}}`, 0,
			hooks.Decision{}, true},
		{"PostToolUse updatedToolOutput", hooks.PostToolUse, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"redacted"}}`, 0,
			hooks.Decision{ReplaceResult: str("redacted")}, false},
		{"PostToolUse updatedMCPToolOutput ignored for non-MCP", hooks.PostToolUse, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"a":1}}}`, 0,
			hooks.Decision{}, false},
		{"Stop block without reason is an error", hooks.Stop, `{"decision":"block"}`, 0, hooks.Decision{}, true},
		{"Stop additionalContext continues", hooks.Stop, `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"keep going"}}`, 0,
			hooks.Decision{Block: true, Reason: "keep going"}, false},
		{"Stop continue false beats block", hooks.Stop, `{"continue":false,"stopReason":"enough","decision":"block","reason":"more"}`, 0,
			hooks.Decision{StopTurn: true, StopReason: "enough", Block: true, Reason: "more"}, false},
		{"Stop plain stdout is debug only", hooks.Stop, "all good", 0, hooks.Decision{}, false},
		{"Stop exit 2 empty stderr still blocks", hooks.Stop, "", 2, hooks.Decision{Block: true}, false},
		{"UserPromptSubmit plain context", hooks.UserPromptSubmit, "branch: main\n", 0, hooks.Decision{AdditionalContext: []string{"branch: main"}}, false},
		{"SessionStart top-level additionalContext dropped", hooks.SessionStart, `{"additionalContext":"x"}`, 0, hooks.Decision{}, false},
		{"Notification exit 2 ignored", hooks.Notification, "", 2, hooks.Decision{}, false},
		{"PreCompact block", hooks.PreCompact, `{"decision":"block","reason":"not now"}`, 0, hooks.Decision{Block: true, Reason: "not now"}, false},
		{"bad decision value", hooks.PostToolUse, `{"decision":"deny"}`, 0, hooks.Decision{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := runOutput(t, tt.ev, tt.stdout, tt.exit)
			if diff := cmp.Diff(tt.want, d, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if (err != nil) != tt.err {
				t.Errorf("error = %v, want error %v", err, tt.err)
			}
		})
	}
}

func TestUpdatedMCPToolOutput(t *testing.T) {
	b := bridgeWith(t, hooks.PostToolUse, cmd(`cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"a":1}}}'`))
	in := inputFor(hooks.PostToolUse, t.TempDir())
	in.ToolName = "mcp__memory__read"
	d, err := b.Run(context.Background(), in)
	if err != nil || d.ReplaceResult == nil || *d.ReplaceResult != `{"a":1}` {
		t.Fatalf("got %+v, %v", d, err)
	}
}

func TestMergePrecedence(t *testing.T) {
	pre := func(decision, reason string) string {
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"` + decision + `","permissionDecisionReason":"` + reason + `","additionalContext":"ctx ` + reason + `"}}`
	}
	tests := []struct {
		name    string
		stdouts []string
		exits   []int
		want    hooks.Decision
	}{
		{"deny beats all", []string{pre("allow", "a"), pre("ask", "b"), pre("deny", "c"), pre("defer", "d")}, []int{0, 0, 0, 0},
			hooks.Decision{Permission: hooks.Deny, Reason: "c", AdditionalContext: []string{"ctx a", "ctx b", "ctx c", "ctx d"}}},
		{"defer beats ask, both ask the editor", []string{pre("ask", "b"), pre("defer", "d"), pre("allow", "a")}, []int{0, 0, 0},
			hooks.Decision{Permission: hooks.Ask, Reason: "d", AdditionalContext: []string{"ctx b", "ctx d", "ctx a"}}},
		{"ask beats allow", []string{pre("allow", "a"), pre("ask", "b")}, []int{0, 0},
			hooks.Decision{Permission: hooks.Ask, Reason: "b", AdditionalContext: []string{"ctx a", "ctx b"}}},
		{"several deny reasons joined in config order", []string{pre("deny", "x"), pre("deny", "y")}, []int{0, 0},
			hooks.Decision{Permission: hooks.Deny, Reason: "x\n\ny", AdditionalContext: []string{"ctx x", "ctx y"}}},
		{"exit 2 deny among allows", []string{pre("allow", "a"), "ignored"}, []int{0, 2},
			hooks.Decision{Permission: hooks.Deny, AdditionalContext: []string{"ctx a"}}},
		{"continue false wins", []string{`{"continue":false,"stopReason":"halt"}`, pre("allow", "a")}, []int{0, 0},
			hooks.Decision{StopTurn: true, StopReason: "halt", Permission: hooks.Allow, Reason: "a", AdditionalContext: []string{"ctx a"}}},
		{"one failing hook does not hide the others", []string{"oops", pre("deny", "c")}, []int{1, 0},
			hooks.Decision{Permission: hooks.Deny, Reason: "c", AdditionalContext: []string{"ctx c"}}},
		{"last updatedInput in config order", []string{
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"v":1}}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"v":2}}}`}, []int{0, 0},
			hooks.Decision{Permission: hooks.Allow, UpdatedInput: json.RawMessage(`{"v":2}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := runOutputs(t, hooks.PreToolUse, tt.stdouts, tt.exits)
			// A hook that exits 1 without JSON failed: it is recorded,
			// and the others still decide.
			failing := slices.ContainsFunc(tt.exits, func(e int) bool { return e != 0 && e != 2 })
			if (err != nil) != failing {
				t.Errorf("recorded failures: %v, want some: %v", err, failing)
			}
			if diff := cmp.Diff(tt.want, d, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeIsConfigOrderNotCompletionOrder makes the first hook finish
// last.
func TestMergeIsConfigOrderNotCompletionOrder(t *testing.T) {
	b := bridgeWith(t, hooks.UserPromptSubmit,
		cmd("cat >/dev/null; sleep 0.3; echo first"),
		cmd("cat >/dev/null; echo second"),
		cmd("cat >/dev/null; sleep 0.1; echo third"))
	d, err := b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first", "second", "third"}, d.AdditionalContext); diff != "" {
		t.Fatalf("context order (-want +got):\n%s", diff)
	}
}

// TestAsyncHookCannotBlock: an async hook run where no session owns
// background work (no Later) still decides nothing; its context and its
// systemMessage are for the model, as when it runs in the background.
func TestAsyncHookCannotBlock(t *testing.T) {
	b := bridgeWith(t, hooks.PreToolUse, hookSpec{Type: "command", Async: true,
		Command: `cat >/dev/null; echo '{"systemMessage":"m","continue":false,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","additionalContext":"c"}}'`})
	d, err := b.Run(context.Background(), inputFor(hooks.PreToolUse, t.TempDir()))
	want := hooks.Decision{AdditionalContext: []string{"c", "m"}}
	if diff := cmp.Diff(want, d, cmpopts.EquateEmpty()); diff != "" || err != nil {
		t.Fatalf("(-want +got):\n%s err=%v", diff, err)
	}
}

func TestLongOutputCapped(t *testing.T) {
	b := bridgeWith(t, hooks.UserPromptSubmit, cmd(filepath.Join(testdataDir(t), "loud.sh")))
	d, err := b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.AdditionalContext) != 1 {
		t.Fatalf("context: %d entries", len(d.AdditionalContext))
	}
	c := d.AdditionalContext[0]
	if !strings.HasPrefix(c, strings.Repeat("x", maxText)) || !strings.Contains(c, "hook output truncated") || len(c) > maxText+200 {
		t.Fatalf("context not capped: %d bytes, tail %q", len(c), c[len(c)-80:])
	}
}
