package hooks

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/sessionlog"
)

// Pipeline is the Seams the loop calls and the Registrar hooks register
// on: one ordered list of hooks per seam.
//
// Run calls the enabled hooks of in.Event one after another, lower
// Priority first and ties in registration order, and merges their
// decisions in that order (never in completion order):
//
//   - Permission: the most restrictive wins (deny > ask > allow > none);
//     Reason joins the reasons of the hooks that gave the winning verdict.
//   - Block, StopTurn and Compact are sticky: one hook is enough. Reason
//     and StopReason join the reasons of the hooks that set them.
//   - UpdatedInput (modify input) replaces in.ToolInput, so later hooks see
//     the updated input; the last one wins. ReplaceResult (modify result)
//     likewise replaces in.ToolOutput (and ToolResponse or Error); System
//     and Tools replace in.Request's, and the last one wins.
//   - AdditionalContext, SystemMessages, SystemContext, ShellEnv,
//     ToolResults and UpdatedPermissions are concatenated in hook order.
//   - Skip (skip the rest) ends the pipeline after the hook that set it.
//
// A hook that returns an error or panics is recorded as hook/error and
// contributes nothing; the call goes on. Every run of a hook is recorded
// through in.Record as hook/start and then hook/result (with durationMs and
// the hook's own decision) or hook/error.
//
// A Pipeline is shared by all sessions: Run is safe for concurrent use, and
// Register, Unregister, Enable and Disable may be called at any time,
// concurrently with Run. A Run already under way finishes with the hooks
// it started with; an Enable or Disable takes effect at the next hook.
type Pipeline struct {
	log *slog.Logger
	now func() time.Time

	mu    sync.Mutex // serialises writers of table
	seq   uint64
	table atomic.Pointer[table]
}

// table is an immutable snapshot of the registered hooks.
type table struct {
	byEvent map[Event][]*entry
}

type entry struct {
	event    Event
	hook     Hook
	name     string
	priority int
	seq      uint64
	enabled  atomic.Bool
	policy   func(on bool) string
}

// HookInfo describes one registration, for listings (/hooks).
type HookInfo struct {
	Event    Event  `json:"event"`
	Name     string `json:"name"`
	Priority int    `json:"priority"`
	Enabled  bool   `json:"enabled"`
}

// PipelineOption configures NewPipeline.
type PipelineOption func(*Pipeline)

// WithLogger sends hook failures (with a panic's stack) to logger as well
// as to the session log.
func WithLogger(l *slog.Logger) PipelineOption {
	return func(p *Pipeline) {
		if l != nil {
			p.log = l
		}
	}
}

// WithClock replaces time.Now for durationMs (tests).
func WithClock(now func() time.Time) PipelineOption {
	return func(p *Pipeline) {
		if now != nil {
			p.now = now
		}
	}
}

// NewPipeline returns an empty pipeline.
func NewPipeline(opts ...PipelineOption) *Pipeline {
	p := &Pipeline{log: slog.New(slog.DiscardHandler), now: time.Now}
	for _, o := range opts {
		o(p)
	}
	p.table.Store(&table{byEvent: map[Event][]*entry{}})
	return p
}

var (
	_ Seams     = (*Pipeline)(nil)
	_ Registrar = (*Pipeline)(nil)
	_ Registrar = (*Batch)(nil)
)

// Register adds h to the pipeline of event. A hook may be registered on
// several seams, and several hooks may share a name; Unregister, Enable
// and Disable act on every registration with the name.
func (p *Pipeline) Register(event Event, h Hook, opts RegisterOptions) {
	var b Batch
	b.Register(event, h, opts)
	p.Add(&b)
}

// Batch collects registrations for Pipeline.Add. Plugins register on it
// as on a pipeline (it is a Registrar). Not safe for concurrent use.
type Batch struct {
	regs []batched
}

type batched struct {
	event Event
	hook  Hook
	opts  RegisterOptions
}

// Register records one registration; Pipeline.Add makes it.
func (b *Batch) Register(event Event, h Hook, opts RegisterOptions) {
	if h == nil {
		panic("hooks: Register with a nil Hook")
	}
	b.regs = append(b.regs, batched{event, h, opts})
}

// Add makes the batch's registrations, in the order they were recorded,
// as one change: Run sees all of them or none, and the table readers
// share is rebuilt once instead of once per hook (a start-up registers
// some forty).
func (p *Pipeline) Add(b *Batch) {
	if len(b.regs) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.table.Load()
	next := &table{byEvent: make(map[Event][]*entry, len(old.byEvent)+len(b.regs))}
	for ev, list := range old.byEvent {
		next.byEvent[ev] = list
	}
	touched := map[Event]bool{}
	for _, r := range b.regs {
		p.seq++
		e := &entry{event: r.event, hook: r.hook, name: r.hook.Name(), priority: r.opts.Priority, seq: p.seq, policy: r.opts.Policy}
		e.enabled.Store(!r.opts.Disabled)
		list := next.byEvent[r.event]
		if !touched[r.event] {
			list = slices.Clip(list) // the old table's list stays as it is
			touched[r.event] = true
		}
		next.byEvent[r.event] = append(list, e)
	}
	for ev := range touched {
		slices.SortStableFunc(next.byEvent[ev], func(a, b *entry) int {
			return cmp.Or(cmp.Compare(a.priority, b.priority), cmp.Compare(a.seq, b.seq))
		})
	}
	p.table.Store(next)
}

// Unregister removes every registration named name and reports how many
// there were.
func (p *Pipeline) Unregister(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.table.Load()
	next := &table{byEvent: make(map[Event][]*entry, len(old.byEvent))}
	n := 0
	for ev, list := range old.byEvent {
		kept := make([]*entry, 0, len(list))
		for _, e := range list {
			if e.name == name {
				n++
				continue
			}
			kept = append(kept, e)
		}
		if len(kept) > 0 {
			next.byEvent[ev] = kept
		}
	}
	p.table.Store(next)
	return n
}

// Enable switches on every registration named name; it reports whether
// there was one.
func (p *Pipeline) Enable(name string) bool { return p.setEnabled(name, true) }

// Disable switches off every registration named name; it reports whether
// there was one.
func (p *Pipeline) Disable(name string) bool { return p.setEnabled(name, false) }

func (p *Pipeline) setEnabled(name string, on bool) bool {
	found := false
	for _, list := range p.table.Load().byEvent {
		for _, e := range list {
			if e.name == name {
				found = true
				if e.policy != nil && e.policy(on) != "" {
					continue // an administrator's policy keeps it as it is
				}
				e.enabled.Store(on)
			}
		}
	}
	return found
}

// Refusal returns why an administrator's policy keeps the hooks named name
// from being switched on (on true) or off, or "" when nothing does.
func (p *Pipeline) Refusal(name string, on bool) string {
	for _, list := range p.table.Load().byEvent {
		for _, e := range list {
			if e.name == name && e.policy != nil {
				if why := e.policy(on); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// List returns the registrations, by seam name and then in run order.
func (p *Pipeline) List() []HookInfo {
	t := p.table.Load()
	events := make([]Event, 0, len(t.byEvent))
	for ev := range t.byEvent {
		events = append(events, ev)
	}
	slices.Sort(events)
	var out []HookInfo
	for _, ev := range events {
		for _, e := range t.byEvent[ev] {
			out = append(out, HookInfo{Event: ev, Name: e.name, Priority: e.priority, Enabled: e.enabled.Load()})
		}
	}
	return out
}

// Run runs the hooks of in.Event and returns their merged decision. It
// updates in as hooks modify the input or the result, so that later hooks
// (and the caller) see the change.
func (p *Pipeline) Run(ctx context.Context, in *Input) Decision {
	list := p.table.Load().byEvent[in.Event]
	var m merger
	for _, e := range list {
		if !e.enabled.Load() {
			continue
		}
		// A hook with nothing configured for this input (a bridge without
		// a matching command or without a config file) leaves no trace.
		if a, ok := e.hook.(Applicable); ok && !a.Applies(in) {
			continue
		}
		d, ok := p.call(ctx, e, in)
		if !ok {
			continue
		}
		m.add(d, in)
		if d.Skip {
			break
		}
	}
	return m.result()
}

// call runs one hook, isolating its failures, and records the run.
func (p *Pipeline) call(ctx context.Context, e *entry, in *Input) (d Decision, ok bool) {
	if in.Record != nil {
		in.Record(sessionlog.TypeHookStart, hookStartData{Hook: e.name, Event: in.Event, ToolUseID: in.ToolUseID, AgentID: in.AgentID})
	}
	start := p.now()
	var (
		err   error
		stack []byte
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
				stack = debug.Stack()
			}
		}()
		d, err = e.hook.Run(ctx, in)
	}()
	ms := float64(p.now().Sub(start).Microseconds()) / 1000
	if err != nil {
		if in.Record != nil {
			in.Record(sessionlog.TypeHookError, hookErrorData{Hook: e.name, Event: in.Event, DurationMs: ms, Error: err.Error(), Panic: stack != nil})
		}
		args := []any{"hook", e.name, "event", in.Event, "session", in.SessionID, "error", err}
		if stack != nil {
			args = append(args, "stack", string(stack))
		}
		p.log.Warn("hook failed; skipped", args...)
		return Decision{}, false
	}
	if in.Record != nil {
		in.Record(sessionlog.TypeHookResult, hookResultData{Hook: e.name, Event: in.Event, DurationMs: ms, Decision: logDecision(d)})
	}
	return d, true
}

type hookStartData struct {
	Hook      string `json:"hook"`
	Event     Event  `json:"event"`
	ToolUseID string `json:"toolUseId,omitempty"`
	AgentID   string `json:"agentId,omitempty"`
}

type hookResultData struct {
	Hook       string          `json:"hook"`
	Event      Event           `json:"event"`
	DurationMs float64         `json:"durationMs"`
	Decision   decisionLogData `json:"decision"`
}

type hookErrorData struct {
	Hook       string  `json:"hook"`
	Event      Event   `json:"event"`
	DurationMs float64 `json:"durationMs"`
	Error      string  `json:"error"`
	Panic      bool    `json:"panic,omitempty"`
}

// decisionLogData is a Decision as the session log shows it: empty fields
// left out, tool specs by name only.
type decisionLogData struct {
	Permission        Permission         `json:"permission,omitempty"`
	Block             bool               `json:"block,omitempty"`
	ReadOnlyConfined  bool               `json:"readOnlyConfined,omitempty"`
	Reason            string             `json:"reason,omitempty"`
	UpdatedInput      json.RawMessage    `json:"updatedInput,omitempty"`
	UpdatedPerms      []PermissionUpdate `json:"updatedPermissions,omitempty"`
	ReplaceResult     *string            `json:"replaceResult,omitempty"`
	AdditionalContext []string           `json:"additionalContext,omitempty"`
	SystemMessages    []string           `json:"systemMessages,omitempty"`
	StopTurn          bool               `json:"stopTurn,omitempty"`
	StopReason        string             `json:"stopReason,omitempty"`
	Skip              bool               `json:"skip,omitempty"`
	SystemContext     []string           `json:"systemContext,omitempty"`
	System            []string           `json:"system,omitempty"`
	Tools             []string           `json:"tools,omitempty"`
	ToolResults       []ToolResult       `json:"toolResults,omitempty"`
	Compact           bool               `json:"compact,omitempty"`
}

func logDecision(d Decision) decisionLogData {
	out := decisionLogData{
		Permission: d.Permission, Block: d.Block, ReadOnlyConfined: d.ReadOnlyConfined, Reason: d.Reason, UpdatedInput: d.UpdatedInput, UpdatedPerms: d.UpdatedPermissions,
		ReplaceResult: d.ReplaceResult, AdditionalContext: d.AdditionalContext, SystemMessages: d.SystemMessages,
		StopTurn: d.StopTurn, StopReason: d.StopReason, Skip: d.Skip, SystemContext: d.SystemContext,
		System: d.System, ToolResults: d.ToolResults, Compact: d.Compact,
	}
	if d.Tools != nil {
		out.Tools = make([]string, len(d.Tools))
		for i, t := range d.Tools {
			out.Tools[i] = t.Name
		}
	}
	return out
}

// merger folds hook decisions together in pipeline order.
type merger struct {
	d           Decision
	permReason  string
	blockReason string
}

func permissionRank(p Permission) int {
	switch p {
	case Allow:
		return 1
	case Ask:
		return 2
	case Deny:
		return 3
	}
	return 0
}

func join(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "\n" + b
}

func (m *merger) add(d Decision, in *Input) {
	out := &m.d
	if r := permissionRank(d.Permission); r > permissionRank(out.Permission) {
		out.Permission, m.permReason = d.Permission, d.Reason
	} else if r > 0 && d.Permission == out.Permission {
		m.permReason = join(m.permReason, d.Reason)
	}
	if d.Block {
		out.Block = true
		m.blockReason = join(m.blockReason, d.Reason)
	}
	out.ReadOnlyConfined = out.ReadOnlyConfined || d.Permission == Allow && d.ReadOnlyConfined
	if d.StopTurn {
		out.StopTurn = true
		out.StopReason = join(out.StopReason, d.StopReason)
	}
	out.Compact = out.Compact || d.Compact
	if d.UpdatedInput != nil {
		out.UpdatedInput = d.UpdatedInput
		in.ToolInput = d.UpdatedInput
	}
	if d.ReplaceResult != nil {
		out.ReplaceResult = d.ReplaceResult
		in.ToolOutput = *d.ReplaceResult
		if in.Event == PostToolUseFailure {
			in.Error = *d.ReplaceResult
		} else {
			in.ToolResponse = ToolResponseJSON(*d.ReplaceResult)
		}
	}
	if d.System != nil {
		out.System = d.System
		if in.Request != nil {
			in.Request = withSystem(in.Request, d.System)
		}
	}
	if d.Tools != nil {
		out.Tools = d.Tools
		if in.Request != nil {
			in.Request = withTools(in.Request, d.Tools)
		}
	}
	out.AdditionalContext = append(out.AdditionalContext, d.AdditionalContext...)
	out.SystemMessages = append(out.SystemMessages, d.SystemMessages...)
	out.SystemContext = append(out.SystemContext, d.SystemContext...)
	out.ShellEnv = append(out.ShellEnv, d.ShellEnv...)
	out.ToolResults = append(out.ToolResults, d.ToolResults...)
	out.UpdatedPermissions = append(out.UpdatedPermissions, d.UpdatedPermissions...)
}

// withSystem and withTools copy the request header so that the caller's
// request is never changed behind its back.
func withSystem(r *llm.Request, system []string) *llm.Request {
	c := *r
	c.System = system
	return &c
}

func withTools(r *llm.Request, tools []llm.ToolSpec) *llm.Request {
	c := *r
	c.Tools = tools
	return &c
}

func (m *merger) result() Decision {
	d := m.d
	if d.Permission != NoOpinion {
		d.Reason = m.permReason
	}
	if d.Block {
		d.Reason = join(d.Reason, m.blockReason)
	}
	return d
}
