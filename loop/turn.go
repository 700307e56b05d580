package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/llm"
	"github.com/cordis-agent/cordis/loop/sessionlog"
	"github.com/cordis-agent/cordis/loop/tools"
)

const baseSystemPrompt = `You are cordis, a coding agent working inside the user's editor. You help with software engineering tasks: reading and changing code, running commands, explaining and planning.

Use the tools to inspect the project before you change it. Prefer small, correct edits. File paths given to tools must be absolute. Keep answers short and concrete; say what you changed and why.`

// prompt runs one user turn to its stop reason. A slash command runs
// before the model: local commands never reach it, prompt commands are
// expanded and then run as the user's turn.
func (s *Session) prompt(ctx context.Context, blocks []acp.ContentBlock) (acp.StopReason, error) {
	content, text, err := s.convertPrompt(blocks)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.turnSeq++
	turnID := fmt.Sprintf("turn-%d", s.turnSeq)
	s.mu.Unlock()
	s.record(sessionlog.TypeTurnStart, map[string]any{"turnId": turnID, "prompt": summarize(text, 200)})
	// The editor shows what the user typed; the log keeps it for load.
	s.record(sessionlog.TypeUserPrompt, map[string]any{"turnId": turnID, "content": blocks})
	defer s.refreshCommands(ctx)

	var opts turnOptions
	if name, args, ok := commandIn(blocks); ok {
		intent := s.runCommand(ctx, name, args)
		sub, isPrompt := intent.(commands.SubmitPrompt)
		if !isPrompt {
			reason := s.carryOut(ctx, turnID, intent)
			s.record(sessionlog.TypeTurnEnd, map[string]any{"turnId": turnID, "stopReason": reason})
			return reason, nil
		}
		content = append([]llm.Block{llm.Text(sub.Text)}, content[1:]...)
		text = sub.Text
		opts = turnOptions{allowedTools: sub.AllowedTools, model: sub.Model}
	}

	s.mu.Lock()
	s.running++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
	}()

	d := s.runHook(ctx, &hooks.Input{Event: hooks.UserPromptSubmit, Prompt: text, TurnID: turnID})
	s.showSystemMessages(ctx, d)
	if d.Block || d.StopTurn {
		reason := firstNonEmpty(d.Reason, d.StopReason, "no reason given")
		s.say(ctx, "Prompt blocked by a hook: "+reason)
		s.record(sessionlog.TypeTurnRejected, map[string]any{"turnId": turnID, "reason": reason})
		s.record(sessionlog.TypeTurnEnd, map[string]any{"turnId": turnID, "stopReason": acp.StopEndTurn})
		return acp.StopEndTurn, nil
	}
	for _, c := range d.AdditionalContext {
		content = append(content, llm.Text(systemReminder(c)))
	}

	r := s.mainRunner(turnID, opts)
	reason := r.run(ctx, llm.Message{Role: llm.RoleUser, Content: content})
	s.record(sessionlog.TypeTurnEnd, map[string]any{"turnId": turnID, "stopReason": reason})
	return reason, nil
}

// turnOptions are per-turn overrides from a prompt command's frontmatter.
type turnOptions struct {
	allowedTools []string // tool names or Claude rules like Bash(git add:*)
	model        string
}

// allows reports whether a tool may be offered in this turn.
func (o turnOptions) allows(name string) bool {
	if len(o.allowedTools) == 0 {
		return true
	}
	for _, rule := range o.allowedTools {
		if n, _, _ := strings.Cut(rule, "("); strings.TrimSpace(n) == name {
			return true
		}
	}
	return false
}

func (s *Session) showSystemMessages(ctx context.Context, d hooks.Decision) {
	for _, m := range d.SystemMessages {
		s.say(ctx, m+"\n\n")
	}
}

// convertPrompt maps ACP content blocks to model content. It returns the
// plain text of the prompt for hooks.
func (s *Session) convertPrompt(blocks []acp.ContentBlock) ([]llm.Block, string, error) {
	var out []llm.Block
	var text strings.Builder
	for i, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, llm.Text(b.Text))
			text.WriteString(b.Text)
		case "image":
			if b.Data == "" || b.MimeType == "" {
				return nil, "", acp.InvalidParams("prompt[%d]: an image needs data and mimeType", i)
			}
			out = append(out, llm.Block{Type: llm.BlockImage, MediaType: b.MimeType, Data: b.Data})
		case "resource_link":
			out = append(out, llm.Text(fmt.Sprintf("[@%s](%s)", firstNonEmpty(b.Name, b.Title, b.URI), b.URI)))
			fmt.Fprintf(&text, "@%s", firstNonEmpty(b.Name, b.URI))
		case "resource":
			if b.Resource == nil {
				return nil, "", acp.InvalidParams("prompt[%d]: field \"resource\" is required", i)
			}
			r := b.Resource
			switch {
			case r.Text != nil:
				out = append(out, llm.Text(fmt.Sprintf("<context ref=%q>\n%s\n</context>", r.URI, *r.Text)))
			case r.Blob != nil && strings.HasPrefix(r.MimeType, "image/"):
				out = append(out, llm.Block{Type: llm.BlockImage, MediaType: r.MimeType, Data: *r.Blob})
			case r.Blob != nil:
				out = append(out, llm.Text(fmt.Sprintf("<context ref=%q>(binary %s content, %d base64 bytes, not shown)</context>", r.URI, firstNonEmpty(r.MimeType, "unknown"), len(*r.Blob))))
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
	return out, text.String(), nil
}

// runner drives the model/tool loop for the main agent or a subagent.
type runner struct {
	s       *Session
	turnID  string
	depth   int    // 0 for the main agent
	agentID string // subagent id, "" for the main agent
	history *[]llm.Message
	log     *sessionlog.Writer
	tools   []tools.Tool
	system  []string
	// emit shows model text/thought to the user.
	emitText    func(ctx context.Context, text string)
	emitThought func(ctx context.Context, text string)
	// pendingContext is injected into the first request (SessionStart or
	// SubagentStart context), then cleared.
	takeContext func() []string
	stopEvent   hooks.Event
	// model overrides the session's model for this runner ("" keeps it).
	model string
	// onToolUpdate lets a subagent mirror its activity on the parent's call.
	lastText string
}

func (s *Session) mainRunner(turnID string, opts turnOptions) *runner {
	system := []string{firstNonEmpty(s.agent.cfg.SystemPrompt, baseSystemPrompt)}
	system = append(system, environmentPrompt(s.cwd, s.roots))
	if pi := s.projectInstructions(); pi != "" {
		system = append(system, pi)
	}
	return &runner{
		s: s, turnID: turnID, history: &s.history, log: s.log, tools: filterTools(s.toolsFor(0), opts), system: system, model: opts.model,
		emitText: func(ctx context.Context, t string) {
			s.notify(ctx, acp.AgentMessageChunk{Content: acp.TextBlock(t)})
		},
		emitThought: func(ctx context.Context, t string) {
			s.notify(ctx, acp.AgentThoughtChunk{Content: acp.TextBlock(t)})
		},
		takeContext: func() []string {
			s.mu.Lock()
			defer s.mu.Unlock()
			c := s.pendingContext
			s.pendingContext = nil
			return c
		},
		stopEvent: hooks.Stop,
	}
}

func filterTools(ts []tools.Tool, opts turnOptions) []tools.Tool {
	var out []tools.Tool
	for _, t := range ts {
		if opts.allows(t.Name()) {
			out = append(out, t)
		}
	}
	return out
}

func environmentPrompt(cwd string, roots []string) string {
	return fmt.Sprintf("Environment:\n- Working directory: %s\n- Directories you may access: %s", cwd, strings.Join(roots, ", "))
}

func (s *Session) toolsFor(depth int) []tools.Tool {
	var out []tools.Tool
	for _, t := range s.agent.cfg.Tools {
		if t.Name() == "Task" && depth >= s.agent.cfg.MaxSubagentDepth {
			continue
		}
		out = append(out, t)
	}
	return out
}

func (r *runner) record(typ string, data any) {
	if _, err := r.log.Append(typ, data); err != nil {
		r.s.agent.log.Error("session log append failed", "session", r.s.id, "type", typ, "error", err)
	}
}

// appendMessage adds a message to the history and the log.
func (r *runner) appendMessage(m llm.Message) {
	r.s.mu.Lock()
	*r.history = append(*r.history, m)
	r.s.mu.Unlock()
	r.record(sessionlog.TypeMessage, m)
}

// run appends the user message and loops model steps and tool calls until
// the model stops (and the Stop seam agrees), the request cap is hit, or
// ctx is cancelled.
func (r *runner) run(ctx context.Context, user llm.Message) acp.StopReason {
	if extra := r.takeContext(); len(extra) > 0 {
		var pre []llm.Block
		for _, c := range extra {
			pre = append(pre, llm.Text(systemReminder(c)))
		}
		user.Content = append(pre, user.Content...)
	}
	r.appendMessage(user)
	stopBlocks := 0
	stopHookActive := false
	cfg := r.s.agent.cfg
	for step := 0; ; step++ {
		if ctx.Err() != nil {
			return acp.StopCancelled
		}
		if step >= cfg.MaxTurnRequests {
			r.announce(ctx, fmt.Sprintf("\n\n[cordis: stopped after %d model requests in one turn (maxTurnRequests)]", cfg.MaxTurnRequests))
			return acp.StopMaxTurnRequests
		}
		resp, err := r.step(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return acp.StopCancelled
			}
			r.announce(ctx, "\n\n"+explainModelError(err))
			r.record(sessionlog.TypeModelError, map[string]any{"error": err.Error(), "kind": llm.ErrorKindOf(err)})
			return acp.StopEndTurn
		}
		var toolUses []llm.Block
		for _, b := range resp.Content {
			if b.Type == llm.BlockToolUse {
				toolUses = append(toolUses, b)
			}
		}
		if len(toolUses) > 0 {
			results := r.runTools(ctx, toolUses)
			r.appendMessage(llm.Message{Role: llm.RoleUser, Content: results})
			if ctx.Err() != nil {
				return acp.StopCancelled
			}
			continue
		}
		switch resp.StopReason {
		case llm.StopMaxTokens:
			return acp.StopMaxTokens
		case llm.StopRefusal:
			return acp.StopRefusal
		case llm.StopPauseTurn:
			continue
		}
		// The model ended its turn: the Stop seam may refuse.
		d := r.runStopHook(ctx, stopHookActive)
		if d.StopTurn || !d.Block {
			return acp.StopEndTurn
		}
		stopBlocks++
		if stopBlocks > cfg.MaxStopBlocks {
			msg := fmt.Sprintf("A %s hook blocked the turn from ending %d consecutive times; ending the turn anyway.", r.stopEvent, stopBlocks)
			r.announce(ctx, "\n\n[cordis: "+msg+"]")
			r.record(sessionlog.TypeSteering, map[string]any{"capped": true, "blocks": stopBlocks, "message": msg})
			return acp.StopEndTurn
		}
		stopHookActive = true
		reason := firstNonEmpty(d.Reason, "A stop hook asked you to continue.")
		r.record(sessionlog.TypeSteering, map[string]any{"event": r.stopEvent, "reason": reason, "blocks": stopBlocks})
		r.appendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(systemReminder("Stop hook feedback:\n" + reason))}})
	}
}

// announce shows text cordis itself produced: logged for replay in the
// main agent, mirrored on the parent's tool call in a subagent.
func (r *runner) announce(ctx context.Context, text string) {
	if r.depth == 0 {
		r.s.say(ctx, text)
		return
	}
	r.emitText(ctx, text)
}

func (r *runner) runStopHook(ctx context.Context, active bool) hooks.Decision {
	in := &hooks.Input{Event: r.stopEvent, TurnID: r.turnID, StopHookActive: active, LastAssistantMessage: r.lastText, AgentID: r.agentID}
	d := r.s.runHook(ctx, in)
	r.s.showSystemMessages(ctx, d)
	return d
}

// step sends one model request and streams its answer.
func (r *runner) step(ctx context.Context) (*llm.Response, error) {
	s := r.s
	s.mu.Lock()
	model := firstNonEmpty(r.model, s.model)
	msgs := mergeAdjacent(*r.history)
	s.mu.Unlock()
	req := &llm.Request{
		Model:          model,
		MaxTokens:      s.agent.cfg.MaxTokens,
		System:         r.system,
		Messages:       msgs,
		Tools:          toolSpecs(r.tools),
		ThinkingBudget: s.agent.cfg.ThinkingBudget,
	}
	toolNames := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		toolNames[i] = t.Name
	}
	r.record(sessionlog.TypeModelRequest, map[string]any{"model": model, "messages": len(msgs), "tools": toolNames})
	var text strings.Builder
	resp, err := s.agent.cfg.Provider.Stream(ctx, req, func(d llm.Delta) {
		switch d.Kind {
		case llm.DeltaText:
			text.WriteString(d.Text)
			r.emitText(ctx, d.Text)
		case llm.DeltaThinking:
			r.emitThought(ctx, d.Text)
		case llm.DeltaRetry:
			r.emitThought(ctx, "[cordis: "+d.Text+"]\n")
		}
	})
	if resp != nil {
		content := keepComplete(resp.Content)
		r.record(sessionlog.TypeModelResponse, map[string]any{"stopReason": resp.StopReason, "usage": resp.Usage, "model": resp.Model, "partial": err != nil})
		if len(content) > 0 {
			if err != nil {
				// What the user saw stays in the history; unfinished tool
				// calls do not (they have no result).
				content = withoutToolUse(content)
			}
			if len(content) > 0 {
				r.appendMessage(llm.Message{Role: llm.RoleAssistant, Content: content})
			}
		}
		if err == nil {
			r.lastText = text.String()
			s.reportUsage(ctx, resp.Usage)
		}
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

func (s *Session) reportUsage(ctx context.Context, u llm.Usage) {
	used := int64(u.ContextTokens())
	s.mu.Lock()
	s.lastContextTokens = int(used)
	s.mu.Unlock()
	s.notify(ctx, acp.UsageUpdate{Used: used, Size: int64(s.agent.cfg.ContextWindow)})
}

func toolSpecs(ts []tools.Tool) []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(ts))
	for i, t := range ts {
		out[i] = llm.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()}
	}
	return out
}

// mergeAdjacent joins consecutive messages of one role: a torn log or a
// steering message can leave two user messages in a row, which the API
// refuses.
func mergeAdjacent(in []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(in))
	for _, m := range in {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			merged := append(append([]llm.Block(nil), out[n-1].Content...), m.Content...)
			out[n-1] = llm.Message{Role: m.Role, Content: merged}
			continue
		}
		out = append(out, m)
	}
	return out
}

// keepComplete drops empty text blocks.
func keepComplete(bs []llm.Block) []llm.Block {
	var out []llm.Block
	for _, b := range bs {
		if b.Type == llm.BlockText && b.Text == "" {
			continue
		}
		out = append(out, b)
	}
	return out
}

func withoutToolUse(bs []llm.Block) []llm.Block {
	var out []llm.Block
	for _, b := range bs {
		if b.Type != llm.BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

func explainModelError(err error) string {
	var e *llm.Error
	if !errors.As(err, &e) {
		return "The model request failed: " + err.Error()
	}
	switch e.Kind {
	case llm.ErrSpendLimit:
		return "The model API refused the request: your spend limit is reached. " + e.Message
	case llm.ErrAuth, llm.ErrMissingAPIKey:
		return "The model API rejected the credentials: " + e.Message
	case llm.ErrOverloaded:
		return "The model API is overloaded and retries did not help; try again shortly. (" + e.Message + ")"
	case llm.ErrRateLimit:
		return "The model API rate limit was hit and retries did not help; try again shortly. (" + e.Message + ")"
	case llm.ErrStream:
		return "The model's response broke off mid-stream: " + e.Message
	}
	return "The model request failed: " + e.Error()
}

func systemReminder(s string) string {
	return "<system-reminder>\n" + s + "\n</system-reminder>"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func summarize(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
