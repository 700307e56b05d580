package guard

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/sessionlog"
)

// Policy is what happens to a call whose guard could not run.
type Policy string

const (
	// Proceed is the original tools' behaviour: the guard has no say and
	// the call goes on as if it had not run.
	Proceed Policy = "proceed"
	// Deny refuses the call (fail closed).
	Deny Policy = "deny"
)

// Parse checks a configured value; "" is Proceed.
func Parse(s string) (Policy, error) {
	switch Policy(s) {
	case "", Proceed:
		return Proceed, nil
	case Deny:
		return Deny, nil
	}
	return "", fmt.Errorf("guardFailure must be %q (the default) or %q, got %q", Proceed, Deny, s)
}

// UnmarshalYAML rejects values other than proceed and deny when cordis.yml
// is loaded: a mistyped "deny" must not quietly fail open.
func (p *Policy) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := Parse(s)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*p = v
	return nil
}

// Guards reports whether the hooks of ev are guards: hooks whose verdict
// decides whether a tool call runs.
func Guards(ev hooks.Event) bool { return ev == hooks.PreToolUse || ev == hooks.PermissionRequest }

// Dialect names a bridge in messages.
type Dialect struct {
	// Name is the dialect as cordis calls it ("Claude"), Original the
	// tool whose behaviour the default follows ("Claude Code") and Plugin
	// the cordis.yml plugin that takes guardFailure ("bridge/claude").
	Name, Original, Plugin string
}

// Failure is one guard that could not run.
type Failure struct {
	Dialect Dialect
	Event   hooks.Event
	// Tool is the name of the call the guard was asked about.
	Tool string
	// Command and Source are the hook's command and the file declaring it.
	Command, Source string
	// Why is what went wrong (hookproc.Result.NotRun).
	Why string
}

// Message is what the editor shows, under policy p.
func (f Failure) Message(p Policy) string {
	head := fmt.Sprintf("The %s %s hook `%s` (%s) could not run: %s.", f.Dialect.Name, f.Event, f.Command, f.Source, f.Why)
	if p == Deny {
		return fmt.Sprintf("%s The %s call is refused (guardFailure: deny).", head, f.Tool)
	}
	return fmt.Sprintf("%s As in %s, the %s call goes on as if the hook had not run; set guardFailure: deny on %s in cordis.yml to refuse such calls instead.",
		head, f.Dialect.Original, f.Tool, f.Dialect.Plugin)
}

// Reason is the refusal's reason under Deny, for the model.
func (f Failure) Reason() string {
	return fmt.Sprintf("The %s hook `%s` could not run (%s), and cordis is set to refuse a call that a guard could not check (guardFailure: deny).",
		f.Event, f.Command, f.Why)
}

// ErrorRecord is the session-log record (hook/error) of one hook command
// that failed, in both dialects. The bridge's other commands of the event
// still decide, so a bridge records it through Input.Record rather than
// returning an error (which would discard their decisions).
type ErrorRecord struct {
	Hook       string      `json:"hook"`
	Event      hooks.Event `json:"event"`
	Command    string      `json:"command"`
	Source     string      `json:"source"`
	ExitCode   int         `json:"exitCode"`
	DurationMs float64     `json:"durationMs"`
	Error      string      `json:"error"`
}

// Record writes the hook/error record of command (declared in source) run
// by the bridge named hook for in, when the loop records.
func Record(in *hooks.Input, hook, command, source string, res hookproc.Result, why string) {
	if in.Record == nil {
		return
	}
	in.Record(sessionlog.TypeHookError, ErrorRecord{
		Hook: hook, Event: in.Event, Command: command, Source: source,
		ExitCode: res.ExitCode, DurationMs: float64(res.Duration.Microseconds()) / 1000, Error: why,
	})
}
