package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// ExitPlanModeInput is ExitPlanMode's input. Claude Code's current tool
// takes none (it reads the plan from the plan file the model wrote);
// cordis has no plan file, so it takes the plan as Claude Code did up to
// 2.0.50, optional: without it the user is shown the text the model wrote
// before the call.
type ExitPlanModeInput struct {
	Plan string `json:"plan,omitempty" jsonschema_description:"The plan you want the user to approve, in Markdown: concise, the steps you will take."`
}

// PlanDecision is the user's answer to ExitPlanMode.
type PlanDecision struct {
	Approved bool
	// Mode is the permission mode the session switched to when approved.
	Mode string
}

var exitPlanSpec = specFor[ExitPlanModeInput]()

type exitPlanModeTool struct{}

// ExitPlanMode is the tool that asks the user to leave plan mode. It is
// not in Builtin: the loop offers it in plan mode only.
func ExitPlanMode() Tool { return exitPlanModeTool{} }

func (exitPlanModeTool) Name() string { return "ExitPlanMode" }

func (exitPlanModeTool) Description() string {
	return `Asks the user to approve your plan and leave plan mode, so that you can start making changes.

Use it in plan mode once you have finished planning a task that needs code changes, with the plan in plan. Do not use it for research or questions, where there is nothing to implement.
- If the user approves, the mode changes and you go on with the work at once, in the same turn.
- If the user does not approve, stay in plan mode: ask what to change, or refine the plan.`
}

func (exitPlanModeTool) Schema() json.RawMessage { return exitPlanSpec.schema() }
func (exitPlanModeTool) Kind() Kind              { return KindSwitchMode }

// ReadOnly: it changes nothing but the mode, and only with the user's
// own answer to its question, so plan mode lets it run.
func (exitPlanModeTool) ReadOnly() bool { return true }

func (exitPlanModeTool) Describe(env *Env, input json.RawMessage) Description {
	return Description{Title: "Ready to code?"}
}

func (t exitPlanModeTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in ExitPlanModeInput
	if err := exitPlanSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if env.ExitPlan == nil {
		return Errorf("ExitPlanMode: no one can be asked here; stay in plan mode")
	}
	d, err := env.ExitPlan(ctx, strings.TrimSpace(in.Plan))
	switch {
	case ctx.Err() != nil:
		return Errorf("The user interrupted ExitPlanMode.")
	case err != nil:
		return Errorf("ExitPlanMode: the user could not be asked: %v", err)
	case !d.Approved:
		return Result{Text: "The user did not approve the plan and stays in plan mode. Ask what to change, or refine the plan; do not make changes yet."}
	}
	return Result{Text: fmt.Sprintf("The user approved the plan. The permission mode is now %s: go on with the work.", d.Mode)}
}
