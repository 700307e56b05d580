package claude

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
)

// FuzzTranslate feeds arbitrary hook output (stdout, stderr, exit status)
// for every event to the Claude Code output parser and the merge. It must
// never panic, and the decision must stay within what the dialect allows:
// a known permission, capped texts, updated input only as a JSON object and
// never together with a deny, nothing from a command that did not exit.
func FuzzTranslate(f *testing.F) {
	seeds := []struct {
		event          hooks.Event
		stdout, stderr string
		exit           int
	}{
		{hooks.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, "", 0},
		{hooks.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, "", 0},
		{hooks.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","updatedInput":[1]}}`, "", 0},
		{hooks.PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m","interrupt":true}}}`, "", 0},
		{hooks.PostToolUse, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"a":1},"additionalContext":"c"}}`, "", 0},
		{hooks.Stop, `{"decision":"block","reason":"keep going"}`, "", 0},
		{hooks.PreToolUse, `{"decision":"approve","reason":"fine"}`, "", 1},
		{hooks.PostToolUse, `{"continue":false,"stopReason":"halt","systemMessage":"bye"}`, "", 0},
		{hooks.Stop, `{"decision":"maybe"}`, "bad", 1},
		{hooks.PreToolUse, `{"hookSpecificOutput":"x"}`, "", 0},
		{hooks.PreToolUse, `{not json`, "", 0},
		{hooks.UserPromptSubmit, "plain context text", "", 0},
		{hooks.UserPromptSubmit, "", "blocked on stderr", 2},
		{hooks.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`, "why", 2},
		{hooks.PreToolUse, "", "", 137},
		{hooks.UserPromptSubmit, strings.Repeat("é", maxText+5), "", 0},
		{hooks.PreToolUse, `{"systemMessage":"` + strings.Repeat("x", maxText+1) + `"}`, "", 0},
	}
	for _, s := range seeds {
		f.Add(uint8(slices.Index(supportedEvents, s.event)), s.stdout, s.stderr, s.exit, false)
	}
	f.Add(uint8(2), "", "", -1, true)
	f.Fuzz(func(t *testing.T, evIndex uint8, stdout, stderr string, exit int, timedOut bool) {
		ev := supportedEvents[int(evIndex)%len(supportedEvents)]
		in := &hooks.Input{Event: ev, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}
		if evIndex&0x80 != 0 {
			in.ToolName = "mcp__srv__tool"
		}
		res := hookproc.Result{Stdout: stdout, Stderr: stderr, ExitCode: exit, TimedOut: timedOut}
		v := translate(ev, in, res)
		if !res.Exited() {
			if v.err == nil || v.rank != rankNone || !decisionIsEmpty(v.d) {
				t.Fatalf("%s: a command that did not exit gave a verdict: %+v", ev, v)
			}
		}
		checkDecision(t, ev, v.d)
		if (v.rank == rankNone) != (v.d.Permission == hooks.NoOpinion) {
			t.Fatalf("%s: rank %d with permission %q", ev, v.rank, v.d.Permission)
		}
		d := merge([]verdict{v, v})
		checkDecision(t, ev, d)
		if d.Permission == hooks.Deny && d.UpdatedInput != nil {
			t.Fatalf("%s: merged deny keeps updated input %s", ev, d.UpdatedInput)
		}
	})
}

func checkDecision(t *testing.T, ev hooks.Event, d hooks.Decision) {
	t.Helper()
	switch d.Permission {
	case hooks.NoOpinion, hooks.Allow, hooks.Deny, hooks.Ask:
	default:
		t.Fatalf("%s: unknown permission %q", ev, d.Permission)
	}
	if d.Permission != hooks.NoOpinion && ev != hooks.PreToolUse && ev != hooks.PermissionRequest {
		t.Fatalf("%s: a permission on an event without one: %+v", ev, d)
	}
	if d.UpdatedInput != nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(d.UpdatedInput, &m) != nil || m == nil {
			t.Fatalf("%s: updated input %q is not a JSON object", ev, d.UpdatedInput)
		}
	}
	// Texts are capped (merge joins the reasons of several commands).
	limit := 3*maxText + 200
	texts := append(append([]string{d.Reason, d.StopReason}, d.AdditionalContext...), d.SystemMessages...)
	if d.ReplaceResult != nil {
		texts = append(texts, *d.ReplaceResult)
	}
	for _, s := range texts {
		if n := utf8.RuneCountInString(s); n > limit {
			t.Fatalf("%s: a hook text of %d characters passed the cap", ev, n)
		}
	}
}

func decisionIsEmpty(d hooks.Decision) bool {
	return d.Permission == "" && !d.Block && d.Reason == "" && d.UpdatedInput == nil && d.ReplaceResult == nil &&
		len(d.AdditionalContext) == 0 && len(d.SystemMessages) == 0 && !d.StopTurn && d.StopReason == ""
}
