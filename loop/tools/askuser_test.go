package tools

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func question(q string, labels ...string) map[string]any {
	opts := make([]map[string]any, len(labels))
	for i, l := range labels {
		opts[i] = map[string]any{"label": l, "description": "means " + l}
	}
	return map[string]any{"question": q, "header": "H", "options": opts, "multiSelect": false}
}

func TestAskUserQuestion(t *testing.T) {
	env := newEnv(t)
	var asked []Question
	env.AskUser = func(ctx context.Context, qs []Question) ([]Answer, error) {
		asked = qs
		return []Answer{
			{Question: qs[0].Question, Choices: []string{"Go"}},
			{Question: qs[1].Question, Choices: []string{"a", "b"}, Other: "and c"},
		}, nil
	}
	q2 := question("Which parts?", "a", "b", "c")
	q2["multiSelect"] = true
	res := run(t, env, "AskUserQuestion", map[string]any{"questions": []any{question("Which language?", "Go", "Rust"), q2}})
	want := `The user answered: "Which language?" = "Go"; "Which parts?" = "a, b, and c". Go on with these answers in mind.`
	if res.IsError || res.Text != want {
		t.Errorf("result = %+v\nwant %q", res, want)
	}
	if len(asked) != 2 || !asked[1].MultiSelect || asked[0].Options[1] != (QuestionOption{"Rust", "means Rust"}) {
		t.Errorf("asked = %+v", asked)
	}
}

func TestAskUserQuestionErrors(t *testing.T) {
	five := []any{question("1?", "a", "b"), question("2?", "a", "b"), question("3?", "a", "b"), question("4?", "a", "b"), question("5?", "a", "b")}
	for _, tt := range []struct {
		questions any
		want      string
	}{
		{[]any{}, "ask between 1 and 4 questions (got 0)"},
		{five, "ask between 1 and 4 questions (got 5)"},
		{[]any{question("Q?", "only")}, "questions[0] needs 2 to 4 options (got 1)"},
		{[]any{question("Q?", "a", "b", "c", "d", "e")}, "needs 2 to 4 options (got 5)"},
		{[]any{question("Q?", "a", "a")}, `has the option "a" twice`},
		{[]any{question("Q?", "a", "")}, "options[1].label is empty"},
		{[]any{question(" ", "a", "b")}, "questions[0].question is empty"},
		{[]any{question("Q?", "a", "b"), question("Q?", "c", "d")}, `repeats the question "Q?"`},
	} {
		env := newEnv(t)
		env.AskUser = func(context.Context, []Question) ([]Answer, error) {
			t.Errorf("asked despite invalid input %v", tt.questions)
			return nil, nil
		}
		res := run(t, env, "AskUserQuestion", map[string]any{"questions": tt.questions})
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%v: %q, want %q", tt.questions, res.Text, tt.want)
		}
	}
}

func TestAskUserQuestionOutcomes(t *testing.T) {
	ok := map[string]any{"questions": []any{question("Q?", "a", "b")}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		ask  func(context.Context, []Question) ([]Answer, error)
		want string
	}{
		{"no one to ask", context.Background(), nil, "the user cannot be asked from here"},
		{"declined", context.Background(), func(context.Context, []Question) ([]Answer, error) { return nil, ErrDeclined }, "The user declined to answer"},
		{"failed", context.Background(), func(context.Context, []Question) ([]Answer, error) { return nil, errors.New("boom") }, "could not be asked: boom"},
		{"cancelled", ctx, func(ctx context.Context, _ []Question) ([]Answer, error) { return nil, ctx.Err() }, "The user cancelled"},
	} {
		env := newEnv(t)
		env.AskUser = tt.ask
		res := runCtx(t, tt.ctx, env, "AskUserQuestion", ok)
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, res.Text, tt.want)
		}
	}
}

func TestAskUserQuestionDescribe(t *testing.T) {
	env := newEnv(t)
	tool, _ := ByName(Builtin(), "AskUserQuestion")
	got := []string{
		tool.Describe(env, raw(t, map[string]any{"questions": []any{question("Which one?", "a", "b")}})).Title,
		tool.Describe(env, raw(t, map[string]any{"questions": []any{question("1?", "a", "b"), question("2?", "a", "b")}})).Title,
		tool.Describe(env, raw(t, `{"questions": 3}`)).Title,
	}
	if diff := cmp.Diff([]string{"Which one?", "Ask the user 2 questions", "Ask the user 0 questions"}, got); diff != "" {
		t.Errorf("titles (-want +got):\n%s", diff)
	}
}
