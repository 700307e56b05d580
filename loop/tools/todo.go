package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// TodoWriteInput is the TodoWrite tool's input (Claude Code's shape).
type TodoWriteInput struct {
	Todos []TodoItem `json:"todos" jsonschema_description:"The complete, updated todo list (it replaces the previous one)."`
}

var todoSpec = specFor[TodoWriteInput]()

type todoWriteTool struct{}

func (todoWriteTool) Name() string { return "TodoWrite" }

func (todoWriteTool) Description() string {
	return `Creates and updates a structured task list for the current session, which the user sees as the plan.

Use it for work with three or more distinct steps, when the user gives several tasks, or when asked to; skip it for a single trivial step.
- Send the whole list every time; it replaces the previous one.
- Each item has content (what to do, imperative: "Run the tests"), activeForm (the same in the present continuous: "Running the tests") and a status: pending, in_progress or completed.
- Keep exactly one item in_progress while you work, mark it completed as soon as it is done (not in batches), then start the next.
- Only mark an item completed when it is fully done; if you hit an error or a blocker, keep it in_progress and add an item for what must be resolved.`
}

func (todoWriteTool) Schema() json.RawMessage { return todoSpec.schema() }
func (todoWriteTool) Kind() Kind              { return KindThink }
func (todoWriteTool) ReadOnly() bool          { return true }

func (todoWriteTool) Describe(env *Env, input json.RawMessage) Description {
	var in TodoWriteInput
	describeInput(input, &in)
	// Quiet: the editor shows the plan, not a card with the model's
	// acknowledgement ("Keep using it…").
	return Description{Title: fmt.Sprintf("Update the todo list (%s)", plural(len(in.Todos), "item", "items")), Quiet: true}
}

func (t todoWriteTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in TodoWriteInput
	if err := todoSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if in.Todos == nil {
		return Errorf("TodoWrite: todos is required (send an empty list to clear it)")
	}
	counts := map[string]int{}
	for i, item := range in.Todos {
		if strings.TrimSpace(item.Content) == "" {
			return Errorf("TodoWrite: todos[%d].content is empty", i)
		}
		switch item.Status {
		case "pending", "in_progress", "completed":
		default:
			return Errorf("TodoWrite: todos[%d].status is %q; it must be pending, in_progress or completed", i, item.Status)
		}
		switch item.Priority {
		case "", "high", "medium", "low":
		default:
			return Errorf("TodoWrite: todos[%d].priority is %q; it must be high, medium or low", i, item.Priority)
		}
		counts[item.Status]++
	}
	if env.Todos != nil {
		if err := env.Todos(ctx, in.Todos); err != nil {
			return Errorf("TodoWrite: the todo list could not be published: %v", err)
		}
	}
	if len(in.Todos) == 0 {
		return Result{Text: "The todo list was cleared."}
	}
	return Result{Text: fmt.Sprintf("The todo list was updated: %s (%d completed, %d in progress, %d pending). Keep using it to track your progress, and carry on with the current task.",
		plural(len(in.Todos), "item", "items"), counts["completed"], counts["in_progress"], counts["pending"])}
}
