package claude

import (
	"os"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/hooks"
)

// call is one seam call: every command gets the same stdin and
// environment, and their verdicts are merged in configuration order.
type call struct {
	d        *dialect
	in       *hooks.Input
	stdin    []byte
	env      []string
	envFile  string
	verdicts []verdict
}

// Prepare brings the session's transcripts up to date, renders the
// event's input and, on SessionStart, creates the CLAUDE_ENV_FILE scratch
// file (whose exports cordis does not apply).
func (d *dialect) Prepare(in *hooks.Input, _ []handler, _ bool) (engine.Call[handler], error) {
	paths := d.syncTranscripts(in)
	c := &call{d: d, in: in, stdin: renderInput(in, paths), env: []string{"CLAUDE_PROJECT_DIR=" + in.Cwd}}
	if in.Event == hooks.SessionStart {
		if f, err := os.CreateTemp("", "cordis-claude-env-*"); err == nil {
			c.envFile = f.Name()
			f.Close()
			c.env = append(c.env, "CLAUDE_ENV_FILE="+c.envFile)
		}
	}
	return c, nil
}

// syncTranscripts renders what the session log (and the subagent's) added
// since the last hook into the transcripts hooks read, and returns their
// paths. A session that ends is forgotten after its last rendering. A
// failure is logged: the hook still runs, with the file as it is.
func (d *dialect) syncTranscripts(in *hooks.Input) rendering.Paths {
	paths, err := d.transcripts.Sync(in)
	if err != nil {
		d.log.Warn("claude transcript not brought up to date", "session", in.SessionID, "error", err)
	}
	if in.Event == hooks.SessionEnd {
		d.transcripts.Forget(in.SessionLogPath)
	}
	return paths
}

// Command runs h through its shell, or in the exec form (args) with
// ${CLAUDE_PROJECT_DIR} expanded.
func (c *call) Command(h handler) hookproc.Command {
	cmd := hookproc.Command{
		Shell:   h.shell,
		Command: h.command,
		Dir:     c.in.Cwd,
		Env:     c.env,
		Stdin:   c.stdin,
		Timeout: timeoutFor(c.in.Event, h.timeout),
	}
	if h.args != nil {
		cmd.Exec = append([]string{expandProjectDir(h.command, c.in.Cwd)}, h.args...)
		for j := 1; j < len(cmd.Exec); j++ {
			cmd.Exec[j] = expandProjectDir(cmd.Exec[j], c.in.Cwd)
		}
	}
	return cmd
}

// Interpret translates one result; an async hook keeps only its context
// and messages.
func (c *call) Interpret(h handler, res hookproc.Result) string {
	v := translate(c.in.Event, c.in, res)
	if h.async {
		v.d = hooks.Decision{AdditionalContext: v.d.AdditionalContext, SystemMessages: v.d.SystemMessages}
		v.rank = rankNone
	}
	c.verdicts = append(c.verdicts, v)
	if v.err != nil {
		return v.err.Error()
	}
	return ""
}

func (c *call) Refuse(reason string) {
	c.verdicts[len(c.verdicts)-1].setPermission(rankDeny, reason)
}

func (c *call) Decision() hooks.Decision { return merge(c.verdicts) }

func (c *call) Close() {
	if c.envFile == "" {
		return
	}
	if info, err := os.Stat(c.envFile); err == nil && info.Size() > 0 {
		c.d.log.Warn("claude hooks: a SessionStart hook wrote to CLAUDE_ENV_FILE; cordis does not apply those variables to later commands", "bytes", info.Size())
	}
	os.Remove(c.envFile)
}
