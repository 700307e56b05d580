package loop

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
)

const subagentPrompt = `You are a subagent of cordis, started by the main agent to do one task. Work autonomously with your tools, then answer with a concise report of what you found or did: your final message is all the main agent will see.`

// tooDeep is runSubagent's refusal of a subagent nested deeper than
// Config.MaxSubagentDepth (a forked skill then loads in place instead).
type tooDeep struct{ max int }

func (e tooDeep) Error() string { return fmt.Sprintf("subagents may nest at most %d deep", e.max) }

// runSubagent runs a Task: a child loop with its own history, tools and
// log file. Its text is mirrored on the parent's tool call as it streams;
// its final message is the tool result.
func (r *runner) runSubagent(ctx context.Context, parentCallID string, in tools.TaskInput) (string, error) {
	s := r.s
	depth := r.depth + 1
	if depth > s.agent.cfg.MaxSubagentDepth {
		return "", tooDeep{max: s.agent.cfg.MaxSubagentDepth}
	}
	kind := s.subagentKindOf(in.SubagentType)
	agentID := "agent-" + parentCallID
	path := sessionlog.SubagentPath(s.agent.cfg.StateDir, s.id, agentID)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	log, err := sessionlog.Create(path, sessionlog.WithClock(s.agent.cfg.Now))
	if err != nil {
		return "", err
	}
	defer log.Close()
	agentType := cmp.Or(in.SubagentType, "general-purpose")
	r.record(subagentStartEvent{AgentID: agentID, ToolCallID: parentCallID, AgentType: agentType, Description: in.Description})

	// The subagent's seams, SubagentStart included, record into its log.
	childRecord := func(typ string, data any) {
		if _, err := log.Append(typ, data); err != nil {
			s.agent.log.Error("session log append failed", "session", s.id, "agent", agentID, "type", typ, "error", err)
		}
	}
	start := s.runHook(ctx, &hooks.Input{Event: hooks.SubagentStart, TurnID: r.turnID, AgentID: agentID, AgentType: agentType, AgentLogPath: path, Record: childRecord})
	startContext := start.AdditionalContext

	var (
		mu       sync.Mutex
		progress strings.Builder
	)
	system := s.systemPrompt(kind.prompt)
	var history []llm.Message
	child := &runner{
		s: s, turnID: r.turnID, depth: depth, agentID: agentID, history: &history, log: log, logPath: path, parentCallID: parentCallID,
		// A fork's own model (in.Model) beats the subagent type's.
		agentType: agentType, model: cmp.Or(s.subagentModel(in.Model), kind.model),
		toolsNow: func() []tools.Tool { return kind.tools(s.toolsFor(depth)) }, system: system, stopEvent: hooks.SubagentStop,
		emitText: func(ctx context.Context, t string) {
			mu.Lock()
			progress.WriteString(t)
			text := tail(progress.String(), 4000)
			mu.Unlock()
			s.notify(ctx, acp.ToolCallUpdate{ToolCallID: parentCallID, Content: []acp.ToolCallContent{acp.ContentText(text)}})
		},
		emitThought: func(context.Context, string) {},
		takeContext: func() []string {
			c := startContext
			startContext = nil
			return c
		},
	}
	reason := child.run(ctx, llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(in.Prompt)}})
	r.record(subagentEndEvent{AgentID: agentID, StopReason: reason})
	if reason == acp.StopCancelled {
		return "", ctx.Err()
	}
	result := strings.TrimSpace(child.lastText)
	if result == "" {
		result = fmt.Sprintf("The subagent ended (%s) without a final message.", reason)
	}
	return result, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
