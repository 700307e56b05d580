package loop

import (
	"reflect"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/llm"
)

// Each tool output is stored once in the session log (issue 23). The
// tool/result event, written as the call ends, holds it; the
// context/message that carries the results to the model, written once
// every call of the step has ended, names the calls whose output it
// leaves out (messageEvent.ToolOutputs), and its tool_result text keeps
// only what followed the output (hook feedback and context). The
// tool/result leaves out its editor content when that is the output
// as text (the card shows it; load derives it again). Both shapes are
// log version 2 (sessionlog.Versioned): an older cordis refuses such a
// log instead of reading empty results. Logs written before keep
// loading: their messages name no outputs and their results carry
// content.

// noteLogged remembers the output a tool/result event stored, for the
// message that follows it. Called on the turn's goroutine.
func (r *runner) noteLogged(id, output string) {
	if output == "" {
		return
	}
	if r.loggedOutputs == nil {
		r.loggedOutputs = map[string]string{}
	}
	r.loggedOutputs[id] = output
}

// logMessage is m as the log stores it: a tool_result whose text starts
// with the output its tool/result event stored keeps only the rest.
func (r *runner) logMessage(m llm.Message) messageEvent {
	if len(r.loggedOutputs) == 0 {
		return messageEvent{Message: m}
	}
	var outputs []string
	var content []llm.Block
	for i, b := range m.Content {
		out, ok := r.loggedOutputs[b.ToolUseID]
		if b.Type != llm.BlockToolResult || !ok || len(b.Content) == 0 || b.Content[0].Type != llm.BlockText || !strings.HasPrefix(b.Content[0].Text, out) {
			continue
		}
		delete(r.loggedOutputs, b.ToolUseID)
		if content == nil {
			content = append([]llm.Block(nil), m.Content...)
		}
		inner := append([]llm.Block(nil), b.Content...)
		inner[0].Text = inner[0].Text[len(out):]
		content[i].Content = inner
		outputs = append(outputs, b.ToolUseID)
	}
	if outputs == nil {
		return messageEvent{Message: m}
	}
	return messageEvent{Message: llm.Message{Role: m.Role, Content: content}, ToolOutputs: outputs}
}

// loggedContent is the content a tool/result event stores: none when it
// is the output as text, which load derives (replayContent).
func loggedContent(output string, content []acp.ToolCallContent) []acp.ToolCallContent {
	if output != "" && len(content) == 1 && content[0].Type == "content" && content[0].Content != nil &&
		content[0].Content.Type == "text" && content[0].Content.Text == output && isPlainTextContent(content[0]) {
		return nil
	}
	return content
}

// isPlainTextContent reports whether c is exactly acp.ContentText of its
// text, with nothing else set that deriving it again would lose.
func isPlainTextContent(c acp.ToolCallContent) bool {
	want := acp.ContentText(c.Content.Text)
	return c.Path == "" && c.OldText == nil && c.NewText == nil && c.TerminalID == "" &&
		reflect.DeepEqual(*want.Content, *c.Content)
}

// resolveOutputs puts back into a logged message the outputs it left to
// the tool/result events before it (outputs, by call id).
func resolveOutputs(m messageEvent, outputs map[string]string) llm.Message {
	if len(m.ToolOutputs) == 0 {
		return m.Message
	}
	named := make(map[string]bool, len(m.ToolOutputs))
	for _, id := range m.ToolOutputs {
		named[id] = true
	}
	for i, b := range m.Content {
		if b.Type != llm.BlockToolResult || !named[b.ToolUseID] || len(b.Content) == 0 {
			continue
		}
		b.Content[0].Text = outputs[b.ToolUseID] + b.Content[0].Text
		m.Content[i] = b
		delete(outputs, b.ToolUseID)
	}
	return m.Message
}
