package tools

import (
	"context"
	"encoding/json"
	"strings"
)

var taskSpec = specFor[TaskInput]()

type taskTool struct{}

func (taskTool) Name() string { return "Task" }

func (taskTool) Description() string {
	return `Starts a subagent to carry out a task on its own and returns its final report.

- Use it for open-ended searches and multi-step investigations that would otherwise fill this conversation with intermediate results.
- The subagent starts fresh: the prompt must say everything it needs — the goal, what is known, which files matter, and exactly what to report back.
- Say whether the subagent should change code or only research.
- The report is not shown to the user; summarise what matters from it.
- Several Task calls in one response run concurrently.`
}

func (taskTool) Schema() json.RawMessage { return taskSpec.schema() }
func (taskTool) Kind() Kind              { return KindThink }

// ReadOnly is true: starting a subagent changes nothing by itself, and the
// subagent's own tool calls are governed one by one.
func (taskTool) ReadOnly() bool { return true }

func (taskTool) Describe(env *Env, input json.RawMessage) Description {
	var in TaskInput
	describeInput(input, &in)
	if strings.TrimSpace(in.Description) == "" {
		return Description{Title: "Task"}
	}
	return Description{Title: shorten(in.Description, 100)}
}

func (t taskTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in TaskInput
	if err := taskSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if strings.TrimSpace(in.Description) == "" {
		return Errorf("Task: description is required")
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return Errorf("Task: prompt is required")
	}
	if env.RunSubagent == nil {
		return Errorf("subagents are not available here")
	}
	text, err := env.RunSubagent(ctx, in)
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("Task was cancelled.")
		}
		return Errorf("Task: the subagent failed: %v", err)
	}
	if strings.TrimSpace(text) == "" {
		text = "(the subagent finished without a report)"
	}
	return Result{Text: text}
}
