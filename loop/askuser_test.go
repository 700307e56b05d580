package loop_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/looptest"
)

func askInput() map[string]any {
	return map[string]any{"questions": []any{
		map[string]any{"question": "Which database?", "header": "Database", "multiSelect": false, "options": []any{
			map[string]any{"label": "Postgres", "description": "relational"},
			map[string]any{"label": "SQLite", "description": "a file"},
		}},
		map[string]any{"question": "Which extras?", "header": "Extras", "multiSelect": true, "options": []any{
			map[string]any{"label": "Cache", "description": "faster"},
			map[string]any{"label": "Metrics", "description": "observable"},
		}},
	}}
}

// With elicitation.form, the questions reach the editor as one form: a
// single-select and a multi-select field, each with a free-text field; the
// answers (labels the question did not offer dropped) reach the model.
// No permission is asked: the call is itself a question.
func TestAskUserQuestionByElicitation(t *testing.T) {
	caps := acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.Supported{}}}
	h := looptest.NewHarness(t, looptest.Options{Caps: caps},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_q", "AskUserQuestion", askInput())),
		looptest.ReplyText("ok"))
	var (
		mu  sync.Mutex
		got []acp.CreateElicitationRequest
	)
	h.Editor.OnRequest = func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		var p acp.CreateElicitationRequest
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		return map[string]any{"action": "accept", "content": map[string]any{
			"q1": "SQLite", "q2": []string{"Metrics", "Forged"}, "q2_other": "tracing",
		}}, nil
	}
	sid := h.NewSession()
	if stop := h.Prompt(sid, "set it up"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_q")
	want := `The user answered: "Which database?" = "SQLite"; "Which extras?" = "Metrics, tracing". Go on with these answers in mind.`
	if isErr || text != want {
		t.Errorf("tool result = %q (error %v)\nwant %q", text, isErr, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].ToolCallID != "toolu_q" || got[0].Mode != "form" || !strings.Contains(got[0].Message, "Which database?") {
		t.Fatalf("elicitations = %+v", got)
	}
	var schema struct {
		Properties map[string]struct {
			Type  string `json:"type"`
			OneOf []struct {
				Const string `json:"const"`
			} `json:"oneOf"`
			Items struct {
				AnyOf []struct {
					Const string `json:"const"`
				} `json:"anyOf"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(got[0].RequestedSchema, &schema); err != nil {
		t.Fatal(err)
	}
	p := schema.Properties
	if p["q1"].Type != "string" || len(p["q1"].OneOf) != 2 || p["q2"].Type != "array" || len(p["q2"].Items.AnyOf) != 2 || p["q1_other"].Type != "string" {
		t.Errorf("requestedSchema = %s", got[0].RequestedSchema)
	}
	for _, c := range h.Editor.Calls() {
		if c.Method == acp.MethodSessionRequestPermission {
			t.Errorf("a permission was asked: %s", c.Params)
		}
	}
}

// Without elicitation, each question is a permission request whose
// options are its choices; declining one declines the call.
func TestAskUserQuestionByPermission(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_q", "AskUserQuestion", askInput())),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_q2", "AskUserQuestion", askInput())),
		looptest.ReplyText("ok"))
	var (
		mu      sync.Mutex
		options [][]string
	)
	answers := []string{"choice_2", "choice_1", "decline"}
	h.Editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		var names []string
		for _, o := range p.Options {
			names = append(names, o.OptionID+":"+o.Name)
		}
		options = append(options, names)
		id := answers[len(options)-1]
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: id}}, nil
	}
	sid := h.NewSession()
	if stop := h.Prompt(sid, "set it up"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	text, _ := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_q")
	if want := `"Which database?" = "SQLite"; "Which extras?" = "Cache"`; !strings.Contains(text, want) {
		t.Errorf("first result = %q, want %q", text, want)
	}
	text, isErr := looptest.ToolResult(t, h.Model.Requests()[2], "toolu_q2")
	if !isErr || !strings.Contains(text, "declined to answer") {
		t.Errorf("declined result = %q (error %v)", text, isErr)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "choice_1:Postgres choice_2:SQLite decline:Decline to answer"; strings.Join(options[0], " ") != want {
		t.Errorf("options = %v, want %s", options[0], want)
	}
}

// Cancelling the turn while the question is open ends the wait.
func TestAskUserQuestionCancelled(t *testing.T) {
	caps := acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.Supported{}}}
	h := looptest.NewHarness(t, looptest.Options{Caps: caps},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_q", "AskUserQuestion", askInput())))
	sid := h.NewSession()
	asked := make(chan struct{})
	h.Editor.OnRequest = func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		close(asked)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	go func() {
		<-asked
		_ = h.Editor.Notify(h.Ctx, acp.MethodSessionCancel, map[string]any{"sessionId": sid})
	}()
	if stop := h.Prompt(sid, "ask"); stop != acp.StopCancelled {
		t.Fatalf("stop = %q, want cancelled", stop)
	}
}
