package codex

import (
	"fmt"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/hooks"
)

// call is one seam call: the tool mapped to Codex's view, the rendered
// input, and the outcomes of its runs in configuration order.
type call struct {
	event string
	in    *hooks.Input
	tv    *toolView
	stdin []byte
	shell []string
	outs  []outcome
}

// Prepare does the session's bookkeeping (subagent types, the content of
// a file before an edit that a PostToolUse hook will see) and renders
// Codex's input for the handlers of run.
func (d *dialect) Prepare(in *hooks.Input, run []*handler, observed bool) (engine.Call[*handler], error) {
	event, _ := codexEventOf(in.Event)
	in = d.sessions.begin(event, in)
	c := &call{event: event, in: in, shell: d.shell}
	switch {
	case event == evPostToolUse:
		// Forget the kept content whether or not a hook runs.
		before := d.sessions.take(in.SessionID, in.ToolUseID)
		if in.Event != hooks.PostToolUse {
			before = nil // the call failed: the file is as it was
		}
		if len(run) > 0 {
			c.tv = viewTool(in, before)
		}
	case isToolEvent(event) && len(run) > 0:
		c.tv = viewTool(in, nil)
		if observed && c.tv.before.ok {
			d.sessions.keep(in.SessionID, in.ToolUseID, c.tv.before)
		}
	case observed && event == evPreToolUse:
		d.sessions.snapshot(in)
	}
	if len(run) == 0 {
		return c, nil
	}
	if len(c.shell) == 0 {
		c.shell = hookproc.LoginShell()
	}
	stdin, err := renderInput(event, in, c.tv, d.syncRollouts(in))
	if err != nil {
		return nil, fmt.Errorf("rendering the hook input: %v", err)
	}
	c.stdin = stdin
	return c, nil
}

// syncRollouts renders what the session log (and the subagent's) added
// since the last hook into the rollouts hooks read, and returns their
// paths. A session that ends is forgotten after its last rendering. A
// failure is logged: the hook still runs, with the file as it is.
func (d *dialect) syncRollouts(in *hooks.Input) rendering.Paths {
	paths, err := d.rollouts.Sync(in)
	if err != nil {
		d.log.Warn("codex rollout not brought up to date", "session", in.SessionID, "error", err)
	}
	if in.Event == hooks.SessionEnd {
		d.rollouts.Forget(in.SessionLogPath)
	}
	return paths
}

// Command runs h through the shell in the session's cwd.
func (c *call) Command(h *handler) hookproc.Command {
	return hookproc.Command{Shell: c.shell, Command: h.command, Dir: c.in.Cwd, Stdin: c.stdin, Timeout: h.timeout}
}

// Interpret applies Codex's rules to one result; an allowed updatedInput
// is mapped back onto cordis's tool.
func (c *call) Interpret(_ *handler, r hookproc.Result) string {
	o := interpret(c.event, r)
	if o.failure == "" && o.allow && o.updatedInput != nil && c.tv != nil {
		mapped, err := mapUpdatedInput(c.tv, o.updatedInput)
		if err != nil {
			o = failed("%v", err)
		} else {
			o.updatedInput = mapped
		}
	}
	c.outs = append(c.outs, o)
	return o.failure
}

func (c *call) Refuse(reason string) { c.outs[len(c.outs)-1] = outcome{block: true, reason: reason} }

func (c *call) Decision() hooks.Decision { return merge(c.event, c.outs) }

func (c *call) Close() {}
