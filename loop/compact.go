package loop

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
)

func (s *Session) clearConversation(ctx context.Context) {
	s.mu.Lock()
	n := len(s.history)
	s.history = nil
	s.ctxBase = contextBase{}
	s.mu.Unlock()
	s.record(clearEvent{MessagesDropped: n})
	s.queueSessionStart(ctx, "clear")
	s.say(ctx, fmt.Sprintf("Started a new conversation (%d earlier messages cleared from the model's context; they stay in the session log).", n))
}

const compactPrompt = `Summarize the conversation so far so that it can continue from your summary alone. Keep: the user's goals and requests, decisions made, files read or changed (with paths) and why, commands run and their important results, open problems and next steps. Be specific and complete; omit pleasantries.`

// midTurnPrompt is added to the summary request of a compaction in the
// middle of a turn: the work goes on right after it.
const midTurnPrompt = `The conversation is being compacted in the middle of a task, to fit the model's context window; its most recent messages are kept as they are and follow your summary. State the user's current request in full (quote it where the wording matters), what has been done for it so far, and what remains, so that the work continues without asking the user again.`

// compactJob is one compaction of the session's history.
type compactJob struct {
	turnID       string
	trigger      string // PreCompact's trigger: manual | auto
	instructions string
	// midTurn keeps the running turn's latest messages as they are (the
	// model's last tool calls and their results at least, pairs never
	// split) and summarizes what comes before; turnStart is where the
	// turn begins in the history.
	midTurn   bool
	turnStart int
	// reason says why an automatic compaction ran ("" for /compact and
	// the one a hook asked for).
	reason string
}

// compactOutcome is how a compaction ended.
type compactOutcome int

const (
	compacted compactOutcome = iota
	// compactSkipped: a hook blocked it, or there was nothing to compact.
	compactSkipped
	compactFailed
	compactCancelled
)

// compact replaces the whole history with a model-written summary
// (/compact, and the compaction a hook asked for once a turn ended).
// PreCompact may refuse; PostCompact and SessionStart(compact) run after
// it. A PostCompact `continue: false` has nothing left to stop: the turn
// ends with the compaction anyway.
func (s *Session) compact(ctx context.Context, turnID, instructions, trigger string) acp.StopReason {
	if out, _ := s.runCompaction(ctx, compactJob{turnID: turnID, trigger: trigger, instructions: instructions}); out == compactCancelled {
		return acp.StopCancelled
	}
	return acp.StopEndTurn
}

// runCompaction replaces the history (all of it, or what comes before the
// running turn's latest messages) with a model-written summary. The
// editor sees it as a compaction_update where it takes them, else as
// text; the session log records it so that a load rebuilds the same
// history and shows the same thing. After a compaction, post is the
// merged decision of the PostCompact hooks (its StopTurn asks to end the
// turn); otherwise it is the zero Decision.
func (s *Session) runCompaction(ctx context.Context, job compactJob) (out compactOutcome, post hooks.Decision) {
	d := s.runHook(ctx, &hooks.Input{Event: hooks.PreCompact, TurnID: job.turnID, Trigger: job.trigger, CustomInstructions: job.instructions})
	s.showSystemMessages(ctx, d)
	if d.Block || d.StopTurn {
		s.say(ctx, "Compaction was blocked by a hook: "+cmp.Or(d.Reason, d.StopReason, "no reason given"))
		return compactSkipped, hooks.Decision{}
	}
	out, summary := s.summarize(ctx, job)
	if out != compacted {
		return out, hooks.Decision{}
	}
	// PostCompact (Claude Code v2.1.76, Codex): hooks see the summary that
	// now stands for the conversation; they only observe (their messages
	// are shown to the user), except Codex's `continue: false`.
	post = s.runHook(ctx, &hooks.Input{Event: hooks.PostCompact, TurnID: job.turnID, Trigger: job.trigger, CompactSummary: summary})
	s.showSystemMessages(ctx, post)
	s.queueSessionStart(ctx, "compact")
	return compacted, post
}

// summarize does the compaction itself once PreCompact let it: the
// summary request, the history replaced, the log and the editor told. It
// returns the summary when it compacted.
func (s *Session) summarize(ctx context.Context, job compactJob) (compactOutcome, string) {
	s.mu.Lock()
	history := slices.Clone(s.history)
	model := s.model
	s.mu.Unlock()
	info := s.agent.modelInfo(model)
	keep := 0
	if job.midTurn {
		var ok bool
		if keep, ok = keptTail(history, job.turnStart, s.agent.inputLimit(info)/4); !ok {
			return compactSkipped, ""
		}
	}
	older := history[:len(history)-keep]
	if len(older) == 0 {
		s.say(ctx, "Nothing to compact yet.")
		return compactSkipped, ""
	}
	id := s.nextCompactionID()
	if s.agent.client.Capabilities().Compaction() {
		s.notify(ctx, acp.CompactionUpdate{CompactionID: id, Status: acp.CompactionInProgress})
	}
	ask := compactPrompt
	if job.midTurn {
		ask += "\n\n" + midTurnPrompt
	}
	if job.instructions != "" {
		ask += "\n\nAdditional instructions: " + job.instructions
	}
	system := "You write precise summaries of coding sessions."
	// The history goes as plain text: a request that holds tool_use blocks
	// but offers no tools is refused by some providers, and the summary
	// needs what happened, not the wire shapes. What does not fit the
	// window is left out, oldest first.
	flat := fitSummary(flattenForSummary(older), s.agent.inputLimit(info)-estimateText(ask)-estimateText(system))
	msgs := mergeAdjacent(append(flat, llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(ask)}}))
	req := &llm.Request{Model: model, MaxTokens: s.agent.cfg.MaxTokens, System: []string{system}, Messages: msgs}
	s.record(sideCallRequestEvent{Model: model, Messages: len(msgs), Purpose: sideCallCompaction})
	resp, err := s.agent.cfg.Provider.Stream(ctx, req, func(llm.Delta) {})
	if err != nil {
		if ctx.Err() != nil {
			s.compactionFailed(context.WithoutCancel(ctx), compactionFailedNotice{Kind: "compactionFailed", ID: id, Status: acp.CompactionCancelled, Error: "The compaction was cancelled; the conversation is unchanged."})
			return compactCancelled, ""
		}
		s.compactionFailed(ctx, compactionFailedNotice{Kind: "compactionFailed", ID: id, Status: acp.CompactionFailed, Error: "Compaction failed, the conversation is unchanged: " + explainModelError(err)})
		return compactFailed, ""
	}
	// The summary call is billed like any other: it counts in /status,
	// /budget and budget-check, and load rebuilds it from the log.
	s.record(sideCallResponseEvent{StopReason: resp.StopReason, Usage: resp.Usage, Model: resp.Model, Purpose: sideCallCompaction})
	text := answerText(resp.Content)
	if text == "" {
		s.usage.add(resp.Usage, cmp.Or(resp.Model, model))
		s.compactionFailed(ctx, compactionFailedNotice{Kind: "compactionFailed", ID: id, Status: acp.CompactionFailed, Error: "Compaction failed: the model returned no summary; the conversation is unchanged."})
		return compactFailed, ""
	}
	tail := history[len(history)-keep:]
	s.mu.Lock()
	s.history = append([]llm.Message{compactedMessage(text)}, tail...)
	// The next request's size is estimated afresh: the last response's
	// count covered the messages just replaced.
	s.ctxBase = contextBase{}
	s.mu.Unlock()
	// The context is now about the summary and the kept messages until the
	// next response says.
	s.bill(ctx, resp.Usage, cmp.Or(resp.Model, model), resp.Usage.OutputTokens+estimateMessages(tail))
	ev := compactionEvent{ID: id, Summary: text, MessagesBefore: len(history), Kept: keep, Trigger: job.trigger, Instructions: job.instructions, Reason: job.reason}
	s.record(ev)
	s.notify(ctx, s.compactionShown(ev))
	return compacted, text
}

// compactionFailed records a compaction that did not happen and shows it.
func (s *Session) compactionFailed(ctx context.Context, n compactionFailedNotice) {
	s.record(n)
	s.notify(ctx, s.compactionFailureShown(n))
}

// nextCompactionID names the session's next compaction; the sequence goes
// on after a load (restore counts the logged ones), so ids stay unique
// within the session.
func (s *Session) nextCompactionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactions++
	return "compaction-" + strconv.Itoa(s.compactions)
}

// noteCompactionID keeps the sequence of ids beyond one read from the log.
func (s *Session) noteCompactionID(id string) {
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "compaction-")); err == nil && n > s.compactions {
		s.compactions = n
	}
}

// compactionShown is what the editor is shown of a finished compaction,
// live and when the session is loaded: a compaction_update with the
// summary where the client takes them, otherwise a line of text.
func (s *Session) compactionShown(ev compactionEvent) acp.SessionUpdate {
	if s.agent.client.Capabilities().Compaction() {
		return acp.CompactionUpdate{CompactionID: ev.ID, Status: acp.CompactionCompleted, Summary: []acp.ContentBlock{acp.TextBlock(ev.Summary)}}
	}
	if ev.Reason == "" {
		return acp.AgentMessageChunk{Content: acp.TextBlock(fmt.Sprintf("Compacted the conversation: %d messages replaced by a summary of %d characters.", ev.MessagesBefore, len(ev.Summary)))}
	}
	kept := ""
	switch {
	case ev.Kept == 1:
		kept = "; the last message is kept as it is and the turn goes on"
	case ev.Kept > 1:
		kept = fmt.Sprintf("; the last %d messages are kept as they are and the turn goes on", ev.Kept)
	}
	return acp.AgentMessageChunk{Content: acp.TextBlock(fmt.Sprintf("\n\n[cordis: %s, so the conversation was compacted: %d messages replaced by a summary of %d characters%s.]\n\n",
		ev.Reason, ev.MessagesBefore-ev.Kept, len(ev.Summary), kept))}
}

// compactionFailureShown is what the editor is shown of a compaction that
// failed or was cancelled.
func (s *Session) compactionFailureShown(n compactionFailedNotice) acp.SessionUpdate {
	if s.agent.client.Capabilities().Compaction() {
		msg := n.Error
		return acp.CompactionUpdate{CompactionID: n.ID, Status: n.Status, Error: &msg}
	}
	return acp.AgentMessageChunk{Content: acp.TextBlock(n.Error)}
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
				label := "tool result"
				if bl.IsError {
					label = "tool error"
				}
				fmt.Fprintf(&b, "[%s: %s]\n", label, summarize(resultText(bl.Content), 2000))
			case llm.BlockImage:
				b.WriteString("[an image]\n")
			}
		}
		if text := strings.TrimSpace(b.String()); text != "" {
			out = append(out, llm.Message{Role: m.Role, Content: []llm.Block{llm.Text(text)}})
		}
	}
	return mergeAdjacent(out)
}

// fitSummary leaves out the oldest messages of a flattened history until
// the rest fits budget tokens, and says so at the start.
func fitSummary(flat []llm.Message, budget int) []llm.Message {
	dropped := 0
	for len(flat) > 1 && estimateMessages(flat) > budget {
		flat, dropped = flat[1:], dropped+1
	}
	if dropped == 0 {
		return flat
	}
	note := llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(fmt.Sprintf("[%d earlier messages did not fit the model's context window and are left out.]", dropped))}}
	return mergeAdjacent(append([]llm.Message{note}, flat...))
}

func compactedMessage(summary string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(systemReminder("This session continues an earlier conversation that was compacted. Its summary:\n\n" + summary))}}
}

// keptTail is how many messages at the end of history a compaction in the
// middle of a turn keeps as they are: from the turn's start when that
// fits budget tokens, else from the earliest later message that does,
// and at least the last exchange (the model's last tool calls with their
// results, or the last user message). A kept tail never begins with a
// tool_result whose tool_use it leaves out. ok is false when nothing
// would be left before the tail to summarize.
func keptTail(history []llm.Message, turnStart, budget int) (keep int, ok bool) {
	n := len(history)
	latest := -1
	for i := n - 1; i >= 1; i-- {
		if pairClosed(history[i:]) {
			latest = i
			break
		}
	}
	if latest < 0 {
		return 0, false
	}
	suffix := make([]int, n+1) // suffix[i]: the estimate of history[i:]
	for i := n - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + estimateMessages(history[i:i+1])
	}
	for i := max(turnStart, 1); i < latest; i++ {
		if suffix[i] <= budget && pairClosed(history[i:]) {
			return n - i, true
		}
	}
	return n - latest, true
}

// pairClosed reports whether every tool_result in msgs answers a tool_use
// in msgs (so msgs can follow a summary on its own).
func pairClosed(msgs []llm.Message) bool {
	uses := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockToolUse:
				uses[b.ID] = true
			case llm.BlockToolResult:
				if !uses[b.ToolUseID] {
					return false
				}
			}
		}
	}
	return true
}

// contextBase is where the estimate of the next request's size starts:
// the context the main agent's last response reported (input, cache and
// output tokens) and how many history messages that covered. The zero
// value is none (a new or reopened session, after /clear, a compaction
// or a truncation): the estimate then counts everything.
type contextBase struct {
	tokens, messages int
}

// Token estimates. The APIs count tokens cordis cannot count exactly
// without their tokenizers; bytes/4 is the usual rule for English and
// code (real text runs 3.5 to 4 bytes a token), and the 5% margin of
// inputLimit absorbs its error. An image counts as imageTokens, about
// what the Anthropic API charges for a full-size one.
const (
	bytesPerToken = 4
	imageTokens   = 1600
	// messageTokens is each message's overhead (role, framing).
	messageTokens = 4
)

func estimateText(s string) int { return (len(s) + bytesPerToken - 1) / bytesPerToken }

// estimateMessages estimates the tokens msgs take in a request.
func estimateMessages(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += messageTokens
		for _, b := range m.Content {
			n += estimateBlock(b)
		}
	}
	return n
}

func estimateBlock(b llm.Block) int {
	switch b.Type {
	case llm.BlockImage:
		return imageTokens
	case llm.BlockToolResult:
		n := estimateText(b.ToolUseID)
		for _, c := range b.Content {
			n += estimateBlock(c)
		}
		return n
	}
	return estimateText(b.Text) + estimateText(b.Thinking) + estimateText(b.Signature) + estimateText(b.Data) +
		estimateText(b.Name) + estimateText(b.ID) + estimateText(string(b.Input)) + estimateText(string(b.Raw))
}

// inputLimit is the most input tokens a request to a model of info may
// carry before cordis compacts: the window, less the output the request
// may ask for (max_tokens; without one, the model's output limit, at most
// half the window), less 5% of the window for the estimate's error.
func (a *Agent) inputLimit(info llm.ModelInfo) int {
	reserve := a.cfg.MaxTokens
	if reserve <= 0 {
		reserve = info.MaxOutput
	}
	reserve = min(reserve, info.ContextWindow/2)
	return info.ContextWindow - reserve - info.ContextWindow/20
}

// requestEstimate estimates the input tokens of the runner's next
// request: the context the last response reported plus the messages added
// since (tool results, hook feedback) at bytes/4; without such a count,
// the system prompt, the tools and the whole history at bytes/4.
func (r *runner) requestEstimate() int {
	s := r.s
	s.mu.Lock()
	h := *r.history
	base := s.ctxBase
	s.mu.Unlock()
	if base.messages > 0 && base.messages <= len(h) {
		return base.tokens + estimateMessages(h[base.messages:])
	}
	n := estimateMessages(h)
	for _, p := range r.system {
		n += estimateText(p)
	}
	ts := r.tools
	if r.toolsNow != nil {
		ts = r.toolsNow()
	}
	for _, t := range toolSpecs(ts) {
		n += estimateText(t.Name) + estimateText(t.Description) + estimateText(string(t.InputSchema))
	}
	return n
}

// fitContext compacts the conversation before a step of the main agent
// whose request would not fit the model's context window (or after the
// model stopped because the window was full), keeping the turn's latest
// messages so that the same turn goes on. It reports whether the turn
// was cancelled meanwhile.
func (r *runner) fitContext(ctx context.Context) (cancelledNow bool) {
	if r.depth > 0 {
		return false
	}
	s := r.s
	s.mu.Lock()
	model := cmp.Or(r.model, s.model)
	n := len(*r.history)
	s.mu.Unlock()
	info := s.agent.modelInfo(model)
	est, limit := r.requestEstimate(), s.agent.inputLimit(info)
	var reason string
	switch {
	case n == r.compactedAt:
		// Nothing new since the last compaction: another would not help.
		return false
	case r.mustCompact:
		reason = "the model stopped because its context window is full"
	case est > limit:
		reason = fmt.Sprintf("the next request would hold about %d tokens, more than the %d that fit the context window of %s (%d tokens, less room for the answer)", est, limit, model, info.ContextWindow)
	default:
		return false
	}
	r.mustCompact = false
	return r.compactMidTurn(ctx, reason) == compactCancelled
}

// compactMidTurn compacts the history in the middle of the turn and sets
// the runner up to go on: the turn now starts after the summary, and the
// context SessionStart(compact) gave goes into the history.
func (r *runner) compactMidTurn(ctx context.Context, reason string) compactOutcome {
	out, post := r.s.runCompaction(ctx, compactJob{turnID: r.turnID, trigger: "auto", midTurn: true, turnStart: r.turnStart, reason: reason})
	if out != compacted {
		return out
	}
	if post.StopTurn && !r.stopped {
		// A PostCompact `continue: false`: the turn ends before its next
		// request (step sees r.stopped).
		r.stopped, r.stopReason = true, post.StopReason
	}
	r.turnStart = 1
	var blocks []llm.Block
	for _, c := range r.takeContext() {
		blocks = append(blocks, llm.Text(systemReminder(c)))
	}
	r.s.mu.Lock()
	h := *r.history
	cut := len(h) > 0 && h[len(h)-1].Role == llm.RoleAssistant
	r.s.mu.Unlock()
	if cut {
		// The model's answer stopped because the window was full: the
		// request must end with the user, who asks it to go on.
		blocks = append(blocks, llm.Text(systemReminder("Your last answer was cut off because the context window was full; the conversation was compacted. Continue exactly where you stopped.")))
	}
	if len(blocks) > 0 {
		r.appendMessage(llm.Message{Role: llm.RoleUser, Content: blocks})
	}
	r.s.mu.Lock()
	r.compactedAt = len(*r.history)
	r.s.mu.Unlock()
	return out
}

// recoverContext answers a request the API refused as too long for the
// context window: the conversation is compacted, visibly, and the step
// is sent again, once. It reports whether to send it again.
func (r *runner) recoverContext(ctx context.Context, step int, err error) bool {
	if r.depth > 0 || !llm.IsContextLength(err) || r.recoveredStep == step+1 {
		return false
	}
	r.recoveredStep = step + 1
	r.s.agent.log.Info("the request did not fit the context window; compacting", "session", r.s.id, "error", err)
	return r.compactMidTurn(ctx, "the model API refused the request as too long for the model's context window") == compacted
}
