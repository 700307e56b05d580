package loop

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
)

func (s *Session) clearConversation(ctx context.Context) {
	s.mu.Lock()
	n := len(s.history)
	s.history = nil
	s.mu.Unlock()
	s.record(clearEvent{MessagesDropped: n})
	s.queueSessionStart(ctx, "clear")
	s.say(ctx, fmt.Sprintf("Started a new conversation (%d earlier messages cleared from the model's context; they stay in the session log).", n))
}

const compactPrompt = `Summarize the conversation so far so that it can continue from your summary alone. Keep: the user's goals and requests, decisions made, files read or changed (with paths) and why, commands run and their important results, open problems and next steps. Be specific and complete; omit pleasantries.`

// compact replaces the history with a model-written summary. PreCompact
// may refuse; SessionStart(compact) runs after it.
func (s *Session) compact(ctx context.Context, turnID, instructions, trigger string) acp.StopReason {
	d := s.runHook(ctx, &hooks.Input{Event: hooks.PreCompact, TurnID: turnID, Trigger: trigger, CustomInstructions: instructions})
	s.showSystemMessages(ctx, d)
	if d.Block || d.StopTurn {
		s.say(ctx, "Compaction was blocked by a hook: "+cmp.Or(d.Reason, d.StopReason, "no reason given"))
		return acp.StopEndTurn
	}
	s.mu.Lock()
	history := mergeAdjacent(s.history)
	model := s.model
	s.mu.Unlock()
	if len(history) == 0 {
		s.say(ctx, "Nothing to compact yet.")
		return acp.StopEndTurn
	}
	ask := compactPrompt
	if instructions != "" {
		ask += "\n\nAdditional instructions: " + instructions
	}
	// The history goes as plain text: a request that holds tool_use blocks
	// but offers no tools is refused by some providers, and the summary
	// needs what happened, not the wire shapes.
	msgs := mergeAdjacent(append(flattenForSummary(history), llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(ask)}}))
	req := &llm.Request{Model: model, MaxTokens: s.agent.cfg.MaxTokens, System: []string{"You write precise summaries of coding sessions."}, Messages: msgs}
	s.record(compactionRequestEvent{Model: model, Messages: len(msgs), Purpose: "compaction"})
	resp, err := s.agent.cfg.Provider.Stream(ctx, req, func(llm.Delta) {})
	if err != nil {
		if ctx.Err() != nil {
			return acp.StopCancelled
		}
		s.say(ctx, "Compaction failed, the conversation is unchanged: "+explainModelError(err))
		return acp.StopEndTurn
	}
	// The summary call is billed like any other: it counts in /status,
	// /budget and budget-check, and load rebuilds it from the log.
	s.record(compactionResponseEvent{StopReason: resp.StopReason, Usage: resp.Usage, Model: resp.Model, Purpose: "compaction"})
	var summary strings.Builder
	for _, b := range resp.Content {
		if b.Type == llm.BlockText {
			summary.WriteString(b.Text)
		}
	}
	text := strings.TrimSpace(summary.String())
	if text == "" {
		s.usage.add(resp.Usage, cmp.Or(resp.Model, model))
		s.say(ctx, "Compaction failed: the model returned no summary; the conversation is unchanged.")
		return acp.StopEndTurn
	}
	s.mu.Lock()
	s.history = []llm.Message{compactedMessage(text)}
	s.mu.Unlock()
	// The context is now about the summary's size until the next response.
	s.bill(ctx, resp.Usage, cmp.Or(resp.Model, model), resp.Usage.OutputTokens)
	s.record(compactionEvent{Summary: text, MessagesBefore: len(history), Trigger: trigger, Instructions: instructions})
	s.queueSessionStart(ctx, "compact")
	s.say(ctx, fmt.Sprintf("Compacted the conversation: %d messages replaced by a summary of %d characters.", len(history), len(text)))
	return acp.StopEndTurn
}

// flattenForSummary renders a history as text messages for the
// compaction request: tool calls and results become short text, thinking
// is dropped.
func flattenForSummary(history []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(history))
	for _, m := range history {
		var b strings.Builder
		for _, bl := range m.Content {
			switch bl.Type {
			case llm.BlockText:
				b.WriteString(bl.Text + "\n")
			case llm.BlockToolUse:
				fmt.Fprintf(&b, "[tool call %s: %s]\n", bl.Name, summarize(string(bl.Input), 1000))
			case llm.BlockToolResult:
				var res strings.Builder
				for _, c := range bl.Content {
					res.WriteString(c.Text)
				}
				label := "tool result"
				if bl.IsError {
					label = "tool error"
				}
				fmt.Fprintf(&b, "[%s: %s]\n", label, summarize(res.String(), 2000))
			case llm.BlockImage:
				b.WriteString("[an image]\n")
			}
		}
		if text := strings.TrimSpace(b.String()); text != "" {
			out = append(out, llm.Message{Role: m.Role, Content: []llm.Block{llm.Text(text)}})
		}
	}
	return out
}

func compactedMessage(summary string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(systemReminder("This session continues an earlier conversation that was compacted. Its summary:\n\n" + summary))}}
}
