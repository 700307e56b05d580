package loop

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/sessionlog"
)

// roundTrip writes ev as the session log stores it and reads it back with
// the reader restore uses.
func roundTrip[T logEvent](t *testing.T, ev T) {
	t.Helper()
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatalf("%T: %v", ev, err)
	}
	got, ok := decodeEvent[T](sessionlog.Event{Type: ev.logType(), Data: data})
	if !ok {
		t.Fatalf("%T does not decode: %s", ev, data)
	}
	if diff := cmp.Diff(ev, got, cmp.AllowUnexported(toolCallEvent{}, toolResultLogEvent{}, permissionEvent{}, messageEvent{})); diff != "" {
		t.Errorf("%T round trip (-wrote +read):\n%s", ev, diff)
	}
}

// Every kind of event the loop writes reads back as it was written, with
// every field set.
func TestEventsRoundTrip(t *testing.T) {
	usage := llm.Usage{InputTokens: 10, OutputTokens: 5}
	roundTrip(t, sessionStartEvent{SessionID: "s", Cwd: "/w", AdditionalDirectories: []string{"/x"}, Model: "m", Mode: ModeDefault})
	roundTrip(t, sessionLoadEvent{Cwd: "/w", Events: 3, Warnings: []string{"torn"}, Resumed: true})
	roundTrip(t, turnStartEvent{TurnID: "turn-1", Prompt: "hi"})
	roundTrip(t, titleEvent{Title: "Fix the parser"})
	roundTrip(t, userPromptEvent{TurnID: "turn-1", Content: []acp.ContentBlock{acp.TextBlock("hi")}})
	roundTrip(t, turnEndEvent{TurnID: "turn-1", StopReason: acp.StopEndTurn})
	roundTrip(t, turnRejectedEvent{TurnID: "turn-1", Reason: "no"})
	roundTrip(t, messageEvent{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "t1", Content: []llm.Block{llm.Text("more")}}}}, ToolOutputs: []string{"t1"}})
	roundTrip(t, agentTextEvent{Text: "note"})
	roundTrip(t, modelRequestEvent{Model: "m", Messages: 2, Tools: []string{"Read"}})
	roundTrip(t, modelResponseEvent{StopReason: llm.StopEndTurn, Usage: usage, Model: "m", Partial: true})
	roundTrip(t, sideCallRequestEvent{Model: "m", Messages: 4, Purpose: "compaction"})
	roundTrip(t, sideCallResponseEvent{StopReason: llm.StopEndTurn, Usage: usage, Model: "m", Purpose: "compaction"})
	roundTrip(t, modelErrorEvent{Error: "boom", Kind: llm.ErrOverloaded})
	roundTrip(t, toolCallEvent{toolEvent{ToolCallID: "t1", Name: "Bash", Title: "ls", Kind: acp.ToolKindExecute, Input: json.RawMessage(`{"command":"ls"}`), Locations: []acp.ToolCallLocation{{Path: "/w"}}, AgentID: "a"}})
	roundTrip(t, toolResultLogEvent{toolResultEvent{ToolCallID: "t1", Status: acp.ToolStatusCompleted, Output: "x", IsError: true, Content: []acp.ToolCallContent{acp.ContentText("x")}, ResultFrom: "PostToolUse"}})
	roundTrip(t, permissionEvent{verdict{ToolCallID: "t1", Allowed: true, Source: "user", OptionID: "allow_once", Rule: "Bash(ls:*)", Message: "m"}})
	roundTrip(t, planEvent{{Content: "do", Priority: "high", Status: "pending"}})
	roundTrip(t, modeChangeEvent{Mode: ModePlan})
	roundTrip(t, configChangeEvent{ConfigID: configModel, Value: "m2"})
	roundTrip(t, steeringEvent{Event: "Stop", Reason: "go on", Blocks: 1})
	roundTrip(t, steeringCappedEvent{Capped: true, Blocks: 9, Message: "enough"})
	roundTrip(t, subagentStartEvent{AgentID: "a", ToolCallID: "t1", AgentType: "general-purpose", Description: "look"})
	roundTrip(t, subagentEndEvent{AgentID: "a", StopReason: acp.StopEndTurn})
	roundTrip(t, commandEvent{Name: "help", Args: "x", Known: true})
	roundTrip(t, hookToggleEvent{Name: "hooks", Action: "disable", Hook: "audit-log"})
	roundTrip(t, clearEvent{MessagesDropped: 4})
	roundTrip(t, compactionEvent{Summary: "s", MessagesBefore: 8, Trigger: "manual", Instructions: "i"})
	roundTrip(t, truncateEvent{Keep: 2})
	roundTrip(t, turnStoppedNotice{Kind: "turnStopped", Reason: "r"})
	roundTrip(t, compactionRequestedNotice{Kind: "compactionRequested", ContextTokens: 7, ContextWindow: 9})
	roundTrip(t, mcpServersNotice{Kind: "mcpServers", Servers: []serverStatus{{Name: "n", Transport: "stdio", OK: true, Tools: 1, Prompts: 2, Error: "e"}}})
	roundTrip(t, mcpUnavailableNotice{Kind: "mcpUnavailable", Message: "down"})
	roundTrip(t, asyncHookNotice{Kind: "asyncHook", Event: "PostToolUse", Hook: "h", Context: []string{"c"}, Wake: true, Failure: "f"})
}
