package loop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/loop/transcript"
	"github.com/cordis-agent/cordis/loop/transcript/rollout"
	"github.com/cordis-agent/cordis/sessionlog"
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
	s.reportMCPFailures(ctx, true)

	var opts turnOptions
	var template *commands.Prompt
	var templateArgs string
	if name, args, ok := commandIn(blocks); ok {
		intent, tmpl := s.runCommand(ctx, name, args)
		sub, isPrompt := intent.(commands.SubmitPrompt)
		switch {
		case tmpl != nil:
			template, templateArgs = tmpl, args
			opts = turnOptions{allowedTools: tmpl.AllowedTools, model: tmpl.Model}
		case isPrompt:
			content = append([]llm.Block{llm.Text(sub.Text)}, content[1:]...)
			text = sub.Text
			opts = turnOptions{allowedTools: sub.AllowedTools, model: sub.Model}
		default:
			reason := s.carryOut(ctx, turnID, intent)
			s.record(sessionlog.TypeTurnEnd, map[string]any{"turnId": turnID, "stopReason": reason})
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

	// For a prompt command from a file, UserPromptSubmit sees the prompt
	// as typed (`/review main.go`), as in Claude Code, and runs before the
	// template expands: its shell snippets must not run for a prompt a
	// hook blocks. It does not run again on the expansion (that would
	// inject its context twice).
	d := s.runHook(ctx, &hooks.Input{Event: hooks.UserPromptSubmit, Prompt: text, TurnID: turnID})
	s.showSystemMessages(ctx, d)
	if d.Block || d.StopTurn {
		reason := firstNonEmpty(d.Reason, d.StopReason, "no reason given")
		s.say(ctx, "Prompt blocked by a hook: "+reason)
		s.record(sessionlog.TypeTurnRejected, map[string]any{"turnId": turnID, "reason": reason})
		s.record(sessionlog.TypeTurnEnd, map[string]any{"turnId": turnID, "stopReason": acp.StopEndTurn})
		return acp.StopEndTurn, nil
	}
	if template != nil {
		expanded, err := s.expander(template.Name, turnID).Expand(ctx, template.Template, templateArgs)
		if err != nil {
			reason := acp.StopEndTurn
			if ctx.Err() != nil {
				reason = acp.StopCancelled
			} else {
				s.say(ctx, fmt.Sprintf("/%s: %v", template.Name, err))
			}
			s.record(sessionlog.TypeTurnEnd, map[string]any{"turnId": turnID, "stopReason": reason})
			return reason, nil
		}
		content = append([]llm.Block{llm.Text(expanded)}, content[1:]...)
	}
	for _, c := range d.AdditionalContext {
		content = append(content, llm.Text(systemReminder(c)))
	}

	r := s.mainRunner(turnID, opts)
	reason := r.run(ctx, llm.Message{Role: llm.RoleUser, Content: content})
	s.mu.Lock()
	autoCompact := s.compactWanted && reason != acp.StopCancelled
	s.compactWanted = false
	s.mu.Unlock()
	if autoCompact {
		// The context monitor asked for it: compact once the turn is done,
		// with the same seams as /compact.
		s.compact(ctx, turnID, "", "auto")
	}
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
	transcript  *transcript.Writer
	rollout     *rollout.Writer
	// model overrides the session's model for this runner ("" keeps it).
	model string
	// toolsNow re-reads the tool list before each model request (MCP
	// servers may change theirs); nil keeps tools.
	toolsNow func() []tools.Tool
	// onToolUpdate lets a subagent mirror its activity on the parent's call.
	lastText string
	// stopped is set when a hook's StopTurn asked to end the turn, with
	// the reason it gave.
	stopped    bool
	stopReason string
}

func (s *Session) mainRunner(turnID string, opts turnOptions) *runner {
	system := s.systemPrompt(firstNonEmpty(s.agent.cfg.SystemPrompt, baseSystemPrompt))
	return &runner{
		s: s, turnID: turnID, history: &s.history, log: s.log, transcript: s.transcript, rollout: s.rollout, system: system, model: opts.model,
		toolsNow: func() []tools.Tool { return filterTools(s.toolsFor(0), opts) },
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
	return append(out, s.mcpTools()...)
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
	if err := r.transcript.Append(m); err != nil {
		r.s.agent.log.Warn("transcript append failed", "session", r.s.id, "error", err)
	}
	if err := r.rollout.Append(m); err != nil {
		r.s.agent.log.Warn("rollout transcript append failed", "session", r.s.id, "error", err)
	}
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
	r.s.mu.Lock()
	turnStart := len(*r.history)
	tc := rollout.TurnContext{TurnID: r.turnID, Cwd: r.s.cwd, Model: firstNonEmpty(r.model, r.s.model), Mode: r.s.mode}
	r.s.mu.Unlock()
	if err := r.rollout.TurnContext(tc); err != nil {
		r.s.agent.log.Warn("rollout transcript append failed", "session", r.s.id, "error", err)
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
		resp, end, done := r.iterate(ctx, step)
		switch {
		case done:
			return end
		case r.stopped: // LoopEnd asked to end the turn
			return r.endByHook(ctx)
		case resp == nil: // the model called tools; they ran
			continue
		}
		switch resp.StopReason {
		case llm.StopMaxTokens:
			return acp.StopMaxTokens
		case llm.StopRefusal:
			// ACP: after a refusal the prompt and everything after it are
			// left out of the next request.
			r.truncate(turnStart)
			return acp.StopRefusal
		case llm.StopPauseTurn:
			continue
		}
		// The model ended its turn: the Stop seam may refuse.
		d := r.runStopHook(ctx, stopHookActive)
		if d.StopTurn && d.StopReason != "" {
			return r.endByHook(ctx)
		}
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

// TypeTruncate logs that the history was cut back to its first Keep
// messages (a refused prompt is dropped), so load cuts it too.
const TypeTruncate = "context/truncate"

func (r *runner) truncate(keep int) {
	r.s.mu.Lock()
	if keep < len(*r.history) {
		*r.history = (*r.history)[:keep]
	}
	r.s.mu.Unlock()
	r.record(TypeTruncate, map[string]int{"keep": keep})
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
	in := &hooks.Input{Event: r.stopEvent, StopHookActive: active, LastAssistantMessage: r.lastText}
	d := r.hook(ctx, in)
	r.s.showSystemMessages(ctx, d)
	return d
}

// hook runs a seam for this runner: the turn, agent and model filled in,
// hook runs recorded in this runner's log (a subagent's own log). A
// StopTurn decision marks the turn to end at the next check.
func (r *runner) hook(ctx context.Context, in *hooks.Input) hooks.Decision {
	in.TurnID, in.AgentID, in.Record = r.turnID, r.agentID, r.record
	if r.agentID != "" {
		in.AgentTranscriptPath, in.CodexAgentTranscriptPath = r.transcript.Path(), r.rollout.Path()
	}
	if in.Model == "" {
		in.Model = r.model
	}
	d := r.s.runHook(ctx, in)
	if d.StopTurn && !r.stopped {
		r.stopped, r.stopReason = true, d.StopReason
	}
	return d
}

// endByHook ends a turn a hook's StopTurn ended, telling the user why.
func (r *runner) endByHook(ctx context.Context) acp.StopReason {
	msg := "A hook ended the turn."
	if r.stopReason != "" {
		msg = "A hook ended the turn: " + r.stopReason
	}
	r.record(sessionlog.TypeNotice, map[string]any{"kind": "turnStopped", "reason": r.stopReason})
	r.announce(ctx, "\n\n[cordis: "+msg+"]")
	return acp.StopEndTurn
}

// iterate runs one step of the loop between the LoopStart and LoopEnd
// seams: one model request and the tool calls it makes. done reports that
// the turn ends with reason; otherwise resp is the model's answer when it
// called no tools, nil when it did (their results are in the history).
func (r *runner) iterate(ctx context.Context, step int) (resp *llm.Response, reason acp.StopReason, done bool) {
	r.hook(ctx, &hooks.Input{Event: hooks.LoopStart, Step: step})
	defer r.hook(context.WithoutCancel(ctx), &hooks.Input{Event: hooks.LoopEnd, Step: step})
	if r.stopped {
		return nil, r.endByHook(ctx), true
	}
	resp, err := r.step(ctx, step)
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return nil, acp.StopCancelled, true
		}
		r.announce(ctx, "\n\n"+explainModelError(err))
		r.record(sessionlog.TypeModelError, map[string]any{"error": err.Error(), "kind": llm.ErrorKindOf(err)})
		return nil, acp.StopEndTurn, true
	case resp == nil: // a hook ended the turn before the request
		return nil, r.endByHook(ctx), true
	}
	var toolUses, runnable []llm.Block
	cut := cutOffCalls(resp)
	for i, b := range resp.Content {
		if b.Type == llm.BlockToolUse {
			toolUses = append(toolUses, b)
			if !cut[i] {
				runnable = append(runnable, b)
			}
		}
	}
	if len(toolUses) > 0 {
		var ran []llm.Block
		if len(runnable) > 0 {
			ran = r.runTools(ctx, step, runnable)
		}
		// Every tool_use gets its tool_result, in the calls' order.
		results := make([]llm.Block, 0, len(toolUses))
		for i, b := range resp.Content {
			switch {
			case b.Type != llm.BlockToolUse:
			case cut[i]:
				results = append(results, r.refuseCutOff(ctx, b))
			default:
				results, ran = append(results, ran[0]), ran[1:]
			}
		}
		r.appendMessage(llm.Message{Role: llm.RoleUser, Content: results})
		if ctx.Err() != nil {
			return nil, acp.StopCancelled, true
		}
		resp = nil
	}
	if r.stopped {
		return nil, r.endByHook(ctx), true
	}
	return resp, "", false
}

// cutOffCalls returns the positions in resp.Content of the tool calls the
// output limit cut off: in a response that stopped on max_tokens, the
// call still being streamed (the last block) and any whose input did not
// parse or had to be repaired. The providers already leave such a call
// without Input; this does not rely on it.
func cutOffCalls(resp *llm.Response) map[int]bool {
	if resp.StopReason != llm.StopMaxTokens {
		return nil
	}
	cut := map[int]bool{}
	for i, b := range resp.Content {
		if b.Type == llm.BlockToolUse && (i == len(resp.Content)-1 || b.Input == nil || b.Text != "") {
			cut[i] = true
		}
	}
	return cut
}

// refuseCutOff answers a tool call the output limit cut off without
// running it or asking about it (its input is incomplete, and a cut-off
// Write would write a cut-off file): the editor sees the call fail with
// the reason, and the model is told to retry with less.
func (r *runner) refuseCutOff(ctx context.Context, use llm.Block) llm.Block {
	msg := fmt.Sprintf("This %s call was cut off by the output token limit (max_tokens) before its input was complete, so it was not run. "+
		"Retry with smaller input: for example write a large file in parts (a shorter Write, then Edit calls that add the rest), or split the work into several calls.", use.Name)
	ev := toolEvent{ToolCallID: use.ID, Name: use.Name, Title: use.Name + " (cut off by the output limit)", Kind: acp.ToolKindOther, AgentID: r.agentID}
	if t, ok := tools.ByName(r.tools, use.Name); ok {
		ev.Kind = acp.ToolKind(t.Kind())
	}
	r.record(sessionlog.TypeToolCall, ev)
	r.s.notify(ctx, acp.ToolCall{ToolCallID: use.ID, Title: ev.Title, Kind: ev.Kind, Status: acp.ToolStatusPending, RawInput: rawOrEmpty(nil)})
	r.finishTool(ctx, use.ID, tools.Result{Text: msg, IsError: true}, "")
	return toolResult(use.ID, msg, true)
}

// step sends one model request and streams its answer. The PrepareRequest
// seam may change the system prompt and tools of this request; LLMRequest
// and LLMResponse observe it. It returns nil, nil when a hook ended the
// turn before the request was sent.
func (r *runner) step(ctx context.Context, step int) (*llm.Response, error) {
	s := r.s
	if r.toolsNow != nil {
		r.tools = r.toolsNow()
	}
	s.mu.Lock()
	model := firstNonEmpty(r.model, s.model)
	msgs := limitImages(mergeAdjacent(*r.history))
	s.mu.Unlock()
	req := &llm.Request{
		Model:          model,
		MaxTokens:      s.agent.cfg.MaxTokens,
		System:         slices.Clip(r.system),
		Messages:       msgs,
		Tools:          toolSpecs(r.tools),
		ThinkingBudget: s.agent.cfg.ThinkingBudget,
	}
	pd := r.hook(ctx, &hooks.Input{Event: hooks.PrepareRequest, Step: step, Request: req, Model: model})
	if pd.System != nil {
		req.System = pd.System
	}
	if pd.Tools != nil {
		req.Tools = pd.Tools
	}
	if !r.stopped {
		r.hook(ctx, &hooks.Input{Event: hooks.LLMRequest, Step: step, Request: req, Model: model})
	}
	if r.stopped {
		return nil, nil
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
			s.reportUsage(ctx, resp.Usage, firstNonEmpty(resp.Model, model))
			if err := r.rollout.TokenCount(resp.Usage); err != nil {
				s.agent.log.Warn("rollout transcript append failed", "session", s.id, "error", err)
			}
		}
	}
	in := &hooks.Input{Event: hooks.LLMResponse, Step: step, Request: req, Response: resp, Model: model}
	if err != nil {
		in.Response, in.Error = nil, err.Error()
	}
	ld := r.hook(context.WithoutCancel(ctx), in)
	s.showSystemMessages(ctx, ld)
	if ld.Compact && err == nil {
		used := resp.Usage.ContextTokens()
		r.record(sessionlog.TypeNotice, map[string]any{"kind": "compactionRequested", "contextTokens": used, "contextWindow": s.agent.cfg.ContextWindow})
		s.agent.log.Info("a hook asked for compaction", "session", s.id, "agent", r.agentID, "contextTokens", used, "contextWindow", s.agent.cfg.ContextWindow)
		if r.depth == 0 {
			s.mu.Lock()
			s.compactWanted = true
			s.mu.Unlock()
		}
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// reportUsage adds a response's usage to the session's totals and sends
// usage_update: the context used, and the session's cost so far when every
// response came from a model with a known price.
func (s *Session) reportUsage(ctx context.Context, u llm.Usage, model string) {
	used := int64(u.ContextTokens())
	s.mu.Lock()
	s.lastContextTokens = int(used)
	s.addUsage(u, model)
	totals := s.totals
	s.mu.Unlock()
	up := acp.UsageUpdate{Used: used, Size: int64(s.agent.cfg.ContextWindow)}
	if totals.CostKnown {
		up.Cost = &acp.Cost{Amount: math.Round(totals.CostUSD*1e6) / 1e6, Currency: "USD"}
	}
	s.notify(ctx, up)
}

// addUsage adds one response to the session's totals; s.mu must be held.
func (s *Session) addUsage(u llm.Usage, model string) {
	first := s.totals.Requests == 0
	s.totals.Requests++
	s.totals.Tokens += int64(u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
	if p, ok := priceOf(model); ok {
		s.totals.CostUSD += p.cost(u)
		s.totals.CostKnown = first || s.totals.CostKnown
	} else {
		s.totals.CostKnown = false
	}
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
