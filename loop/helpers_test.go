package loop_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/sessionlog"
)

// The model server and the harness are in loop/looptest; what is here
// reads what only loop's tests look at.

// hookFunc adapts a function to hooks.Seams.
type hookFunc func(ctx context.Context, in *hooks.Input) hooks.Decision

func (f hookFunc) Run(ctx context.Context, in *hooks.Input) hooks.Decision { return f(ctx, in) }

func toolUpdates(updates []acp.SessionUpdate, id string) []*acp.ToolCallUpdate {
	var out []*acp.ToolCallUpdate
	for _, u := range updates {
		if c, ok := u.(*acp.ToolCallUpdate); ok && c.ToolCallID == id {
			out = append(out, c)
		}
	}
	return out
}

// waitFor polls cond (for durable events such as a request having arrived).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 20s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// withBuiltins returns a hook pipeline holding the built-in hooks of cfg
// (nil: the defaults cordis runs without a hooks/builtin entry).
func withBuiltins(t *testing.T, cfg *builtin.Config) (*hooks.Pipeline, *builtin.Set) {
	t.Helper()
	if cfg == nil {
		cfg = builtin.DefaultConfig()
	}
	p := hooks.NewPipeline()
	set, err := builtin.Register(p, cfg, builtin.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return p, set
}

// logEvents reads a session's log (or, with agentID, a subagent's).
func logEvents(t *testing.T, state, sid, agentID string) []sessionlog.Event {
	t.Helper()
	path := sessionlog.Path(state, sid)
	if agentID != "" {
		path = sessionlog.SubagentPath(state, sid, agentID)
	}
	events, _, err := sessionlog.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// logData decodes the data of the events of one type, in log order.
func logData(events []sessionlog.Event, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range events {
		if ev.Type == typ {
			var m map[string]any
			json.Unmarshal(ev.Data, &m)
			out = append(out, m)
		}
	}
	return out
}

// hookResults returns the hook/result decisions of one hook, in order.
func hookResults(events []sessionlog.Event, hook string) []map[string]any {
	var out []map[string]any
	for _, d := range logData(events, sessionlog.TypeHookResult) {
		if d["hook"] == hook {
			dec, _ := d["decision"].(map[string]any)
			out = append(out, dec)
		}
	}
	return out
}
