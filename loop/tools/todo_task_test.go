package tools

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTodoWrite(t *testing.T) {
	env := newEnv(t)
	var published [][]TodoItem
	env.Todos = func(_ context.Context, items []TodoItem) error {
		published = append(published, items)
		return nil
	}
	todos := []TodoItem{
		{Content: "Write the parser", Status: "completed", ActiveForm: "Writing the parser"},
		{Content: "Test it", Status: "in_progress", ActiveForm: "Testing it", Priority: "high"},
		{Content: "Document it", Status: "pending"},
	}
	res := run(t, env, "TodoWrite", map[string]any{"todos": todos})
	want := Result{Text: "The todo list was updated: 3 items (1 completed, 1 in progress, 1 pending). Keep using it to track your progress, and carry on with the current task."}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]TodoItem{todos}, published); diff != "" {
		t.Errorf("published (-want +got):\n%s", diff)
	}

	res = run(t, env, "TodoWrite", map[string]any{"todos": []TodoItem{}})
	if res.IsError || res.Text != "The todo list was cleared." || len(published) != 2 || len(published[1]) != 0 {
		t.Errorf("clearing: %+v, published %v", res, published)
	}

	for _, tt := range []struct {
		input any
		want  string
	}{
		{map[string]any{}, "TodoWrite: todos is required (send an empty list to clear it)"},
		{map[string]any{"todos": []TodoItem{{Content: " ", Status: "pending"}}}, "TodoWrite: todos[0].content is empty"},
		{map[string]any{"todos": []TodoItem{{Content: "a", Status: "pending"}, {Content: "b", Status: "done"}}},
			`TodoWrite: todos[1].status is "done"; it must be pending, in_progress or completed`},
		{map[string]any{"todos": []TodoItem{{Content: "a", Status: "pending", Priority: "urgent"}}},
			`TodoWrite: todos[0].priority is "urgent"; it must be high, medium or low`},
	} {
		if res := run(t, env, "TodoWrite", tt.input); !res.IsError || res.Text != tt.want {
			t.Errorf("%v: %+v", tt.input, res)
		}
	}
	if len(published) != 2 {
		t.Errorf("invalid lists were published: %v", published)
	}

	env.Todos = func(context.Context, []TodoItem) error { return errors.New("editor gone") }
	res = run(t, env, "TodoWrite", map[string]any{"todos": todos[:1]})
	if !res.IsError || res.Text != "TodoWrite: the todo list could not be published: editor gone" {
		t.Errorf("%+v", res)
	}
}

func TestAgent(t *testing.T) {
	env := newEnv(t)
	in := TaskInput{Description: "Find the parser", Prompt: "Where is the YAML parser? Report the file.", SubagentType: "general-purpose"}

	res := run(t, env, "Agent", in)
	if !res.IsError || res.Text != "subagents are not available here" {
		t.Errorf("without RunSubagent: %+v", res)
	}

	var got []TaskInput
	env.RunSubagent = func(_ context.Context, in TaskInput) (string, error) {
		got = append(got, in)
		return "It is in config/yaml.go.", nil
	}
	res = run(t, env, "Task", in)
	if diff := cmp.Diff(Result{Text: "It is in config/yaml.go."}, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]TaskInput{in}, got); diff != "" {
		t.Errorf("subagent input (-want +got):\n%s", diff)
	}

	env.RunSubagent = func(context.Context, TaskInput) (string, error) { return "", errors.New("model overloaded") }
	if res := run(t, env, "Task", in); !res.IsError || res.Text != "Agent: the subagent failed: model overloaded" {
		t.Errorf("%+v", res)
	}
	if res := run(t, env, "Task", map[string]any{"description": "x"}); !res.IsError || res.Text != "Agent: prompt is required" {
		t.Errorf("%+v", res)
	}
	tool, _ := ByName(Builtin(), "Task")
	if d := tool.Describe(env, raw(t, in)); d.Title != "Find the parser" {
		t.Errorf("title %q", d.Title)
	}
}

func TestRegistry(t *testing.T) {
	all := Builtin()
	var names []string
	for _, tool := range all {
		names = append(names, tool.Name())
	}
	want := []string{"Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite", "Agent",
		"NotebookEdit", "TaskOutput", "TaskStop", "AskUserQuestion", "WebFetch", "WebSearch", "Skill"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	kinds := map[string]Kind{}
	readOnly := map[string]bool{}
	for _, tool := range all {
		kinds[tool.Name()] = tool.Kind()
		readOnly[tool.Name()] = tool.ReadOnly()
		if tool.Description() == "" {
			t.Errorf("%s has no description", tool.Name())
		}
	}
	wantKinds := map[string]Kind{
		"Read": KindRead, "Write": KindEdit, "Edit": KindEdit, "Bash": KindExecute,
		"Glob": KindSearch, "Grep": KindSearch, "TodoWrite": KindThink, "Agent": KindThink,
		"NotebookEdit": KindEdit, "TaskOutput": KindExecute, "TaskStop": KindExecute,
		"AskUserQuestion": KindOther, "WebFetch": KindFetch, "WebSearch": KindFetch, "Skill": KindThink,
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	wantRO := map[string]bool{
		"Read": true, "Write": false, "Edit": false, "Bash": false,
		"Glob": true, "Grep": true, "TodoWrite": true, "Agent": true, "Skill": true,
		// WebFetch sends data out, so the user is asked per host.
		"NotebookEdit": false, "TaskOutput": true, "TaskStop": true,
		"AskUserQuestion": true, "WebFetch": false, "WebSearch": false,
	}
	if diff := cmp.Diff(wantRO, readOnly); diff != "" {
		t.Errorf("read-only (-want +got):\n%s", diff)
	}
	if tool, ok := ByName(all, "Grep"); !ok || tool.Name() != "Grep" {
		t.Errorf("ByName(Grep) = %v, %v", tool, ok)
	}
	if _, ok := ByName(all, "grep"); ok {
		t.Errorf("ByName is not case-sensitive")
	}
	// Claude Code's older names are served while their replacements are
	// offered, and never offered themselves.
	for old, now := range map[string]string{"BashOutput": "TaskOutput", "KillShell": "TaskStop"} {
		if tool, ok := ByName(all, old); !ok || tool.Name() != old {
			t.Errorf("ByName(%s) = %v, %v", old, tool, ok)
		}
		var without []Tool
		for _, tool := range all {
			if tool.Name() != now {
				without = append(without, tool)
			}
		}
		if _, ok := ByName(without, old); ok {
			t.Errorf("ByName(%s) found it though %s is not offered", old, now)
		}
	}
}

// TestTaskIsServedAsAgent: Claude Code renamed Task to Agent and still
// accepts Task, so a model that calls Task reaches the Agent tool.
func TestTaskIsServedAsAgent(t *testing.T) {
	tool, ok := ByName(Builtin(), "Task")
	if !ok || tool.Name() != "Agent" {
		t.Fatalf("Task resolves to %v, %v; want the Agent tool", tool, ok)
	}
	if _, ok := ByName([]Tool{readTool{}}, "Task"); ok {
		t.Error("Task resolved although Agent is not offered")
	}
}

func TestAgentListsTypes(t *testing.T) {
	desc := NewAgentTool([]AgentType{{Name: "reviewer", Description: "Reviews diffs.", Tools: []string{"Read", "Grep"}}}).Description()
	for _, want := range []string{"- general-purpose: ", "(Tools: *)", "- reviewer: Reviews diffs. (Tools: Read, Grep)"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q:\n%s", want, desc)
		}
	}
}

func TestSkill(t *testing.T) {
	env := newEnv(t)
	if res := run(t, env, "Skill", SkillInput{Skill: "pdf"}); !res.IsError {
		t.Errorf("a Skill tool without skills ran: %+v", res)
	}
	var got SkillInput
	tool := NewSkillTool([]SkillInfo{{Name: "pdf", Description: "Fill PDF forms."}}, func(_ context.Context, in SkillInput) (string, error) {
		got = in
		return "Launching skill: " + in.Skill, nil
	})
	if !strings.Contains(tool.Description(), "\n- pdf: Fill PDF forms.") {
		t.Errorf("description does not list the skill:\n%s", tool.Description())
	}
	res := tool.Run(context.Background(), env, raw(t, map[string]any{"skill": "/pdf", "args": "form.pdf"}))
	if res.IsError || res.Text != "Launching skill: pdf" || got != (SkillInput{Skill: "pdf", Args: "form.pdf"}) {
		t.Errorf("result %+v, loader got %+v", res, got)
	}
}
