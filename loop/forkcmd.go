package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/tools"
)

// runForked runs a prompt command or skill with `context: fork` as Claude
// Code runs one for an SDK host (it waits for the result): the expanded
// text is the task of a subagent of the frontmatter's `agent` type
// (general-purpose without one), which starts without the conversation;
// the editor sees it as a subagent card. It returns what the main model
// is given in place of the command's text: the subagent's report. ok is
// false when the turn ends there (cancelled, or the subagent could not
// run), with its stop reason.
func (s *Session) runForked(ctx context.Context, turnID string, tmpl *commands.Prompt, args, task string, opts turnOptions) (report string, reason acp.StopReason, ok bool) {
	agentType := cmp.Or(tmpl.Agent, "general-purpose")
	callID := "fork-" + turnID
	title := fmt.Sprintf("/%s (subagent: %s)", tmpl.Name, agentType)
	s.notify(ctx, acp.ToolCall{ToolCallID: callID, Title: title, Kind: acp.ToolKindThink, Status: acp.ToolStatusInProgress})
	r := s.mainRunner(turnID, opts)
	// The command's model is the subagent's; the main model's turn after
	// it keeps the session's (prompt.go).
	result, err := r.runSubagent(ctx, callID, tools.TaskInput{Description: "/" + tmpl.Name, Prompt: task, SubagentType: tmpl.Agent, Model: tmpl.Model})
	if err != nil {
		s.notify(ctx, acp.ToolCallUpdate{ToolCallID: callID, Status: acp.ToolStatusFailed, Content: []acp.ToolCallContent{acp.ContentText(err.Error())}})
		if ctx.Err() != nil {
			return "", acp.StopCancelled, false
		}
		s.say(ctx, fmt.Sprintf("/%s: the subagent could not run: %v", tmpl.Name, err))
		return "", acp.StopEndTurn, false
	}
	s.notify(ctx, acp.ToolCallUpdate{ToolCallID: callID, Status: acp.ToolStatusCompleted, Content: []acp.ToolCallContent{acp.ContentText(result)}})
	invoked := "/" + tmpl.Name
	if args != "" {
		invoked += " " + args
	}
	return fmt.Sprintf("I ran %s. It ran in a %s subagent, which reported:\n\n%s", invoked, agentType, result), "", true
}

// runForkedSkill runs a `context: fork` skill the model invoked through
// the Skill tool, as Claude Code does: the skill's body (arguments and
// folder substituted) is the task of a subagent of the skill's `agent`
// type, on the skill's `model` when it names one, which starts without
// the conversation. It runs under the Skill call, so the editor nests its
// tool calls there; the tool result is its report.
func (s *Session) runForkedSkill(ctx context.Context, env *tools.Env, sk commands.Skill, args string) (string, error) {
	if env == nil || env.RunSubagent == nil {
		return "", errors.New("Skill " + sk.Name + " runs in a subagent, and subagents cannot run here")
	}
	task := fmt.Sprintf("Base directory for this skill: %s\n\n%s", sk.Dir, skillBody(sk, args, s.id))
	report, err := env.RunSubagent(ctx, tools.TaskInput{Description: "Skill: " + sk.Name, Prompt: task, SubagentType: sk.Agent, Model: sk.Model})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Skill %s ran in a %s subagent, which reported:\n\n%s", sk.Name, cmp.Or(sk.Agent, "general-purpose"), report), nil
}
