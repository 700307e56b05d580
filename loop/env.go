package loop

import (
	"context"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/tools"
)

// toolEnv builds the environment for one tool call: the editor's file
// system and terminals when it offers them, the plan and subagent hooks.
func (s *Session) toolEnv(ctx context.Context, r *runner, toolCallID string) *tools.Env {
	caps := s.agent.client.Capabilities()
	env := &tools.Env{
		SessionID: s.id,
		Cwd:       s.cwd,
		Roots:     s.roots,
		EnvPolicy: s.agent.cfg.EnvPolicy,
		Progress: func(res tools.Result) {
			s.notify(ctx, acp.ToolCallUpdate{ToolCallID: toolCallID, Content: resultContent(res)})
		},
		Todos: func(ctx context.Context, items []tools.TodoItem) error {
			entries := make([]acp.PlanEntry, len(items))
			for i, it := range items {
				entries[i] = acp.PlanEntry{Content: it.Content, Status: it.Status, Priority: firstNonEmpty(it.Priority, "medium")}
			}
			r.record(planEvent(entries))
			s.notify(ctx, acp.PlanUpdate{Entries: entries})
			return nil
		},
		RunSubagent: func(ctx context.Context, in tools.TaskInput) (string, error) {
			return r.runSubagent(ctx, toolCallID, in)
		},
		AskUser: func(ctx context.Context, qs []tools.Question) ([]tools.Answer, error) {
			return s.askUser(ctx, toolCallID, qs)
		},
		Background: s.background,
		Web:        s.agent.cfg.Web,
	}
	if caps.FS.ReadTextFile && caps.FS.WriteTextFile {
		env.FS = clientFS{c: s.agent.client, sessionID: s.id}
	}
	if caps.Terminal {
		env.Terminals = clientTerminals{c: s.agent.client, sessionID: s.id}
	}
	return env
}

// clientFS reads and writes through the editor, so edits see (and land
// in) unsaved buffers.
type clientFS struct {
	c         *acp.Client
	sessionID string
}

func (f clientFS) ReadTextFile(ctx context.Context, path string) (string, error) {
	return f.c.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: f.sessionID, Path: path})
}

func (f clientFS) WriteTextFile(ctx context.Context, path, content string) error {
	return f.c.WriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: f.sessionID, Path: path, Content: content})
}

// clientTerminals runs commands in editor terminals.
type clientTerminals struct {
	c         *acp.Client
	sessionID string
}

func (t clientTerminals) Create(ctx context.Context, command string, args []string, cwd string, limit int) (string, error) {
	req := &acp.CreateTerminalRequest{SessionID: t.sessionID, Command: command, Args: args, Cwd: cwd}
	if limit > 0 {
		req.OutputByteLimit = &limit
	}
	return t.c.CreateTerminal(ctx, req)
}

func (t clientTerminals) Output(ctx context.Context, id string) (string, bool, *tools.ExitStatus, error) {
	resp, err := t.c.TerminalOutput(ctx, &acp.TerminalRequest{SessionID: t.sessionID, TerminalID: id})
	if err != nil {
		return "", false, nil, err
	}
	return resp.Output, resp.Truncated, exitStatus(resp.ExitStatus), nil
}

func (t clientTerminals) WaitForExit(ctx context.Context, id string) (tools.ExitStatus, error) {
	resp, err := t.c.WaitForTerminalExit(ctx, &acp.TerminalRequest{SessionID: t.sessionID, TerminalID: id})
	if err != nil {
		return tools.ExitStatus{}, err
	}
	return *exitStatus(resp), nil
}

func (t clientTerminals) Kill(ctx context.Context, id string) error {
	return t.c.KillTerminal(ctx, &acp.TerminalRequest{SessionID: t.sessionID, TerminalID: id})
}

func (t clientTerminals) Release(ctx context.Context, id string) error {
	return t.c.ReleaseTerminal(ctx, &acp.TerminalRequest{SessionID: t.sessionID, TerminalID: id})
}

func exitStatus(s *acp.TerminalExitStatus) *tools.ExitStatus {
	if s == nil {
		return nil
	}
	out := &tools.ExitStatus{ExitCode: s.ExitCode}
	if s.Signal != nil {
		out.Signal = *s.Signal
	}
	return out
}
