package loop

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
)

// runner drives the model/tool loop for the main agent or a subagent.
type runner struct {
	s       *Session
	turnID  string
	depth   int    // 0 for the main agent
	agentID string // subagent id, "" for the main agent
	// agentType is the subagent's type, for its hooks ("" for the main agent).
	agentType string
	history   *[]llm.Message
	log       *sessionlog.Writer
	// logPath is the subagent's own log ("" for the main agent, whose
	// log is the session's).
	logPath string
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
	// toolsNow re-reads the tool list before each model request (MCP
	// servers may change theirs); nil keeps tools.
	toolsNow func() []tools.Tool
	// lastText is the text of the last complete response: the Stop
	// hooks' last_assistant_message, a subagent's result, the plan
	// ExitPlanMode falls back on.
	lastText string
	// stopped is set when a hook's StopTurn asked to end the turn, with
	// the reason it gave.
	stopped    bool
	stopReason string
	// failure is the model error that ended the turn (outcome failed).
	failure error
	// parentCallID is the Task call a subagent runs for ("" for the main
	// agent); its tool calls carry it in _meta.
	parentCallID string
	// messageID names the chunks of the model response being streamed.
	messageID string
	// turnStart is where the turn begins in the history. The main agent
	// compacts in the middle of a turn (compact.go): compactedAt is the
	// history's length after its last compaction, mustCompact asks for
	// one before the next step (the window was full), recoveredStep is
	// 1 + the step whose context-length error was answered by one.
	turnStart     int
	compactedAt   int
	mustCompact   bool
	recoveredStep int
	// windowFull is set when a response stopped on a full context window
	// (model_context_window_exceeded); a second one ends the turn.
	windowFull bool
	// quiet holds the calls that send no card, verbatimCalls those whose
	// result text the editor shows fenced (both guarded by s.mu).
	quiet         map[string]bool
	verbatimCalls map[string]bool
	// loggedOutputs are the outputs tool/result events stored that the
	// next message leaves out (logonce.go; the turn's goroutine only).
	loggedOutputs map[string]string
}

func (s *Session) mainRunner(turnID string, opts turnOptions) *runner {
	s.mu.Lock()
	model := cmp.Or(opts.model, s.model)
	s.mu.Unlock()
	system := s.systemPrompt(cmp.Or(s.agent.cfg.SystemPrompt, basePromptFor(model)))
	r := &runner{
		s: s, turnID: turnID, history: &s.history, log: s.log, system: system, model: opts.model,
		toolsNow: func() []tools.Tool { return s.toolsFor(0) },
		takeContext: func() []string {
			s.mu.Lock()
			defer s.mu.Unlock()
			c := s.pendingContext
			s.pendingContext = nil
			return c
		},
		stopEvent: hooks.Stop,
	}
	// The chunks of one model response share a messageId, so an editor
	// keeps them together as one message and starts a new one with the
	// next response (ACP prompt-turn: "a new id starts a new message").
	r.emitText = func(ctx context.Context, t string) {
		s.notify(ctx, acp.AgentMessageChunk{Content: acp.TextBlock(t), MessageID: r.messageID})
	}
	r.emitThought = func(ctx context.Context, t string) {
		s.notify(ctx, acp.AgentThoughtChunk{Content: acp.TextBlock(t), MessageID: r.messageID})
	}
	return r
}

// newMessageID is an opaque id for one message's chunks.
func newMessageID() string { return "msg_" + rand.Text() }

func environmentPrompt(cwd string, roots []string) string {
	return fmt.Sprintf("Environment:\n- Working directory: %s\n- Directories you may access: %s", cwd, strings.Join(roots, ", "))
}

func (s *Session) toolsFor(depth int) []tools.Tool {
	var out []tools.Tool
	for _, t := range s.agent.cfg.Tools {
		if t.Name() == "Agent" && depth >= s.agent.cfg.MaxSubagentDepth {
			continue
		}
		if t.Name() == "WebSearch" && !s.servesWebSearch() {
			continue // the provider cannot search: the model never hears of it
		}
		out = append(out, t)
	}
	s.mu.Lock()
	planning := s.mode == ModePlan
	s.mu.Unlock()
	if planning && depth == 0 {
		// Offered in plan mode only, as Claude Code does: the way out.
		out = append(out, tools.ExitPlanMode())
	}
	return append(s.sessionTools(out), s.mcpTools()...)
}

func (r *runner) record(ev logEvent) { r.recordRaw(ev.logType(), ev) }

// recordRaw appends data as an event of type typ, for hooks.Input.Record.
func (r *runner) recordRaw(typ string, data any) {
	if _, err := r.log.Append(typ, data); err != nil {
		r.s.logFailed(typ, err)
	}
}

// appendMessage adds a message to the history and the log.
func (r *runner) appendMessage(m llm.Message) {
	r.s.mu.Lock()
	*r.history = append(*r.history, m)
	r.s.mu.Unlock()
	r.record(r.logMessage(m))
}

// outcome is how one step of a turn (a model request and the tool calls
// it made) ended; run is one switch over it.
type outcome int

const (
	// toolsRan: the model called tools and their results are in the
	// history; the turn takes another step.
	toolsRan outcome = iota
	// modelEnded: the model answered without calling tools; the response
	// says why it stopped.
	modelEnded
	// hookEnded: a hook's StopTurn ended the turn.
	hookEnded
	// failed: the model request failed; the user was told why.
	failed
	// cancelled: the turn's context was cancelled.
	cancelled
)

// run appends the user message and loops model steps and tool calls until
// the model stops (and the Stop seam agrees), the request cap is hit, or
// ctx is cancelled.
func (r *runner) run(ctx context.Context, user llm.Message) acp.StopReason {
	r.turnStart = r.begin(user)
	var stop stopState
	cfg := r.s.agent.cfg
	for step := 0; ; step++ {
		if ctx.Err() != nil {
			return acp.StopCancelled
		}
		if step >= cfg.MaxTurnRequests {
			r.announce(ctx, fmt.Sprintf("\n\n[cordis: stopped after %d model requests in one turn (maxTurnRequests)]", cfg.MaxTurnRequests))
			return acp.StopMaxTurnRequests
		}
		// A request that would not fit the model's window is compacted
		// first, and the same turn goes on.
		if r.fitContext(ctx) {
			return acp.StopCancelled
		}
		out, resp := r.iterate(ctx, step)
		switch out {
		case cancelled:
			return acp.StopCancelled
		case failed:
			return acp.StopEndTurn
		case hookEnded:
			return r.endByHook(ctx)
		case toolsRan:
			continue
		}
		switch resp.StopReason {
		case llm.StopMaxTokens:
			return acp.StopMaxTokens
		case llm.StopRefusal:
			// ACP: after a refusal the prompt and everything after it are
			// left out of the next request.
			r.truncate(r.turnStart)
			return acp.StopRefusal
		case llm.StopPauseTurn:
			continue
		case llm.StopContextLimit:
			if r.depth == 0 { // compacted before the next step
				continue
			}
			return acp.StopMaxTokens
		}
		if reason, ended := r.stopSeam(ctx, &stop); ended {
			return reason
		}
	}
}

// begin puts the turn's pending context (SessionStart or SubagentStart)
// before the user message and appends the message. It returns where the
// turn starts in the history.
func (r *runner) begin(user llm.Message) (turnStart int) {
	var pre []llm.Block
	for _, c := range r.takeContext() {
		pre = append(pre, llm.Text(systemReminder(c)))
	}
	if r.depth == 0 {
		// What background hooks reported since the last request.
		pre = append(pre, r.s.late.take()...)
	}
	if len(pre) > 0 {
		user.Content = append(pre, user.Content...)
	}
	r.s.mu.Lock()
	turnStart = len(*r.history)
	r.s.mu.Unlock()
	r.appendMessage(user)
	return turnStart
}

// stopState is what the Stop seam remembers across one turn.
type stopState struct {
	blocks int  // consecutive blocks so far
	active bool // a Stop hook blocked before (stop_hook_active)
}

// stopSeam runs the Stop (or SubagentStop) seam after the model ended its
// turn. ended reports that the turn ends, with reason; otherwise a hook
// blocked the stop and its reason went into the history as steering, so
// the turn takes another step. Consecutive blocks are capped.
func (r *runner) stopSeam(ctx context.Context, st *stopState) (reason acp.StopReason, ended bool) {
	d := r.runStopHook(ctx, st.active)
	switch {
	case d.StopTurn && d.StopReason != "":
		return r.endByHook(ctx), true
	case d.StopTurn || !d.Block:
		return acp.StopEndTurn, true
	}
	st.blocks++
	if st.blocks > r.s.agent.cfg.MaxStopBlocks {
		msg := fmt.Sprintf("A %s hook blocked the turn from ending %d consecutive times; ending the turn anyway.", r.stopEvent, st.blocks)
		r.announce(ctx, "\n\n[cordis: "+msg+"]")
		r.record(steeringCappedEvent{Capped: true, Blocks: st.blocks, Message: msg})
		return acp.StopEndTurn, true
	}
	st.active = true
	why := cmp.Or(d.Reason, "A stop hook asked you to continue.")
	r.record(steeringEvent{Event: string(r.stopEvent), Reason: why, Blocks: st.blocks})
	r.appendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(systemReminder("Stop hook feedback:\n" + why))}})
	return "", false
}

func (r *runner) truncate(keep int) {
	r.s.mu.Lock()
	if keep < len(*r.history) {
		*r.history = (*r.history)[:keep]
	}
	if r.depth == 0 {
		r.s.ctxBase = contextBase{}
	}
	r.s.mu.Unlock()
	r.record(truncateEvent{Keep: keep})
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
	in.TurnID, in.AgentID, in.Record = r.turnID, r.agentID, r.recordRaw
	if in.AgentType == "" {
		in.AgentType = r.agentType
	}
	in.AgentLogPath = r.logPath
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
	r.record(turnStoppedNotice{Kind: "turnStopped", Reason: r.stopReason})
	r.announce(ctx, "\n\n[cordis: "+msg+"]")
	return acp.StopEndTurn
}

// iterate runs one step of the loop between the LoopStart and LoopEnd
// seams: one model request and the tool calls it makes. resp is the
// model's answer when the outcome is modelEnded. A StopTurn from any hook
// of the step, LoopEnd included, ends the turn at the step's end.
func (r *runner) iterate(ctx context.Context, step int) (out outcome, resp *llm.Response) {
	r.hook(ctx, &hooks.Input{Event: hooks.LoopStart, Step: step})
	out, resp = r.stepAndTools(ctx, step)
	r.observe(ctx, &hooks.Input{Event: hooks.LoopEnd, Step: step})
	if r.stopped && (out == toolsRan || out == modelEnded) {
		return hookEnded, nil
	}
	return out, resp
}

// stepAndTools sends the step's model request and runs the tools it
// called.
func (r *runner) stepAndTools(ctx context.Context, step int) (outcome, *llm.Response) {
	if r.stopped {
		return hookEnded, nil
	}
	resp, err := r.step(ctx, step)
	if err != nil && ctx.Err() == nil && r.recoverContext(ctx, step, err) {
		resp, err = r.step(ctx, step)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return cancelled, nil
	case err != nil:
		r.failModel(ctx, err)
		return failed, nil
	case resp == nil: // a hook ended the turn before the request
		return hookEnded, nil
	}
	if r.depth == 0 && resp.StopReason == llm.StopContextLimit {
		if r.windowFull {
			r.failModel(ctx, &llm.Error{Kind: llm.ErrInvalid, Message: "the model stopped twice because its context window is full (model_context_window_exceeded)"})
			return failed, nil
		}
		r.windowFull, r.mustCompact = true, true
	} else {
		r.windowFull = false
	}
	if !slices.ContainsFunc(resp.Content, func(b llm.Block) bool { return b.Type == llm.BlockToolUse }) {
		return modelEnded, resp
	}
	results := r.answerToolCalls(ctx, step, resp)
	if r.depth == 0 {
		// What background hooks reported by now goes with the results,
		// into the next request.
		results = append(results, r.s.late.take()...)
	}
	r.appendMessage(llm.Message{Role: llm.RoleUser, Content: results})
	if ctx.Err() != nil {
		return cancelled, nil
	}
	return toolsRan, nil
}

// answerToolCalls runs the tool calls of resp and returns their results,
// one per tool_use in the calls' order; a call the output limit cut off
// is answered without running.
func (r *runner) answerToolCalls(ctx context.Context, step int, resp *llm.Response) []llm.Block {
	cut := cutOffCalls(resp)
	var runnable []llm.Block
	for i, b := range resp.Content {
		if b.Type == llm.BlockToolUse && !cut[i] {
			runnable = append(runnable, b)
		}
	}
	var ran []llm.Block
	if len(runnable) > 0 {
		ran = r.runTools(ctx, step, runnable)
	}
	var results []llm.Block
	for i, b := range resp.Content {
		switch {
		case b.Type != llm.BlockToolUse:
		case cut[i]:
			results = append(results, r.refuseCutOff(ctx, b))
		default:
			results, ran = append(results, ran[0]), ran[1:]
		}
	}
	return results
}

// cutOffCalls returns the positions in resp.Content of the tool calls the
// output limit cut off: in a response that stopped on max_tokens, the
// call still being streamed (the last block) and any whose input did not
// parse or had to be repaired. The providers already leave such a call
// without Input; this does not rely on it.
func cutOffCalls(resp *llm.Response) map[int]bool {
	if resp.StopReason != llm.StopMaxTokens && resp.StopReason != llm.StopContextLimit {
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
	r.record(toolCallEvent{ev})
	r.noteKind(use.ID, ev.Kind)
	r.notifyTool(ctx, use.ID, acp.ToolCall{ToolCallID: use.ID, Title: ev.Title, Kind: ev.Kind, Status: acp.ToolStatusPending, RawInput: rawOrEmpty(nil)})
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
	model := cmp.Or(r.model, s.model)
	msgs := requestMessages(*r.history, llm.CapsOf(model))
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
	r.record(modelRequestEvent{Model: model, Messages: len(msgs), Tools: toolNames})
	r.messageID = newMessageID()
	var text strings.Builder
	streamed := newTextBatch(func(t string) { r.record(streamTextEvent{Text: t}) })
	// Each record (frame, log line) is scrubbed as it is written, but a
	// key split over deltas would reach the editor and the log's batches
	// whole once joined: the streams hold back an end that could start a
	// key until the next delta decides it (secrets.Stream).
	var textScrub, thoughtScrub secrets.Stream
	emitText := func(t string) {
		if t != "" {
			streamed.add(t)
			r.emitText(ctx, t)
		}
	}
	emitThought := func(t string) {
		if t != "" {
			r.emitThought(ctx, t)
		}
	}
	resp, err := s.agent.cfg.Provider.Stream(ctx, req, func(d llm.Delta) {
		switch d.Kind {
		case llm.DeltaText:
			text.WriteString(d.Text)
			emitThought(thoughtScrub.Flush()) // the thinking ended first
			emitText(textScrub.Write(d.Text))
		case llm.DeltaThinking:
			emitText(textScrub.Flush())
			emitThought(thoughtScrub.Write(d.Text))
		case llm.DeltaRetry:
			emitThought(thoughtScrub.Flush())
			emitText(textScrub.Flush())
			r.showRetry(ctx, d.Text)
		}
	})
	// The response ended, failed or was cancelled: what is held back
	// follows what was shown, before anything else.
	emitThought(thoughtScrub.Flush())
	emitText(textScrub.Flush())
	streamed.end(resp != nil)
	if resp != nil {
		r.keepResponse(ctx, resp, err != nil, text.String(), model)
	}
	r.responseSeam(ctx, step, req, resp, err, model)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// keepResponse puts what the model answered into the history and the
// log, and counts its usage. A response cut short by a cancel or an error
// keeps what the user saw, without its unfinished tool calls (they have no
// result) and its unsigned thinking (the API refuses it back); its usage,
// when the stream reported any, is billed too: the tokens were spent.
func (r *runner) keepResponse(ctx context.Context, resp *llm.Response, partial bool, text, model string) {
	s := r.s
	content := keepComplete(resp.Content)
	r.record(modelResponseEvent{StopReason: resp.StopReason, Usage: resp.Usage, Model: resp.Model, Partial: partial})
	if partial {
		content = withoutCutThinking(withoutToolUse(content))
	}
	if len(content) > 0 {
		r.appendMessage(llm.Message{Role: llm.RoleAssistant, Content: content})
	}
	if !partial {
		r.lastText = text
		if r.depth == 0 {
			// The next request's size is estimated from this count (a
			// server that reports none leaves it to bytes/4 of all).
			s.mu.Lock()
			s.ctxBase = contextBase{}
			if used := resp.Usage.ContextTokens(); used > 0 {
				s.ctxBase = contextBase{tokens: used, messages: len(*r.history)}
			}
			s.mu.Unlock()
		}
	}
	if !partial || resp.Usage != (llm.Usage{}) {
		s.reportUsage(context.WithoutCancel(ctx), resp.Usage, cmp.Or(resp.Model, model))
	}
}

// failModel ends a step whose model request failed. The error goes to the
// editor as the answer to session/prompt (main agent) or as text on the
// parent's tool call (subagent), never as the model's words; the history
// says that the last message got no answer, so the next prompt is not
// read as part of it.
func (r *runner) failModel(ctx context.Context, err error) {
	r.failure = err
	r.record(modelErrorEvent{Error: err.Error(), Kind: llm.ErrorKindOf(err)})
	if r.depth > 0 {
		r.announce(ctx, "\n\n"+explainModelError(err))
	}
	r.s.mu.Lock()
	h := *r.history
	unanswered := len(h) > 0 && h[len(h)-1].Role == llm.RoleUser
	r.s.mu.Unlock()
	if unanswered {
		note := fmt.Sprintf("The model request for the message above failed (%s), so it got no answer.", cmp.Or(string(llm.ErrorKindOf(err)), "error"))
		r.appendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(systemReminder(note))}})
	}
}

// showRetry shows that the provider waits to retry a request: a notice
// where the editor takes them, otherwise a status line that is not logged
// (it is not part of the conversation).
func (r *runner) showRetry(ctx context.Context, why string) {
	switch {
	case r.depth > 0:
		r.emitText(ctx, "[cordis: "+why+"]\n")
	case r.s.agent.client.Capabilities().Notices():
		r.s.notify(ctx, acp.NoticeUpdate{Severity: "info", Title: "Retrying the model request", Description: why})
	default:
		r.s.notify(ctx, acp.AgentMessageChunk{Content: acp.TextBlock("[cordis: " + why + "]\n")})
	}
}

// responseSeam runs LLMResponse for the step and notes a hook's request
// to compact (acted on when the turn ends, for the main agent).
func (r *runner) responseSeam(ctx context.Context, step int, req *llm.Request, resp *llm.Response, err error, model string) {
	s := r.s
	in := &hooks.Input{Event: hooks.LLMResponse, Step: step, Request: req, Response: resp, Model: model}
	if err != nil {
		in.Response, in.Error = nil, err.Error()
	}
	ld := r.observe(ctx, in)
	s.showSystemMessages(ctx, ld)
	if !ld.Compact || err != nil {
		return
	}
	used, window := resp.Usage.ContextTokens(), s.agent.modelInfo(model).ContextWindow
	r.record(compactionRequestedNotice{Kind: "compactionRequested", ContextTokens: used, ContextWindow: window})
	s.agent.log.Info("a hook asked for compaction", "session", s.id, "agent", r.agentID, "contextTokens", used, "contextWindow", window)
	if r.depth == 0 {
		s.mu.Lock()
		s.compactWanted = true
		s.mu.Unlock()
	}
}
