package claude

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

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
// file, whose content becomes the decision's ShellEnv.
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
		Env:     withEnv(c.hookEnv(h), h.env),
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

// hookEnv is the call's environment for h. A background hook gets no
// CLAUDE_ENV_FILE: the file is read, and removed, when the call ends,
// before the hook could have written it.
func (c *call) hookEnv(h handler) []string {
	if c.envFile == "" || !h.async {
		return c.env
	}
	return slices.DeleteFunc(slices.Clone(c.env), func(v string) bool { return strings.HasPrefix(v, "CLAUDE_ENV_FILE=") })
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

// maxEnvFile caps what SessionStart hooks may leave in CLAUDE_ENV_FILE.
const maxEnvFile = 256 << 10

// Decision merges the verdicts; on SessionStart what the hooks wrote to
// CLAUDE_ENV_FILE is handed on as ShellEnv, which the loop runs before
// every later Bash command of the session, as Claude Code does.
func (c *call) Decision() hooks.Decision {
	d := merge(c.verdicts)
	if c.envFile == "" {
		return d
	}
	data, err := readEnvFile(c.envFile)
	switch {
	case err != nil:
		c.d.log.Warn("claude hooks: CLAUDE_ENV_FILE not applied", "error", err)
	case strings.TrimSpace(string(data)) != "":
		d.ShellEnv = append(d.ShellEnv, string(data))
	}
	return d
}

func readEnvFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnvFile+1))
	if err == nil && len(data) > maxEnvFile {
		err = fmt.Errorf("it holds more than %d bytes", maxEnvFile)
	}
	return data, err
}

func (c *call) Close() {
	if c.envFile != "" {
		os.Remove(c.envFile)
	}
}
