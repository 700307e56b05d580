package codex

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cordis-agent/cordis/hooks"
)

// want is the expected result of one hook run: a decision, or a failure
// (a substring of the recorded hook/error) with no effect.
type want struct {
	d    hooks.Decision
	fail string
}

var (
	none  = want{}
	seams = []hooks.Event{
		hooks.SessionStart, hooks.UserPromptSubmit, hooks.PreToolUse, hooks.PermissionRequest,
		hooks.PostToolUse, hooks.PostToolUseFailure, hooks.Stop, hooks.SubagentStart,
		hooks.SubagentStop, hooks.PreCompact, hooks.PostCompact, hooks.SessionEnd, hooks.Interrupt,
	}
)

func failing(sub string) want                   { return want{fail: sub} }
func deny(r string) want                        { return want{d: hooks.Decision{Permission: hooks.Deny, Reason: r}} }
func block(r string) want                       { return want{d: hooks.Decision{Block: true, Reason: r}} }
func replaceWith(r string) want                 { return want{d: hooks.Decision{ReplaceResult: ptr(r)}} }
func stopTurn(r string) want                    { return want{d: hooks.Decision{StopTurn: true, StopReason: r}} }
func addContext(c ...string) want               { return want{d: hooks.Decision{AdditionalContext: c}} }
func systemContext(c ...string) want            { return want{d: hooks.Decision{SystemContext: c}} }
func sysMessage(m string) want                  { return want{d: hooks.Decision{SystemMessages: []string{m}}} }
func with(w want, f func(*hooks.Decision)) want { f(&w.d); return w }

// forEvery gives every seam the same expectation, then applies overrides.
func forEvery(w want, overrides map[hooks.Event]want) map[hooks.Event]want {
	out := map[hooks.Event]want{}
	for _, s := range seams {
		out[s] = w
	}
	for s, o := range overrides {
		out[s] = o
	}
	return out
}

// TestEveryEventEveryOutputForm runs each fixed output form (testdata/emit.sh)
// as the only hook of each seam and checks Codex's decision for it.
func TestEveryEventEveryOutputForm(t *testing.T) {
	const (
		SS, UPS, PRE, PERM, POST, POSTF = hooks.SessionStart, hooks.UserPromptSubmit, hooks.PreToolUse, hooks.PermissionRequest, hooks.PostToolUse, hooks.PostToolUseFailure
		STOP, SAS, SASTOP, PC, SE       = hooks.Stop, hooks.SubagentStart, hooks.SubagentStop, hooks.PreCompact, hooks.SessionEnd
		POC, INT                        = hooks.PostCompact, hooks.Interrupt
	)
	exit2 := map[hooks.Event]want{
		PRE: deny("stderr reason"), PERM: deny("stderr reason"), POST: replaceWith("stderr reason"), POSTF: replaceWith("stderr reason"),
		UPS: block("stderr reason"), STOP: block("stderr reason"), SASTOP: block("stderr reason"),
		SS: failing("cannot block"), SAS: failing("cannot block"), PC: failing("cannot block"), SE: failing("cannot block"),
		POC: failing("cannot block"), INT: failing("cannot block"),
	}
	forms := []struct {
		form string
		want map[hooks.Event]want
	}{
		{"empty", forEvery(none, nil)},
		{"emptyobj", forEvery(none, nil)},
		{"text", forEvery(none, map[hooks.Event]want{
			SS: systemContext("plain text from the hook"), UPS: addContext("plain text from the hook"), SAS: addContext("plain text from the hook"),
			STOP: failing("plain text where JSON is required"), SASTOP: failing("plain text where JSON is required"),
			INT: failing("plain text where JSON is required"),
		})},
		{"sysmsg", forEvery(sysMessage("note for the user"), nil)},
		{"continue-false", forEvery(stopTurn("halt now"), map[hooks.Event]want{
			PRE:   failing(`"continue": false is not supported on PreToolUse`),
			PERM:  with(stopTurn("halt now"), func(d *hooks.Decision) { d.Permission, d.Reason = hooks.Deny, "halt now" }),
			POST:  with(stopTurn("halt now"), func(d *hooks.Decision) { d.ReplaceResult = ptr("halt now") }),
			POSTF: with(stopTurn("halt now"), func(d *hooks.Decision) { d.ReplaceResult = ptr("halt now") }),
			PC:    with(stopTurn("halt now"), func(d *hooks.Decision) { d.Block, d.Reason = true, "halt now" }),
			SE:    none, INT: none,
		})},
		{"block", forEvery(failing(`"decision" is not supported`), map[hooks.Event]want{
			PRE: deny("blocked because"), POST: replaceWith("blocked because"), POSTF: replaceWith("blocked because"),
			UPS: block("blocked because"), STOP: block("blocked because"), SASTOP: block("blocked because"),
			SE: none, INT: none,
		})},
		{"block-noreason", forEvery(failing(`needs a non-empty "reason"`), map[hooks.Event]want{
			PERM: failing(`"decision" is not supported`), SS: failing(`"decision" is not supported`),
			SAS: failing(`"decision" is not supported`), PC: failing(`"decision" is not supported`),
			POC: failing(`"decision" is not supported`),
			SE:  none, INT: none,
		})},
		{"block-context", forEvery(failing(`"decision" is not supported`), map[hooks.Event]want{
			// Codex keeps additionalContext even when the prompt is blocked.
			PRE:    with(deny("blocked because"), func(d *hooks.Decision) { d.AdditionalContext = []string{"extra context"} }),
			POST:   with(replaceWith("blocked because"), func(d *hooks.Decision) { d.AdditionalContext = []string{"extra context"} }),
			POSTF:  with(replaceWith("blocked because"), func(d *hooks.Decision) { d.AdditionalContext = []string{"extra context"} }),
			UPS:    with(block("blocked because"), func(d *hooks.Decision) { d.AdditionalContext = []string{"extra context"} }),
			STOP:   failing("hookSpecificOutput is not supported on Stop"),
			SASTOP: failing("hookSpecificOutput is not supported on SubagentStop"),
			SE:     none, INT: none,
		})},
		{"continue-false-block", forEvery(stopTurn("halt now"), map[hooks.Event]want{
			PRE:   failing(`"continue": false is not supported`),
			PERM:  failing(`"decision" is not supported`),
			POST:  with(stopTurn("halt now"), func(d *hooks.Decision) { d.ReplaceResult = ptr("blocked because") }),
			POSTF: with(stopTurn("halt now"), func(d *hooks.Decision) { d.ReplaceResult = ptr("blocked because") }),
			// continue:false wins over a Stop block and a prompt block.
			SS: failing(`"decision" is not supported`), SAS: failing(`"decision" is not supported`),
			UPS: with(stopTurn("halt now"), func(d *hooks.Decision) { d.Block, d.Reason = true, "blocked because" }),
			PC:  failing(`"decision" is not supported`), POC: failing(`"decision" is not supported`),
			SE: none, INT: none,
		})},
		{"reason-only", forEvery(none, map[hooks.Event]want{
			PRE: failing(`"reason" without "decision"`), POST: failing(`"reason" without "decision"`), POSTF: failing(`"reason" without "decision"`),
		})},
		{"exit2", exit2},
		// Exit 2 ignores stdout: stderr is the reason.
		{"exit2-json", exit2},
		{"exit2-empty", forEvery(failing("exit code 2 with empty stderr"), nil)},
		{"exit1-json", forEvery(failing("exit code 1"), nil)},
		{"exit3", forEvery(failing("exit code 3: boom"), nil)},
		{"invalid", forEvery(failing("invalid JSON"), nil)},
		{"array", forEvery(failing("not an object"), nil)},
		{"context", forEvery(addContext("extra context"), map[hooks.Event]want{
			SS: systemContext("extra context"), PERM: none, PC: none, SE: none, POC: none, INT: none,
			STOP: failing("hookSpecificOutput is not supported"), SASTOP: failing("hookSpecificOutput is not supported"),
		})},
		// Outside hookSpecificOutput, additionalContext means nothing.
		{"context-toplevel", forEvery(none, nil)},
		{"wrong-event", forEvery(failing(`hookEventName is "Other"`), nil)},
		{"no-event-name", forEvery(failing(`needs "hookEventName"`), nil)},
	}
	for _, f := range forms {
		if len(f.want) != len(seams) {
			t.Fatalf("form %s: expectations for %d seams, want all %d", f.form, len(f.want), len(seams))
		}
		for _, seam := range seams {
			t.Run(f.form+"/"+string(seam), func(t *testing.T) {
				t.Parallel()
				checkForm(t, seam, f.form, f.want[seam])
			})
		}
	}
}

// checkForm runs the form as the only hook of seam.
func checkForm(t *testing.T, seam hooks.Event, form string, w want) {
	t.Helper()
	codexEv, _ := codexEventOf(seam)
	path := t.TempDir() + "/hooks.json"
	writeFile(t, path, hooksJSON(codexEv, "", emit(t, form, codexEv)))
	e := newEnv(t, envOpts{path: path})
	d, failures := e.run(e.baseInput(seam))
	if w.fail != "" {
		if !contains(failures, w.fail) {
			t.Errorf("failures = %q, want one containing %q", failures, w.fail)
		}
		if diff := cmp.Diff(hooks.Decision{}, d, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("a failed run must have no effect (-want +got):\n%s", diff)
		}
		return
	}
	if len(failures) > 0 {
		t.Errorf("unexpected failures: %q", failures)
	}
	if diff := cmp.Diff(w.d, d, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("decision (-want +got):\n%s", diff)
	}
}

// TestToolSpecificForms covers the outputs that only tool events know.
func TestToolSpecificForms(t *testing.T) {
	cases := []struct {
		seam hooks.Event
		form string
		want want
	}{
		{hooks.PreToolUse, "deny", deny("no rm please")},
		{hooks.PreToolUse, "deny-noreason", failing("needs a non-empty permissionDecisionReason")},
		{hooks.PreToolUse, "allow", failing(`unsupported permissionDecision "allow" without "updatedInput"`)},
		{hooks.PreToolUse, "allow-updated", want{d: hooks.Decision{Permission: hooks.Allow,
			UpdatedInput: json.RawMessage(`{"command":"ls -la","description":"clean"}`)}}},
		{hooks.PreToolUse, "allow-updated-nocommand", failing(`needs a string "command"`)},
		{hooks.PreToolUse, "updated-only", failing(`"updatedInput" without permissionDecision "allow"`)},
		{hooks.PreToolUse, "ask", failing(`unsupported permissionDecision "ask"`)},
		{hooks.PreToolUse, "defer", failing(`unsupported permissionDecision "defer"`)},
		{hooks.PreToolUse, "approve", failing(`decision "approve" is not supported`)},
		{hooks.PreToolUse, "suppress", failing(`"suppressOutput" is not supported on PreToolUse`)},
		{hooks.PreToolUse, "stopreason-only", failing(`"stopReason" is not supported on PreToolUse`)},
		{hooks.PreToolUse, "exit1-deny", failing("exit code 1")},
		{hooks.PermissionRequest, "perm-allow", want{d: hooks.Decision{Permission: hooks.Allow}}},
		{hooks.PermissionRequest, "perm-deny", deny("not today")},
		{hooks.PermissionRequest, "perm-updated", failing("decision.updatedInput is not supported")},
		{hooks.PermissionRequest, "perm-permissions", failing("decision.updatedPermissions is not supported")},
		{hooks.PermissionRequest, "perm-interrupt", failing("decision.interrupt is not supported")},
		{hooks.PermissionRequest, "perm-unknown", failing(`unknown decision.behavior "maybe"`)},
		{hooks.PostToolUse, "mcp-output", failing(`"updatedMCPToolOutput" is not supported`)},
		{hooks.PostToolUse, "suppress", failing(`"suppressOutput" is not supported on PostToolUse`)},
		{hooks.UserPromptSubmit, "suppress", none},
		{hooks.Stop, "suppress", none},
	}
	for _, c := range cases {
		t.Run(string(c.seam)+"/"+c.form, func(t *testing.T) {
			t.Parallel()
			checkForm(t, c.seam, c.form, c.want)
		})
	}
}

func TestEmitScriptIsExecutable(t *testing.T) {
	fi, err := os.Stat("testdata/emit.sh")
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("testdata/emit.sh: %v, mode %v", err, fi.Mode())
	}
}
