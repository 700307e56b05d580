package loop

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/commands"
)

// prompt runs one user turn to its stop reason. A slash command runs
// before the model: local commands never reach it, prompt commands are
// expanded and then run as the user's turn.
func (s *Session) prompt(ctx context.Context, blocks []acp.ContentBlock) (acp.StopReason, error) {
	content, text, err := s.convertPrompt(ctx, blocks)
	if err != nil {
		return "", err
	}
	s.disarmIdle()
	s.mu.Lock()
	s.turnSeq++
	turnID := fmt.Sprintf("turn-%d", s.turnSeq)
	s.mu.Unlock()
	s.record(turnStartEvent{TurnID: turnID, Prompt: summarize(text, 200)})
	// The editor shows what the user typed; the log keeps it for load.
	s.record(userPromptEvent{TurnID: turnID, Content: blocks})
	defer s.refreshCommands(ctx)
	s.reportMCPFailures(ctx, true)

	var opts turnOptions
	var template *commands.Prompt
	var templateArgs string
	// A new user message ends what the last turn's allowed-tools granted.
	s.grants.reset()
	if name, args, ok := commandIn(blocks); ok {
		intent, tmpl := s.runCommand(ctx, name, args)
		sub, isPrompt := intent.(commands.SubmitPrompt)
		switch {
		case tmpl != nil:
			template, templateArgs = tmpl, args
			if !tmpl.Fork {
				// A forked command's model is its subagent's (forkcmd.go).
				opts = turnOptions{model: tmpl.Model}
			}
			s.grants.add(ctx, s, tmpl.Path, tmpl.Source, tmpl.AllowedTools)
		case isPrompt:
			content = append([]llm.Block{llm.Text(sub.Text)}, content[1:]...)
			text = sub.Text
			opts = turnOptions{model: sub.Model}
			s.grants.add(ctx, s, "/"+name, commands.SourceBuiltin, sub.AllowedTools)
		default:
			reason := s.carryOut(ctx, turnID, intent)
			s.record(turnEndEvent{TurnID: turnID, StopReason: reason})
			return reason, nil
		}
	}

	s.mu.Lock()
	s.running++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
	}()
	reason, err := s.modelTurn(ctx, turnID, content, text, template, templateArgs, opts)
	if reason == acp.StopCancelled {
		s.interrupted(ctx, turnID)
	}
	s.record(turnEndEvent{TurnID: turnID, StopReason: reason})
	s.armIdle(ctx)
	if err != nil {
		return "", err
	}
	return reason, nil
}

// interruptHookLimit bounds the Interrupt hooks of a cancelled turn: the
// editor waits for the prompt's answer meanwhile. (Codex gives each
// Interrupt hook 1 s by default and 3 s at most; the bridge enforces that.)
const interruptHookLimit = 5 * time.Second

// interrupted runs the Interrupt seam (Codex's event) for a turn the user
// cancelled while it ran, before the cancelled prompt is answered. Its
// hooks only observe; they run on a context of their own, since the
// turn's is already cancelled. A session being closed runs SessionEnd
// instead.
func (s *Session) interrupted(ctx context.Context, turnID string) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return
	}
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), interruptHookLimit)
	defer cancel()
	d := s.runHook(hctx, &hooks.Input{Event: hooks.Interrupt, TurnID: turnID})
	s.showSystemMessages(hctx, d)
}

// modelTurn runs a turn that reaches the model: UserPromptSubmit, the
// prompt command's template (when there is one), the model loop, then the
// compaction a hook asked for. A model failure that ended the turn is
// returned as the JSON-RPC error that answers the prompt.
func (s *Session) modelTurn(ctx context.Context, turnID string, content []llm.Block, text string, template *commands.Prompt, templateArgs string, opts turnOptions) (acp.StopReason, error) {
	// For a prompt command from a file, UserPromptSubmit sees the prompt
	// as typed (`/review main.go`), as in Claude Code, and runs before the
	// template expands: its shell snippets must not run for a prompt a
	// hook blocks. It does not run again on the expansion (that would
	// inject its context twice).
	d := s.runHook(ctx, &hooks.Input{Event: hooks.UserPromptSubmit, Prompt: text, TurnID: turnID})
	s.showSystemMessages(ctx, d)
	if d.Block || d.StopTurn {
		reason := cmp.Or(d.Reason, d.StopReason, "no reason given")
		s.say(ctx, "Prompt blocked by a hook: "+reason)
		s.record(turnRejectedEvent{TurnID: turnID, Reason: reason})
		return acp.StopEndTurn, nil
	}
	if template != nil {
		ex := s.expander(template.Name, turnID)
		ex.ArgNames = template.Arguments
		expanded, err := ex.Expand(ctx, template.Template, templateArgs)
		if err != nil {
			if ctx.Err() != nil {
				return acp.StopCancelled, nil
			}
			s.say(ctx, fmt.Sprintf("/%s: %v", template.Name, err))
			return acp.StopEndTurn, nil
		}
		if template.Fork {
			// `context: fork`: the expansion is a subagent's task; the
			// main model gets its report (forkcmd.go).
			report, reason, ok := s.runForked(ctx, turnID, template, templateArgs, expanded, opts)
			if !ok {
				return reason, nil
			}
			expanded = report
		}
		content = append([]llm.Block{llm.Text(expanded)}, content[1:]...)
	}
	for _, c := range d.AdditionalContext {
		content = append(content, llm.Text(systemReminder(c)))
	}

	runner := s.mainRunner(turnID, opts)
	reason := runner.run(ctx, llm.Message{Role: llm.RoleUser, Content: content})
	s.mu.Lock()
	autoCompact := s.compactWanted && reason != acp.StopCancelled
	s.compactWanted = false
	s.mu.Unlock()
	if autoCompact {
		// The context monitor asked for it: compact once the turn is done,
		// with the same seams as /compact.
		s.compact(ctx, turnID, "", "auto")
	}
	if runner.failure != nil && reason != acp.StopCancelled {
		return reason, modelFailure(runner.failure)
	}
	return reason, nil
}

// turnOptions are per-turn overrides from a prompt command's frontmatter
// (its allowed-tools are pre-approvals, kept in Session.grants).
type turnOptions struct {
	model string
}

func (s *Session) showSystemMessages(ctx context.Context, d hooks.Decision) {
	for _, m := range d.SystemMessages {
		s.say(ctx, m+"\n\n")
	}
}

// convertPrompt maps ACP content blocks to model content. It returns the
// plain text of the prompt for hooks.
func (s *Session) convertPrompt(ctx context.Context, blocks []acp.ContentBlock) ([]llm.Block, string, error) {
	var out []llm.Block
	var text strings.Builder
	blank := true // only whitespace so far
	for i, b := range blocks {
		blank = blank && b.Type == "text" && strings.TrimSpace(b.Text) == ""
		switch b.Type {
		case "text":
			out = append(out, llm.Text(b.Text))
			text.WriteString(b.Text)
		case "image":
			if b.Data == "" || b.MimeType == "" {
				return nil, "", acp.InvalidParams("prompt[%d]: an image needs data and mimeType", i)
			}
			mediaType, err := checkImage(b.MimeType, b.Data)
			if err != nil {
				return nil, "", acp.InvalidParams("prompt[%d]: %v", i, err)
			}
			out = append(out, llm.Block{Type: llm.BlockImage, MediaType: mediaType, Data: b.Data})
		case "resource_link":
			out = append(out, s.linkedResource(ctx, b))
			fmt.Fprintf(&text, "@%s", cmp.Or(b.Name, b.URI))
		case "resource":
			if b.Resource == nil {
				return nil, "", acp.InvalidParams("prompt[%d]: field \"resource\" is required", i)
			}
			r := b.Resource
			switch {
			case r.Text != nil:
				out = append(out, llm.Text(fmt.Sprintf("<context ref=%q>\n%s\n</context>", r.URI, *r.Text)))
			case r.Blob != nil && imageOK(r.MimeType, *r.Blob):
				mediaType, _ := checkImage(r.MimeType, *r.Blob)
				out = append(out, llm.Block{Type: llm.BlockImage, MediaType: mediaType, Data: *r.Blob})
			case r.Blob != nil:
				out = append(out, llm.Text(fmt.Sprintf("<context ref=%q>(binary %s content, %d base64 bytes, not shown)</context>", r.URI, cmp.Or(r.MimeType, "unknown"), len(*r.Blob))))
			default:
				return nil, "", acp.InvalidParams("prompt[%d]: a resource needs text or blob", i)
			}
		case "audio":
			return nil, "", acp.InvalidParams("prompt[%d]: audio input is not supported by cordis (promptCapabilities.audio is false)", i)
		default:
			return nil, "", acp.InvalidParams("prompt[%d]: unknown content type %q", i, b.Type)
		}
	}
	if len(out) == 0 {
		return nil, "", acp.InvalidParams("field \"prompt\" is empty")
	}
	if blank {
		return nil, "", acp.InvalidParams("field \"prompt\" holds only whitespace; type a message")
	}
	return out, text.String(), nil
}
