package codex

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
)

// FuzzInterpret feeds arbitrary hook output (stdout, stderr, exit status)
// for every Codex event to the output parser and the merge. It must never
// panic; a failed run says nothing else; Codex's rules hold: block and
// allow never together, updated input only on PreToolUse and never with a
// deny, permissions only on PreToolUse and PermissionRequest (never ask).
func FuzzInterpret(f *testing.F) {
	seeds := []struct {
		event          string
		stdout, stderr string
		exit           int
	}{
		{evPreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, "", 0},
		{evPreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, "", 0},
		{evPreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":"x"}}`, "", 0},
		{evPermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`, "", 0},
		{evStop, `{"decision":"block","reason":"keep going"}`, "", 0},
		{evStop, `{"decision":"block"}`, "", 0},
		{evPreToolUse, `{"decision":"approve","reason":"r"}`, "", 0},
		{evPostToolUse, `{"continue":false,"stopReason":"halt","systemMessage":"bye"}`, "", 0},
		{evPreToolUse, `{"a":1}{"b":2}`, "", 0},
		{evPreToolUse, `[1,2]`, "", 0},
		{evUserPromptSubmit, `{"hookSpecificOutput":{"additionalContext":"c"}}`, "", 0},
		{evUserPromptSubmit, "plain context text", "", 0},
		{evUserPromptSubmit, "", "blocked on stderr", 2},
		{evPreToolUse, "", "", 2},
		{evPreToolUse, "", "oops", 1},
	}
	for _, s := range seeds {
		f.Add(uint8(slices.Index(codexEvents, s.event)), s.stdout, s.stderr, s.exit, int64(0))
	}
	f.Add(uint8(3), "{}", "", 0, int64(10))
	f.Fuzz(func(t *testing.T, evIndex uint8, stdout, stderr string, exit int, omitted int64) {
		event := codexEvents[int(evIndex)%len(codexEvents)]
		res := hookproc.Result{Stdout: stdout, Stderr: stderr, ExitCode: exit, StdoutOmitted: omitted}
		o := interpret(event, res)
		if o.failure != "" {
			if o.block || o.allow || o.stop || o.updatedInput != nil || len(o.context) > 0 || o.systemMessage != "" {
				t.Fatalf("%s: a failed run said more: %+v", event, o)
			}
		}
		if o.block && o.allow {
			t.Fatalf("%s: block and allow together: %+v", event, o)
		}
		// A non-object updatedInput is refused later, by Run's
		// mapUpdatedInput; here it may only come from PreToolUse.
		if o.updatedInput != nil && event != evPreToolUse {
			t.Fatalf("%s: updated input on an event without it: %+v", event, o)
		}
		d := merge(event, []outcome{o, o})
		switch d.Permission {
		case hooks.NoOpinion:
		case hooks.Allow, hooks.Deny:
			if event != evPreToolUse && event != evPermissionRequest {
				t.Fatalf("%s: a permission on an event without one: %+v", event, d)
			}
		default:
			t.Fatalf("%s: permission %q (Codex has no ask)", event, d.Permission)
		}
		if d.Permission == hooks.Deny && d.UpdatedInput != nil {
			t.Fatalf("%s: deny with updated input: %+v", event, d)
		}
		if o.failure != "" && !(d.Permission == "" && !d.Block && d.ReplaceResult == nil && !d.StopTurn) {
			t.Fatalf("%s: a failed run changed the decision: %+v", event, d)
		}
	})
}

// FuzzParseTOMLFile feeds arbitrary config.toml content to the TOML hook
// parser. It must never panic; a file with a fatal problem has no
// handlers; every handler it keeps has a command, a matcher and a
// timeout within Codex's bounds.
func FuzzParseTOMLFile(f *testing.F) {
	f.Add([]byte("[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"python3 check.py\"\ntimeout = 30\n"))
	f.Add([]byte("[[hooks.SessionEnd]]\n[[hooks.SessionEnd.hooks]]\ncommand = \"x\"\ntimeout = 1e300\n[hooks.state.\"k\"]\ntrusted_hash = \"h\"\n"))
	f.Add([]byte("[hooks]\nStop = [{ matcher = \"(\", hooks = [{ command = \"a\" }] }, { hooks = [{ command = 1979-05-27, timeout = nan }] }]\n"))
	f.Add([]byte("model = \"o3\"\n[hooks]\nUnknown = []\n"))
	f.Add([]byte("[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"prompt\"\n[[hooks.Stop.hooks]]\nasync = true\ncommand = 'a'\ntimeout_sec = -5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := parseTOMLFile("/p/.codex/config.toml", data)
		fatal := false
		for _, p := range file.problems {
			if !strings.HasPrefix(p, file.path) {
				t.Fatalf("problem %q does not name the file", p)
			}
			fatal = fatal || strings.HasSuffix(p, "its hooks are ignored")
		}
		if fatal && (len(file.all) > 0 || file.declared) {
			t.Fatalf("a file with a fatal problem kept %d handlers", len(file.all))
		}
		n := 0
		for ev, hs := range file.handlers {
			for _, h := range hs {
				n++
				if h.event != ev || h.file != file || h.matcher == nil || strings.TrimSpace(h.command) == "" {
					t.Fatalf("bad handler %+v", h)
				}
				if h.timeout < time.Second || h.timeout > maxTimeout || ev == evSessionEnd && h.timeout > sessionEndMax {
					t.Fatalf("%s timeout %s", ev, h.timeout)
				}
			}
		}
		if n != len(file.all) {
			t.Fatalf("%d handlers by event, %d in all", n, len(file.all))
		}
	})
}
