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

// toolTally counts the tool calls of a log as restore reads it (each
// event decoded once, by restorer.apply).
type toolTally struct {
	names   map[string]string    // call id → tool name
	started map[string]time.Time // allowed calls → when they were allowed
	byTool  map[string]*ToolStats
}

func (t *toolTally) init() {
	if t.names == nil {
		t.names, t.started, t.byTool = map[string]string{}, map[string]time.Time{}, map[string]*ToolStats{}
	}
}

// call notes a tool/call event.
func (t *toolTally) call(id, name string) {
	t.init()
	t.names[id] = name
}

// permission notes a permission event.
func (t *toolTally) permission(ev sessionlog.Event) {
	t.init()
	if p, ok := decodeEvent[permissionEvent](ev); ok && p.Allowed {
		t.started[p.ToolCallID] = ev.Time
	}
}

// result counts a tool/result event: r as restore decoded it, or, when
// that failed (decoded false), the fields counted read from ev alone.
func (t *toolTally) result(ev sessionlog.Event, r toolResultEvent, decoded bool) {
	t.init()
	if !decoded {
		var counted struct {
			ToolCallID string      `json:"toolCallId"`
			IsError    bool        `json:"isError"`
			ResultFrom hooks.Event `json:"resultFrom"`
		}
		if json.Unmarshal(ev.Data, &counted) != nil {
			return
		}
		r = toolResultEvent{ToolCallID: counted.ToolCallID, IsError: counted.IsError, ResultFrom: counted.ResultFrom}
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

// stats returns the counts by tool name.
func (t *toolTally) stats() []ToolStats {
	out := make([]ToolStats, 0, len(t.byTool))
	for _, st := range t.byTool {
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b ToolStats) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}
