package loop

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/sessionlog"
)

// ToolStats are one tool's executions in a session, as its log records
// them (Config.RestoreToolStats): the calls that ran (allowed, not
// answered by a ProcessToolCalls hook), how many failed, and their
// durations, from the permission verdict to the result. Calls of Task
// subagents are in their own logs and not counted.
type ToolStats struct {
	Tool     string
	Calls    int
	Failures int
	Total    time.Duration
	Max      time.Duration
}

// toolTally counts the tool calls of a log as restore reads it.
type toolTally struct {
	names   map[string]string    // call id → tool name
	started map[string]time.Time // allowed calls → when they were allowed
	byTool  map[string]*ToolStats
}

func (t *toolTally) apply(ev sessionlog.Event) {
	if t.names == nil {
		t.names, t.started, t.byTool = map[string]string{}, map[string]time.Time{}, map[string]*ToolStats{}
	}
	switch ev.Type {
	case sessionlog.TypeToolCall:
		if c, ok := decodeEvent[toolCallEvent](ev); ok {
			t.names[c.ToolCallID] = c.Name
		}
	case sessionlog.TypePermission:
		if p, ok := decodeEvent[permissionEvent](ev); ok && p.Allowed {
			t.started[p.ToolCallID] = ev.Time
		}
	case sessionlog.TypeToolResult:
		// Only the fields counted: the output and content, the bulk of a
		// log, are skipped rather than decoded a second time.
		var r struct {
			ToolCallID string      `json:"toolCallId"`
			IsError    bool        `json:"isError"`
			ResultFrom hooks.Event `json:"resultFrom"`
		}
		if json.Unmarshal(ev.Data, &r) != nil {
			return
		}
		start, ran := t.started[r.ToolCallID]
		name := t.names[r.ToolCallID]
		delete(t.started, r.ToolCallID)
		delete(t.names, r.ToolCallID)
		if !ran || name == "" || r.ResultFrom == hooks.ProcessToolCalls {
			return
		}
		st := t.byTool[name]
		if st == nil {
			st = &ToolStats{Tool: name}
			t.byTool[name] = st
		}
		took := max(ev.Time.Sub(start), 0)
		st.Calls++
		if r.IsError {
			st.Failures++
		}
		st.Total += took
		st.Max = max(st.Max, took)
	}
}

// stats returns the counts by tool name.
func (t *toolTally) stats() []ToolStats {
	out := make([]ToolStats, 0, len(t.byTool))
	for _, st := range t.byTool {
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b ToolStats) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}
