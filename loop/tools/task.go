package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

var taskSpec = specFor[TaskInput]()

// AgentType is a kind of subagent the Agent tool can start: the built-in
// general-purpose one or a custom subagent (a file of an agent folder).
type AgentType struct {
	Name, Description string
	// Tools are the tools it gets; nil means all.
	Tools []string
}

// GeneralPurpose is the built-in subagent type.
var GeneralPurpose = AgentType{
	Name:        "general-purpose",
	Description: "A general agent for researching open questions, searching code and carrying out multi-step tasks.",
}

// agentTool starts subagents. Claude Code named it Task until 2.1.63, then
// Agent; it is offered as Agent and a call to Task is served too (see
// legacyNames).
type agentTool struct {
	types []AgentType // general-purpose first; nil lists it alone
}

// NewAgentTool returns the Agent tool with the subagent types its
// description lists (GeneralPurpose is always first).
func NewAgentTool(custom []AgentType) Tool {
	return agentTool{types: append([]AgentType{GeneralPurpose}, custom...)}
}

func (agentTool) Name() string { return "Agent" }

func (t agentTool) Description() string {
	types := t.types
	if types == nil {
		types = []AgentType{GeneralPurpose}
	}
	var list strings.Builder
	for _, at := range types {
		tools := "*"
		if at.Tools != nil {
			tools = strings.Join(at.Tools, ", ")
		}
		fmt.Fprintf(&list, "\n- %s: %s (Tools: %s)", at.Name, at.Description, tools)
	}
	return `Starts a subagent to carry out a task on its own and returns its final report.

Available agent types (subagent_type) and the tools each has:` + list.String() + `

- Use it for open-ended searches and multi-step investigations that would otherwise fill this conversation with intermediate results.
- Pick the subagent_type whose description fits the task; general-purpose when none does.
- The subagent starts fresh: the prompt must say everything it needs — the goal, what is known, which files matter, and exactly what to report back.
- Say whether the subagent should change code or only research.
- The report is not shown to the user; summarise what matters from it.
- Several Agent calls in one response run concurrently.`
}

func (agentTool) Schema() json.RawMessage { return taskSpec.schema() }
func (agentTool) Kind() Kind              { return KindThink }

// ReadOnly is true: starting a subagent changes nothing by itself, and the
// subagent's own tool calls are governed one by one.
func (agentTool) ReadOnly() bool { return true }

func (agentTool) Describe(env *Env, input json.RawMessage) Description {
	var in TaskInput
	describeInput(input, &in)
	if strings.TrimSpace(in.Description) == "" {
		return Description{Title: "Agent"}
	}
	return Description{Title: shorten(in.Description, 100)}
}

func (t agentTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in TaskInput
	if err := taskSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if strings.TrimSpace(in.Description) == "" {
		return Errorf("Agent: description is required")
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return Errorf("Agent: prompt is required")
	}
	if env.RunSubagent == nil {
		return Errorf("subagents are not available here")
	}
	text, err := env.RunSubagent(ctx, in)
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("Agent was cancelled.")
		}
		return Errorf("Agent: the subagent failed: %v", err)
	}
	if strings.TrimSpace(text) == "" {
		text = "(the subagent finished without a report)"
	}
	return Result{Text: text}
}
