package hooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/google/go-cmp/cmp"
)

// recorder collects what the pipeline records through Input.Record.
type recorder struct {
	mu     sync.Mutex
	events []recorded
}

type recorded struct {
	Type string
	Data map[string]any
}

func (r *recorder) record(typ string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	r.mu.Lock()
	r.events = append(r.events, recorded{typ, m})
	r.mu.Unlock()
}

func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Type+" "+e.Data["hook"].(string))
	}
	return out
}

// fixed returns a hook that appends its name to *trace and returns d.
func fixed(name string, trace *[]string, d hooks.Decision) hooks.Hook {
	return hooks.Func(name, func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		*trace = append(*trace, name)
		return d, nil
	})
}

func TestOrderIsPriorityThenRegistration(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	p.Register(hooks.PreToolUse, fixed("b5", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 5})
	p.Register(hooks.PreToolUse, fixed("a1", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.PreToolUse, fixed("c5", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 5})
	p.Register(hooks.PreToolUse, fixed("z0", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 0})
	p.Register(hooks.PostToolUse, fixed("other-seam", &trace, hooks.Decision{}), hooks.RegisterOptions{})
	p.Register(hooks.PreToolUse, fixed("d5", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 5})
	p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse})
	if diff := cmp.Diff([]string{"z0", "a1", "b5", "c5", "d5"}, trace); diff != "" {
		t.Fatalf("run order (-want +got):\n%s", diff)
	}
}

// TestBatchRegistersAsOneChange: a batch's hooks join the pipeline in
// the order recorded, after those registered before it, as if each had
// been registered on its own, and nothing joins before Add.
func TestBatchRegistersAsOneChange(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	p.Register(hooks.PreToolUse, fixed("before5", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 5})
	p.Register(hooks.Stop, fixed("stop", &trace, hooks.Decision{}), hooks.RegisterOptions{})
	before := p.List()

	b := &hooks.Batch{}
	b.Register(hooks.PreToolUse, fixed("b5", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 5})
	b.Register(hooks.PreToolUse, fixed("a1", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 1})
	b.Register(hooks.PostToolUse, fixed("post", &trace, hooks.Decision{}), hooks.RegisterOptions{Disabled: true})
	b.Register(hooks.PreToolUse, fixed("c5", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 5})
	if got := p.List(); len(got) != len(before) {
		t.Fatalf("a batch changed the pipeline before Add: %v", got)
	}
	p.Add(b)
	p.Register(hooks.PreToolUse, fixed("after5", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 5})

	p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse})
	if diff := cmp.Diff([]string{"a1", "before5", "b5", "c5", "after5"}, trace); diff != "" {
		t.Fatalf("run order (-want +got):\n%s", diff)
	}
	var post *hooks.HookInfo
	for _, h := range p.List() {
		if h.Name == "post" {
			post = &h
		}
	}
	if post == nil || post.Enabled {
		t.Fatalf("post registered disabled: %+v", post)
	}
}

func TestModifyInputIsSeenByLaterHooks(t *testing.T) {
	p := hooks.NewPipeline()
	var seen []string
	p.Register(hooks.PreToolUse, hooks.Func("first", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		seen = append(seen, string(in.ToolInput))
		return hooks.Decision{UpdatedInput: json.RawMessage(`{"command":"echo safe"}`)}, nil
	}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.PreToolUse, hooks.Func("second", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		seen = append(seen, string(in.ToolInput))
		return hooks.Decision{}, nil
	}), hooks.RegisterOptions{Priority: 2})
	in := &hooks.Input{Event: hooks.PreToolUse, ToolInput: json.RawMessage(`{"command":"echo secret"}`)}
	d := p.Run(context.Background(), in)
	if diff := cmp.Diff([]string{`{"command":"echo secret"}`, `{"command":"echo safe"}`}, seen); diff != "" {
		t.Fatalf("inputs seen (-want +got):\n%s", diff)
	}
	if string(d.UpdatedInput) != `{"command":"echo safe"}` {
		t.Fatalf("merged UpdatedInput = %s", d.UpdatedInput)
	}
}

func TestModifyResultIsSeenByLaterHooks(t *testing.T) {
	for _, ev := range []hooks.Event{hooks.PostToolUse, hooks.PostToolUseFailure} {
		t.Run(string(ev), func(t *testing.T) {
			p := hooks.NewPipeline()
			short := "short"
			p.Register(ev, hooks.Func("cut", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
				return hooks.Decision{ReplaceResult: &short}, nil
			}), hooks.RegisterOptions{})
			var got *hooks.Input
			p.Register(ev, hooks.Func("look", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
				c := *in
				got = &c
				return hooks.Decision{}, nil
			}), hooks.RegisterOptions{})
			in := &hooks.Input{Event: ev, ToolOutput: "a very long output"}
			if ev == hooks.PostToolUse {
				in.ToolResponse = hooks.ToolResponseJSON(in.ToolOutput)
			} else {
				in.Error = in.ToolOutput
			}
			d := p.Run(context.Background(), in)
			if d.ReplaceResult == nil || *d.ReplaceResult != "short" {
				t.Fatalf("ReplaceResult = %v", d.ReplaceResult)
			}
			if got.ToolOutput != "short" {
				t.Errorf("later hook saw ToolOutput %q", got.ToolOutput)
			}
			if ev == hooks.PostToolUse && string(got.ToolResponse) != `{"output":"short"}` {
				t.Errorf("later hook saw ToolResponse %s", got.ToolResponse)
			}
			if ev == hooks.PostToolUseFailure && got.Error != "short" {
				t.Errorf("later hook saw Error %q", got.Error)
			}
		})
	}
}

func TestBlockIsStickyAndReasonsJoinInOrder(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	p.Register(hooks.Stop, fixed("one", &trace, hooks.Decision{Block: true, Reason: "run the tests"}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.Stop, fixed("two", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 2})
	p.Register(hooks.Stop, fixed("three", &trace, hooks.Decision{Block: true, Reason: "update the docs"}), hooks.RegisterOptions{Priority: 3})
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.Stop})
	if !d.Block || d.Reason != "run the tests\nupdate the docs" {
		t.Fatalf("decision = %+v", d)
	}
	if len(trace) != 3 {
		t.Fatalf("a block ended the pipeline early: %v", trace)
	}
}

func TestSkipEndsThePipeline(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	p.Register(hooks.PostToolUse, fixed("first", &trace, hooks.Decision{AdditionalContext: []string{"a"}}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.PostToolUse, fixed("skipper", &trace, hooks.Decision{Skip: true, AdditionalContext: []string{"b"}}), hooks.RegisterOptions{Priority: 2})
	p.Register(hooks.PostToolUse, fixed("never", &trace, hooks.Decision{AdditionalContext: []string{"c"}}), hooks.RegisterOptions{Priority: 3})
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PostToolUse})
	if diff := cmp.Diff([]string{"first", "skipper"}, trace); diff != "" {
		t.Fatalf("hooks run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b"}, d.AdditionalContext); diff != "" {
		t.Fatalf("context (-want +got):\n%s", diff)
	}
	if d.Skip {
		t.Error("the merged decision carries Skip")
	}
}

func TestContinueIsTheZeroDecision(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	p.Register(hooks.PreToolUse, fixed("a", &trace, hooks.Decision{}), hooks.RegisterOptions{})
	p.Register(hooks.PreToolUse, fixed("b", &trace, hooks.Decision{}), hooks.RegisterOptions{})
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse})
	if diff := cmp.Diff(hooks.Decision{}, d); diff != "" {
		t.Fatalf("decision (-want +got):\n%s", diff)
	}
	if len(trace) != 2 {
		t.Fatalf("trace = %v", trace)
	}
}

func TestMostRestrictivePermissionWins(t *testing.T) {
	tests := []struct {
		perms      []hooks.Permission
		want       hooks.Permission
		wantReason string
	}{
		{[]hooks.Permission{hooks.Allow, hooks.Deny, hooks.Ask}, hooks.Deny, "deny#1"},
		{[]hooks.Permission{hooks.Deny, hooks.Allow}, hooks.Deny, "deny#0"},
		{[]hooks.Permission{hooks.Allow, hooks.Ask, hooks.NoOpinion}, hooks.Ask, "ask#1"},
		{[]hooks.Permission{hooks.Allow, hooks.NoOpinion, hooks.Allow}, hooks.Allow, "allow#0\nallow#2"},
		{[]hooks.Permission{hooks.NoOpinion}, hooks.NoOpinion, ""},
		{[]hooks.Permission{hooks.Deny, hooks.Deny}, hooks.Deny, "deny#0\ndeny#1"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.perms), func(t *testing.T) {
			p := hooks.NewPipeline()
			var trace []string
			for i, perm := range tt.perms {
				reason := ""
				if perm != hooks.NoOpinion {
					reason = fmt.Sprintf("%s#%d", perm, i)
				}
				p.Register(hooks.PreToolUse, fixed(fmt.Sprint(i), &trace, hooks.Decision{Permission: perm, Reason: reason}), hooks.RegisterOptions{})
			}
			d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse})
			if d.Permission != tt.want || d.Reason != tt.wantReason {
				t.Fatalf("got %q (%q), want %q (%q)", d.Permission, d.Reason, tt.want, tt.wantReason)
			}
		})
	}
}

func TestMergingIsInPipelineOrder(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	// Registered out of priority order: the merge follows priority.
	p.Register(hooks.UserPromptSubmit, fixed("late", &trace, hooks.Decision{AdditionalContext: []string{"ctx-late"}, SystemMessages: []string{"msg-late"}, StopTurn: true, StopReason: "late"}), hooks.RegisterOptions{Priority: 9})
	p.Register(hooks.UserPromptSubmit, fixed("early", &trace, hooks.Decision{AdditionalContext: []string{"ctx-early"}, SystemMessages: []string{"msg-early"}, StopReason: "ignored without StopTurn"}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.UserPromptSubmit, fixed("middle", &trace, hooks.Decision{SystemContext: []string{"sys"}, Compact: true}), hooks.RegisterOptions{Priority: 5})
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.UserPromptSubmit})
	want := hooks.Decision{
		AdditionalContext: []string{"ctx-early", "ctx-late"},
		SystemMessages:    []string{"msg-early", "msg-late"},
		SystemContext:     []string{"sys"},
		StopTurn:          true,
		StopReason:        "late",
		Compact:           true,
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Fatalf("merged (-want +got):\n%s", diff)
	}
}

func TestPrepareRequestReplacesSystemAndToolsWithoutTouchingTheCallersRequest(t *testing.T) {
	p := hooks.NewPipeline()
	p.Register(hooks.PrepareRequest, hooks.Func("sys", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		return hooks.Decision{System: append(append([]string(nil), in.Request.System...), "be brief")}, nil
	}), hooks.RegisterOptions{Priority: 1})
	var sawSystem []string
	p.Register(hooks.PrepareRequest, hooks.Func("tools", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		sawSystem = in.Request.System
		return hooks.Decision{Tools: []llm.ToolSpec{in.Request.Tools[1]}}, nil
	}), hooks.RegisterOptions{Priority: 2})
	req := &llm.Request{System: []string{"base"}, Tools: []llm.ToolSpec{{Name: "Bash"}, {Name: "Read"}}}
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PrepareRequest, Request: req})
	if diff := cmp.Diff([]string{"base", "be brief"}, sawSystem); diff != "" {
		t.Errorf("the later hook saw system (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"base", "be brief"}, d.System); diff != "" {
		t.Errorf("System (-want +got):\n%s", diff)
	}
	if len(d.Tools) != 1 || d.Tools[0].Name != "Read" {
		t.Errorf("Tools = %+v", d.Tools)
	}
	if len(req.System) != 1 || len(req.Tools) != 2 {
		t.Errorf("the caller's request was changed: %+v", req)
	}
}

func TestErrorsAndPanicsAreIsolated(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	p.Register(hooks.PreToolUse, hooks.Func("fails", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		return hooks.Decision{Permission: hooks.Deny}, errors.New("config file missing")
	}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.PreToolUse, hooks.Func("panics", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		var m map[string]int
		m["boom"]++ // nil map write
		return hooks.Decision{}, nil
	}), hooks.RegisterOptions{Priority: 2})
	p.Register(hooks.PreToolUse, fixed("works", &trace, hooks.Decision{Permission: hooks.Allow, Reason: "fine"}), hooks.RegisterOptions{Priority: 3})
	rec := &recorder{}
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, Record: rec.record})
	if d.Permission != hooks.Allow || d.Reason != "fine" {
		t.Fatalf("decision = %+v; the failing hooks must contribute nothing", d)
	}
	want := []string{
		"hook/start fails", "hook/error fails",
		"hook/start panics", "hook/error panics",
		"hook/start works", "hook/result works",
	}
	if diff := cmp.Diff(want, rec.types()); diff != "" {
		t.Fatalf("recorded (-want +got):\n%s", diff)
	}
	if e := rec.events[1].Data; e["error"] != "config file missing" || e["panic"] != nil {
		t.Errorf("error event = %v", e)
	}
	if e := rec.events[3].Data; !strings.Contains(e["error"].(string), "panic") || e["panic"] != true {
		t.Errorf("panic event = %v", e)
	}
}

func TestEveryRunIsRecordedWithDurationAndDecision(t *testing.T) {
	now := time.Unix(0, 0)
	clock := func() time.Time { now = now.Add(1500 * time.Microsecond); return now }
	p := hooks.NewPipeline(hooks.WithClock(clock))
	p.Register(hooks.PreToolUse, hooks.Func("deny-rm", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		return hooks.Decision{Permission: hooks.Deny, Reason: "no rm"}, nil
	}), hooks.RegisterOptions{})
	rec := &recorder{}
	p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, ToolUseID: "toolu_1", AgentID: "agent-x", Record: rec.record})
	want := []recorded{
		{"hook/start", map[string]any{"hook": "deny-rm", "event": "PreToolUse", "toolUseId": "toolu_1", "agentId": "agent-x"}},
		{"hook/result", map[string]any{"hook": "deny-rm", "event": "PreToolUse", "durationMs": 1.5, "decision": map[string]any{"permission": "deny", "reason": "no rm"}}},
	}
	if diff := cmp.Diff(want, rec.events); diff != "" {
		t.Fatalf("recorded (-want +got):\n%s", diff)
	}
}

func TestEnableDisableUnregisterAtRunTime(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	p.Register(hooks.PreToolUse, fixed("a", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.PostToolUse, fixed("a", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.PreToolUse, fixed("b", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 2, Disabled: true})
	run := func() []string {
		trace = nil
		p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse})
		p.Run(context.Background(), &hooks.Input{Event: hooks.PostToolUse})
		return trace
	}
	if got := run(); fmt.Sprint(got) != "[a a]" {
		t.Fatalf("b registered disabled, yet: %v", got)
	}
	if !p.Enable("b") || fmt.Sprint(run()) != "[a b a]" {
		t.Fatalf("after Enable(b): %v", trace)
	}
	if !p.Disable("a") || fmt.Sprint(run()) != "[b]" {
		t.Fatalf("after Disable(a) (both seams): %v", trace)
	}
	if p.Disable("nope") || p.Enable("nope") {
		t.Error("Enable/Disable of an unknown name reported success")
	}
	if n := p.Unregister("b"); n != 1 || fmt.Sprint(run()) != "[]" {
		t.Fatalf("after Unregister(b) = %d: %v", n, trace)
	}
	want := []hooks.HookInfo{
		{Event: hooks.PostToolUse, Name: "a", Priority: 1, Enabled: false},
		{Event: hooks.PreToolUse, Name: "a", Priority: 1, Enabled: false},
	}
	if diff := cmp.Diff(want, p.List()); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}
}

func TestDisableDuringARunTakesEffectAtTheNextHook(t *testing.T) {
	p := hooks.NewPipeline()
	var trace []string
	p.Register(hooks.PreToolUse, hooks.Func("switch", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		trace = append(trace, "switch")
		p.Disable("later")
		return hooks.Decision{}, nil
	}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.PreToolUse, fixed("later", &trace, hooks.Decision{}), hooks.RegisterOptions{Priority: 2})
	p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse})
	if fmt.Sprint(trace) != "[switch]" {
		t.Fatalf("trace = %v", trace)
	}
}

func TestMetadataIsSharedWithinOneRunOnly(t *testing.T) {
	p := hooks.NewPipeline()
	var got []any
	p.Register(hooks.PreToolUse, hooks.Func("writer", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		if _, ok := in.Meta.Get("decidedBy"); ok {
			got = append(got, "stale value from an earlier run")
		}
		in.Meta.Set("decidedBy", "rules#"+in.ToolUseID)
		return hooks.Decision{}, nil
	}), hooks.RegisterOptions{Priority: 1})
	p.Register(hooks.PreToolUse, hooks.Func("reader", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		v, _ := in.Meta.Get("decidedBy")
		got = append(got, v)
		return hooks.Decision{}, nil
	}), hooks.RegisterOptions{Priority: 2})
	p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, ToolUseID: "1"})
	p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, ToolUseID: "2"})
	if diff := cmp.Diff([]any{"rules#1", "rules#2"}, got); diff != "" {
		t.Fatalf("metadata (-want +got):\n%s", diff)
	}
}

// TestConcurrentRunAndRegistration is for the race detector: Run from
// many goroutines while hooks are registered, toggled and removed.
func TestConcurrentRunAndRegistration(t *testing.T) {
	p := hooks.NewPipeline()
	p.Register(hooks.PreToolUse, hooks.Func("base", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		in.Meta.Set("k", 1)
		return hooks.Decision{AdditionalContext: []string{"base"}}, nil
	}), hooks.RegisterOptions{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, ToolUseID: fmt.Sprint(g, i)})
				if len(d.AdditionalContext) == 0 || d.AdditionalContext[0] != "base" {
					t.Errorf("run %d/%d lost the base hook: %v", g, i, d.AdditionalContext)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			name := fmt.Sprint("h", i%5)
			p.Register(hooks.PreToolUse, hooks.Func(name, func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
				return hooks.Decision{}, nil
			}), hooks.RegisterOptions{Priority: i % 3})
			p.Disable(name)
			p.Enable(name)
			if i%7 == 0 {
				p.Unregister(name)
			}
			p.List()
		}
	}()
	wg.Wait()
}

func TestInProcessOnly(t *testing.T) {
	for _, e := range []hooks.Event{hooks.LoopStart, hooks.PrepareRequest, hooks.LLMRequest, hooks.LLMResponse, hooks.ProcessToolCalls, hooks.LoopEnd} {
		if !hooks.InProcessOnly(e) {
			t.Errorf("%s should be in-process only", e)
		}
	}
	for _, e := range []hooks.Event{hooks.PreToolUse, hooks.Stop, hooks.SessionStart} {
		if hooks.InProcessOnly(e) {
			t.Errorf("%s is not in-process only", e)
		}
	}
}

type notApplicable struct{ runs int }

func (h *notApplicable) Name() string              { return "never" }
func (h *notApplicable) Applies(*hooks.Input) bool { return false }
func (h *notApplicable) Run(context.Context, *hooks.Input) (hooks.Decision, error) {
	h.runs++
	return hooks.Decision{Block: true}, nil
}

func TestHookThatDoesNotApplyLeavesNoTrace(t *testing.T) {
	p := hooks.NewPipeline()
	h := &notApplicable{}
	p.Register(hooks.PreToolUse, h, hooks.RegisterOptions{})
	var recorded []string
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, Record: func(typ string, _ any) { recorded = append(recorded, typ) }})
	if h.runs != 0 || d.Block || len(recorded) != 0 {
		t.Fatalf("runs=%d decision=%+v recorded=%v; a hook that does not apply must not run or be logged", h.runs, d, recorded)
	}
}
