package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/sessionlog"
)

// toy is a dialect whose files hold one hook per line, "Event command";
// a command's stdout is its system message, and exit 3 denies.
type toy struct {
	path     string
	prepared int
}

type toyHook struct{ id trust.Hook }

func (h toyHook) Identity() trust.Hook { return h.id }
func (h toyHook) Advisory() bool       { return false }

func (d *toy) Info() Info {
	return Info{Name: "toy", Guard: guard.Dialect{Name: "Toy", Original: "Toy", Plugin: "bridge/toy"}}
}

func (d *toy) Seams() []Seam {
	return []Seam{{hooks.PreToolUse, "PreToolUse"}, {hooks.Stop, "Stop"}}
}

func (d *toy) Layers(string) []Layer { return []Layer{{Path: d.path, Explicit: true}} }

func (d *toy) Parse(l Layer, data []byte) *File[toyHook] {
	f := &File[toyHook]{ByEvent: map[string][]toyHook{}}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		ev, command, ok := strings.Cut(line, " ")
		if !ok {
			f.Problems = append(f.Problems, l.Path+": bad line "+line)
			continue
		}
		h := toyHook{trust.Hook{Dialect: "toy", Source: l.Path, Event: ev, Type: "command", Command: command}}
		f.ByEvent[ev], f.All = append(f.ByEvent[ev], h), append(f.All, h)
	}
	return f
}

func (d *toy) Match(*hooks.Input) func(toyHook) bool { return func(toyHook) bool { return true } }

func (d *toy) Prepare(in *hooks.Input, _ []toyHook, _ bool) (Call[toyHook], error) {
	d.prepared++
	return &toyCall{in: in}, nil
}

type toyCall struct {
	in *hooks.Input
	d  hooks.Decision
}

func (c *toyCall) Command(h toyHook) hookproc.Command {
	return hookproc.Command{Shell: []string{"sh", "-c"}, Command: h.id.Command, Dir: c.in.Cwd, Timeout: 5 * time.Second}
}

func (c *toyCall) Interpret(_ toyHook, res hookproc.Result) string {
	switch {
	case res.Exited() && res.ExitCode == 0:
		c.d.SystemMessages = append(c.d.SystemMessages, strings.TrimSpace(res.Stdout))
		return ""
	case res.Exited() && res.ExitCode == 3:
		c.d.Permission = hooks.Deny
		return ""
	}
	return "failed: " + res.Failure() + strings.TrimSpace(res.Stderr)
}

func (c *toyCall) Refuse(reason string)     { c.d.Permission, c.d.Reason = hooks.Deny, reason }
func (c *toyCall) Decision() hooks.Decision { return c.d }
func (c *toyCall) Close()                   {}

func newToy(t *testing.T, content string, policy string) (*Engine[toyHook], *toy) {
	path := filepath.Join(t.TempDir(), "hooks.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &toy{path: path}
	return New(d, Options{GuardFailure: policy}), d
}

func recordInput(ev hooks.Event, errs *[]guard.ErrorRecord) *hooks.Input {
	in := &hooks.Input{Event: ev, SessionID: "s", TurnID: "t", ToolName: "Bash"}
	in.Record = func(typ string, data any) {
		if typ == sessionlog.TypeHookError {
			*errs = append(*errs, data.(guard.ErrorRecord))
		}
	}
	return in
}

// TestAppliesHasNoEffect: Applies neither prepares a call nor takes a
// session's notices; Run does both.
func TestAppliesHasNoEffect(t *testing.T) {
	e, d := newToy(t, "Stop echo hi\nbroken\n", "")
	var errs []guard.ErrorRecord
	in := recordInput(hooks.Stop, &errs)
	for range 3 {
		if !e.Applies(in) {
			t.Fatal("Applies = false with a hook to run")
		}
	}
	if d.prepared != 0 {
		t.Fatalf("Applies prepared %d calls", d.prepared)
	}
	dec, err := e.Run(context.Background(), in)
	if err != nil || d.prepared != 1 || len(dec.SystemMessages) != 2 || !strings.Contains(dec.SystemMessages[0], "bad line broken") || dec.SystemMessages[1] != "hi" {
		t.Fatalf("Run: %+v, %v, prepared %d", dec, err, d.prepared)
	}
	if dec, _ := e.Run(context.Background(), in); len(dec.SystemMessages) != 1 {
		t.Errorf("the file problem was shown twice: %q", dec.SystemMessages)
	}
}

// TestFailuresAreRecorded: a failed run is recorded and the others still
// decide; a guard that could not run follows guardFailure.
func TestFailuresAreRecorded(t *testing.T) {
	e, _ := newToy(t, "Stop exit 1\nStop echo ok\n", "")
	var errs []guard.ErrorRecord
	dec, err := e.Run(context.Background(), recordInput(hooks.Stop, &errs))
	if err != nil || len(errs) != 1 || errs[0].Command != "exit 1" || len(dec.SystemMessages) != 1 || dec.SystemMessages[0] != "ok" {
		t.Errorf("Stop: %+v, %v, records %+v", dec, err, errs)
	}

	e, _ = newToy(t, "PreToolUse /nonexistent/guard\n", "deny")
	errs = nil
	dec, _ = e.Run(context.Background(), recordInput(hooks.PreToolUse, &errs))
	if dec.Permission != hooks.Deny || len(errs) != 1 || !strings.Contains(errs[0].Error, "not found") ||
		len(dec.SystemMessages) != 1 || !strings.Contains(dec.SystemMessages[0], "refused (guardFailure: deny)") {
		t.Errorf("guard: %+v, records %+v", dec, errs)
	}
}

func TestObjectKeepsOrder(t *testing.T) {
	var o Object
	o.Set("z", "a && b")
	o.Set("a", json.RawMessage(nil))
	o.Set("m", nil)
	if got := string(o.JSON()); got != `{"z":"a && b","a":null,"m":null}` {
		t.Errorf("JSON = %s", got)
	}
	var html Object
	html.Set("k", "<&>")
	if got := string(html.JSON()); got != `{"k":"<&>"}` {
		t.Errorf("JSON = %s; want <, > and & as written", got)
	}
}
