package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
		// What SessionStart hooks exported (CLAUDE_ENV_FILE), for Bash.
		ShellEnvFile: s.shellEnvFile(),
		Progress: func(res tools.Result) {
			r.notifyTool(ctx, toolCallID, acp.ToolCallUpdate{ToolCallID: toolCallID, Content: resultContent(res)})
		},
		Todos: func(ctx context.Context, items []tools.TodoItem) error {
			entries := make([]acp.PlanEntry, len(items))
			for i, it := range items {
				entries[i] = acp.PlanEntry{Content: it.Content, Status: it.Status, Priority: cmp.Or(it.Priority, "medium")}
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
		ExitPlan: func(ctx context.Context, plan string) (tools.PlanDecision, error) {
			return r.exitPlan(ctx, toolCallID, plan)
		},
		Background: s.background,
		Web:        s.agent.cfg.Web,
	}
	if s.servesWebSearch() {
		env.WebSearch = r.webSearch
	}
	env.AskAboutPage = r.askAboutPage()
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
	s, err := f.c.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: f.sessionID, Path: path})
	return s, editorError(err)
}

// ReadTextLines reads limit lines from line: fs/read_text_file's line is
// 1-based in the ACP schema, unlike a tool call location's in Zed.
func (f clientFS) ReadTextLines(ctx context.Context, path string, line, limit int) (string, error) {
	s, err := f.c.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: f.sessionID, Path: path, Line: &line, Limit: &limit})
	return s, editorError(err)
}

func (f clientFS) WriteTextFile(ctx context.Context, path, content string) error {
	return editorError(f.c.WriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: f.sessionID, Path: path, Content: content}))
}

// editorError keeps all the editor said about a failed request: its
// error's data (where a client puts the cause, such as the OS error)
// follows the message, so the tool result the model and the user read
// explains the failure.
func editorError(err error) error {
	ae, ok := errors.AsType[*acp.Error](err)
	if !ok || ae.Data == nil {
		return err
	}
	data, merr := json.Marshal(ae.Data)
	if merr != nil || string(data) == "null" {
		return err
	}
	return fmt.Errorf("%w: %s", err, data)
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
	id, err := t.c.CreateTerminal(ctx, req)
	return id, editorError(err)
}

func (t clientTerminals) Output(ctx context.Context, id string) (string, bool, *tools.ExitStatus, error) {
	resp, err := t.c.TerminalOutput(ctx, &acp.TerminalRequest{SessionID: t.sessionID, TerminalID: id})
	if err != nil {
		return "", false, nil, editorError(err)
	}
	return resp.Output, resp.Truncated, exitStatus(resp.ExitStatus), nil
}

func (t clientTerminals) WaitForExit(ctx context.Context, id string) (tools.ExitStatus, error) {
	resp, err := t.c.WaitForTerminalExit(ctx, &acp.TerminalRequest{SessionID: t.sessionID, TerminalID: id})
	if err != nil {
		return tools.ExitStatus{}, editorError(err)
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
