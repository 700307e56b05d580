package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/tools"
)

// runTools runs the model's tool calls in order and returns one
// tool_result per call. Once ctx is cancelled the remaining calls are
// answered as interrupted, so the history stays valid for the next turn;
// once a hook has ended the turn they are answered as not run. The
// ProcessToolCalls seam sees the whole batch first and may supply results
// that replace running some or all of the calls.
func (r *runner) runTools(ctx context.Context, step int, uses []llm.Block) []llm.Block {
	pd := r.hook(ctx, &hooks.Input{Event: hooks.ProcessToolCalls, Step: step, ToolCalls: uses})
	var supplied map[string]*hooks.ToolResult
	if len(pd.ToolResults) > 0 {
		supplied = make(map[string]*hooks.ToolResult, len(pd.ToolResults))
		for i := range pd.ToolResults {
			supplied[pd.ToolResults[i].ToolUseID] = &pd.ToolResults[i]
		}
	}
	results := make([]llm.Block, 0, len(uses))
	for _, u := range uses {
		switch {
		case ctx.Err() != nil:
			results = append(results, toolResult(u.ID, "The user interrupted this tool call before it ran.", true))
		case r.stopped:
			results = append(results, toolResult(u.ID, "This tool call was not run: a hook ended the turn.", true))
		default:
			results = append(results, r.runTool(ctx, u, supplied[u.ID]))
		}
	}
	return results
}

// toolEvent is the log record of a tool call: what load replays.
type toolEvent struct {
	ToolCallID string       `json:"toolCallId"`
	Name       string       `json:"name"`
	Title      string       `json:"title"`
	Kind       acp.ToolKind `json:"kind"`
	// Input is the input as the editor was shown it (shownInput: a large
	// one cut); the model's message holds it whole.
	Input     json.RawMessage        `json:"input,omitempty"`
	Locations []acp.ToolCallLocation `json:"locations,omitempty"`
	AgentID   string                 `json:"agentId,omitempty"`
	// Quiet calls had no card (TodoWrite shows its plan instead).
	Quiet bool `json:"quiet,omitempty"`
}

type toolResultEvent struct {
	ToolCallID string                `json:"toolCallId"`
	Status     acp.ToolCallStatus    `json:"status"`
	Output     string                `json:"output"`
	IsError    bool                  `json:"isError,omitempty"`
	Content    []acp.ToolCallContent `json:"content,omitempty"`
	// ResultFrom names the seam whose hook supplied (ProcessToolCalls) or
	// replaced (PostToolUse) the output.
	ResultFrom hooks.Event `json:"resultFrom,omitempty"`
}

// runTool runs one call through PreToolUse, permission, the tool and
// PostToolUse; a result supplied by a ProcessToolCalls hook is shown and
// returned instead.
func (r *runner) runTool(ctx context.Context, use llm.Block, supplied *hooks.ToolResult) llm.Block {
	s := r.s
	tool, ok := tools.ByName(r.tools, use.Name)
	env := s.toolEnv(ctx, r, use.ID)
	ev := toolEvent{ToolCallID: use.ID, Name: use.Name, Title: use.Name, Kind: acp.ToolKindOther, Input: shownInput(use.Input), AgentID: r.agentID}
	var desc tools.Description
	if ok {
		desc = tool.Describe(env, use.Input)
		ev.Kind = acp.ToolKind(tool.Kind())
		desc.Title = markdownTitle(ev.Kind, cmp.Or(desc.Title, use.Name))
		ev.Title = desc.Title
		ev.Locations = convertLocations(desc.Locations)
	}
	if desc.Quiet {
		r.markQuiet(use.ID)
		ev.Quiet = true
	}
	r.record(toolCallEvent{ev})
	r.noteKind(use.ID, ev.Kind)
	r.notifyTool(ctx, use.ID, acp.ToolCall{ToolCallID: use.ID, Title: ev.Title, Kind: ev.Kind, Status: acp.ToolStatusPending, Locations: ev.Locations, RawInput: rawOrEmpty(ev.Input), Content: detailContent(desc)})

	fail := func(msg string) llm.Block {
		r.finishTool(ctx, use.ID, tools.Result{Text: msg, IsError: true}, "")
		return toolResult(use.ID, msg, true)
	}
	if supplied != nil {
		r.finishTool(ctx, use.ID, tools.Result{Text: supplied.Output, IsError: supplied.IsError}, hooks.ProcessToolCalls)
		return toolResult(use.ID, supplied.Output, supplied.IsError)
	}
	if !ok {
		return fail(fmt.Sprintf("Unknown tool %q. Available tools: %s.", use.Name, toolNames(r.tools)))
	}
	if use.Input == nil {
		// The provider could not parse (or repair) the streamed input; the
		// model gets the parse error and its own text back to correct it.
		var probe any
		perr := json.Unmarshal([]byte(use.Text), &probe)
		if perr == nil {
			perr = fmt.Errorf("the input must be a JSON object")
		}
		return fail(fmt.Sprintf("The input for %s was not valid JSON (%v). Input received: %s", use.Name, perr, summarize(use.Text, 2000)))
	}

	input := use.Input
	pre := r.hook(ctx, &hooks.Input{Event: hooks.PreToolUse, ToolName: use.Name, ToolUseID: use.ID, ToolInput: input})
	s.showSystemMessages(ctx, pre)
	if pre.StopTurn {
		return fail("A hook stopped the turn: " + cmp.Or(pre.StopReason, pre.Reason, "no reason given"))
	}
	if pre.UpdatedInput != nil {
		input = pre.UpdatedInput
		// The editor sees, and the user approves, the input that will
		// actually run: a hook that rewrote the command rewrites the title.
		desc = tool.Describe(env, input)
		desc.Title = markdownTitle(ev.Kind, cmp.Or(desc.Title, use.Name))
		r.notifyTool(ctx, use.ID, acp.ToolCallUpdate{ToolCallID: use.ID, Title: desc.Title, RawInput: shownInput(input), Locations: convertLocations(desc.Locations), Content: detailContent(desc)})
	}
	verdict := r.permit(ctx, tool, env, use.ID, shownCall{desc: desc, kind: ev.Kind}, input, pre)
	r.record(permissionEvent{verdict})
	if !verdict.Allowed {
		return fail(verdict.Message)
	}
	if verdict.UpdatedInput != nil {
		input = verdict.UpdatedInput
	}
	if use := verdict.confinement(); use != unconfined {
		env.Sandbox, env.ExtraEnv = s.sandboxFor(use)
	}

	labelTerminals(env, func(id string) {
		// Zed labels a terminal with the terminal/create command (`bash -c
		// …`) until an execute call's title changes while the terminal is
		// in its content (acp_thread ToolCall::update_fields calls
		// update_command_label), so the title is sent once more after the
		// terminal is embedded.
		r.notifyTool(ctx, use.ID, acp.ToolCallUpdate{ToolCallID: use.ID, Title: desc.Title})
	})
	return r.execute(ctx, tool, env, use, input, pre.AdditionalContext)
}

// labelTerminals calls label after env.Progress has embedded a terminal.
func labelTerminals(env *tools.Env, label func(terminalID string)) {
	progress := env.Progress
	if progress == nil {
		return
	}
	env.Progress = func(res tools.Result) {
		progress(res)
		if res.TerminalID != "" {
			label(res.TerminalID)
		}
	}
}

// execute runs an allowed call and the PostToolUse (or
// PostToolUseFailure) seam after it, and returns the result the model
// gets: the tool's output, or a hook's replacement, with the hooks'
// feedback and context (extraContext comes from PreToolUse).
func (r *runner) execute(ctx context.Context, tool tools.Tool, env *tools.Env, use llm.Block, input json.RawMessage, extraContext []string) llm.Block {
	s := r.s
	r.notifyTool(ctx, use.ID, acp.ToolCallUpdate{ToolCallID: use.ID, Status: acp.ToolStatusInProgress})
	started := time.Now()
	res := tool.Run(withToolCall(ctx, use.ID), env, input)
	took := time.Since(started)
	// A cancel that lands as the tool ends does not undo what it did: the
	// result it returned is the truth the log, the editor and the model
	// get. A tool the cancel stopped says so in its own result ("Write was
	// cancelled; … was not changed", "Command was cancelled and killed");
	// one that completed gets a note for the model, which would otherwise
	// not know why nothing followed it.
	completedThenCancelled := ctx.Err() != nil && !res.IsError

	in := &hooks.Input{Event: hooks.PostToolUse, ToolName: use.Name, ToolUseID: use.ID, ToolInput: input, ToolOutput: res.Text, Duration: took}
	if res.IsError {
		in.Event = hooks.PostToolUseFailure
		in.Error = res.Text
	} else {
		in.ToolResponse = toolResponse(res)
	}
	post := r.observe(ctx, in)
	s.showSystemMessages(ctx, post)
	modelText := res.Text
	var from hooks.Event
	if post.ReplaceResult != nil {
		// The editor and the log show what the model sees. The replacement
		// is the whole result: the tool's images go with its text.
		modelText, res.Text, from = *post.ReplaceResult, *post.ReplaceResult, hooks.PostToolUse
		res.Images = nil
	}
	if post.Block {
		modelText += "\n\n" + systemReminder("Hook feedback on this tool call:\n"+cmp.Or(post.Reason, "blocked without a reason"))
	}
	for _, c := range slices.Concat(extraContext, post.AdditionalContext) {
		modelText += "\n\n" + systemReminder(c)
	}
	if completedThenCancelled {
		modelText += "\n\n" + systemReminder(cancelledAfterNote)
	}
	r.finishTool(ctx, use.ID, res, from)
	return toolResult(use.ID, modelText, res.IsError, res.Images...)
}

// cancelledAfterNote follows the result of a call that completed as the
// user cancelled the turn: the result says what the call did, the note
// why nothing came after it.
const cancelledAfterNote = "The user cancelled the turn as this tool call finished: the call completed (its result is above), and nothing after it ran."

// finishTool sends the final tool_call_update and logs the result.
//
// A command that ran in an editor terminal has released it by now, and
// its id is invalid after terminal/release: Zed drops a whole update whose
// content names a terminal it no longer has ("Terminal with id … not
// found"). So the final update leaves content out, and the card keeps the
// embedded terminal, which Zed and the spec keep displaying after release;
// the log keeps the output as text, which is what session/load replays.
func (r *runner) finishTool(ctx context.Context, id string, res tools.Result, from hooks.Event) {
	status := acp.ToolStatusCompleted
	if res.IsError {
		status = acp.ToolStatusFailed
	}
	content := resultContent(res)
	logged := content
	if res.TerminalID != "" {
		content, logged = nil, []acp.ToolCallContent{terminalOutputText(res.Text)}
	}
	r.record(toolResultLogEvent{toolResultEvent{ToolCallID: id, Status: status, Output: res.Text, IsError: res.IsError, Content: loggedContent(res.Text, logged), ResultFrom: from}})
	r.noteLogged(id, res.Text)
	if content != nil && status == acp.ToolStatusCompleted && r.verbatim(id) {
		content = verbatimContent(content) // cardtext.go
	}
	r.notifyTool(ctx, id, acp.ToolCallUpdate{ToolCallID: id, Status: status, Content: content, Locations: convertLocations(res.Locations)})
}

// terminalOutputText is a released terminal's output as card text.
func terminalOutputText(output string) acp.ToolCallContent {
	return acp.ContentText(tools.Fenced(output, ""))
}

// replayContent is what session/load shows of a logged result: a
// terminal (which belonged to the process that logged it) becomes the
// output it showed.
func replayContent(t toolResultEvent) []acp.ToolCallContent {
	if t.Content == nil && t.Output != "" {
		return []acp.ToolCallContent{acp.ContentText(t.Output)} // logged once (logonce.go)
	}
	out := make([]acp.ToolCallContent, 0, len(t.Content))
	for _, c := range t.Content {
		if c.Type == "terminal" {
			c = terminalOutputText(t.Output)
		}
		out = append(out, c)
	}
	return out
}

// markQuiet notes a call whose card is what it publishes (TodoWrite: the
// plan), so no tool_call card is sent for it.
func (r *runner) markQuiet(id string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.quiet == nil {
		r.quiet = map[string]bool{}
	}
	r.quiet[id] = true
}

// noteKind remembers a call's kind for its result card (verbatim).
func (r *runner) noteKind(id string, kind acp.ToolKind) {
	if !verbatimKind(kind) {
		return
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.verbatimCalls == nil {
		r.verbatimCalls = map[string]bool{}
	}
	r.verbatimCalls[id] = true
}

// verbatim reports whether the call's result card shows its text
// verbatim (cardtext.go).
func (r *runner) verbatim(id string) bool {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.verbatimCalls[id]
}

// notifyTool sends one of a tool call's updates: none for a quiet call,
// and in a subagent marked with the Task call it belongs to.
//
// Zed nests a subagent only when the Task call's _meta carries
// subagent_session_info naming a session it can open with session/load
// (acp_thread's SUBAGENT_SESSION_INFO_META_KEY; agent_ui's
// load_subagent_session); it reads no parent id from a call. cordis's
// subagents are not sessions of their own, so each of their calls says
// which Task call it belongs to in _meta.parentToolCallId (claude-agent-acp
// names the same edge parentToolUseId): clients that group by it nest
// them, and Zed shows them in order right after the Task card.
func (r *runner) notifyTool(ctx context.Context, id string, u acp.SessionUpdate) {
	r.s.mu.Lock()
	quiet := r.quiet[id]
	r.s.mu.Unlock()
	if quiet {
		return
	}
	if r.parentCallID != "" {
		meta := acp.Meta{"parentToolCallId": r.parentCallID}
		switch u := u.(type) {
		case acp.ToolCall:
			u.Meta = meta
			r.s.notify(ctx, u)
			return
		case acp.ToolCallUpdate:
			u.Meta = meta
			r.s.notify(ctx, u)
			return
		}
	}
	r.s.notify(ctx, u)
}

// detailContent is a pending call's card content: the tool's Detail (Bash:
// the whole command), or nothing.
func detailContent(desc tools.Description) []acp.ToolCallContent {
	if desc.Detail == "" {
		return nil
	}
	return []acp.ToolCallContent{acp.ContentText(desc.Detail)}
}

func resultContent(res tools.Result) []acp.ToolCallContent {
	var out []acp.ToolCallContent
	for _, d := range res.Diffs {
		out = append(out, acp.DiffContent(d.Path, d.OldText, d.NewText))
	}
	if res.TerminalID != "" {
		out = append(out, acp.TerminalContent(res.TerminalID))
	}
	if len(out) == 0 && cmp.Or(res.Display, res.Text) != "" {
		out = append(out, acp.ContentText(cmp.Or(res.Display, res.Text)))
	}
	if len(out) > 0 && res.IsError && len(res.Diffs) > 0 {
		out = append(out, acp.ContentText(res.Text))
	}
	for _, im := range res.Images {
		out = append(out, acp.ToolCallContent{Type: "content", Content: &acp.ContentBlock{Type: "image", MimeType: im.MediaType, Data: im.Data}})
	}
	return out
}

// convertLocations turns the tools' 1-based lines into what the editor
// follows. Zed reads ToolCallLocation.line as a 0-based row (acp_thread
// ToolCall::resolve_location builds Point::new(line, …), rows counting
// from 0), as claude-agent-acp sends it, so line N goes out as N-1: the
// editor lands on the line the tool touched.
func convertLocations(ls []tools.Location) []acp.ToolCallLocation {
	var out []acp.ToolCallLocation
	for _, l := range ls {
		loc := acp.ToolCallLocation{Path: l.Path}
		if l.Line > 0 {
			line := l.Line - 1
			loc.Line = &line
		}
		out = append(out, loc)
	}
	return out
}

// toolResult is the tool_result block the model receives: the text, then
// the images (each wire encodes them its own way: Anthropic inside the
// tool_result, Chat Completions in a user message after the tool messages).
func toolResult(id, text string, isError bool, images ...tools.Image) llm.Block {
	content := make([]llm.Block, 1, 1+len(images))
	content[0] = llm.Text(text)
	for _, im := range images {
		content = append(content, llm.Block{Type: llm.BlockImage, MediaType: im.MediaType, Data: im.Data})
	}
	return llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: content, IsError: isError}
}

// toolResponse is the dialect-neutral PostToolUse tool_response of a
// successful call: {"output": text}, and when the tool returned images
// also "images": [{"mediaType", "data" (base64), "size" (bytes)}], from
// which a bridge builds its dialect's shape (Claude Code's Read reports
// {"type":"image","file":{"base64","type","originalSize"}}).
func toolResponse(res tools.Result) json.RawMessage {
	if len(res.Images) == 0 {
		return hooks.ToolResponseJSON(res.Text)
	}
	type image struct {
		MediaType string `json:"mediaType"`
		Data      string `json:"data"`
		Size      int    `json:"size"`
	}
	images := make([]image, len(res.Images))
	for i, im := range res.Images {
		images[i] = image{MediaType: im.MediaType, Data: im.Data, Size: tools.DecodedLen(im.Data)}
	}
	b, _ := json.Marshal(struct {
		Output string  `json:"output"`
		Images []image `json:"images"`
	}{res.Text, images})
	return b
}

func rawOrEmpty(in json.RawMessage) json.RawMessage {
	if in == nil {
		return json.RawMessage("{}")
	}
	return in
}

func toolNames(ts []tools.Tool) string {
	out := ""
	for i, t := range ts {
		if i > 0 {
			out += ", "
		}
		out += t.Name()
	}
	return out
}
