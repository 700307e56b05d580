package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// SkillInput is the Skill tool's input (Claude Code's shape).
type SkillInput struct {
	Skill string `json:"skill" jsonschema:"description=The skill name. E.g. \"pdf\" or \"my-plugin:my-skill\""`
	Args  string `json:"args,omitempty" jsonschema:"description=Optional arguments for the skill"`
}

var skillSpec = specFor[SkillInput]()

// SkillInfo is a skill as the model's listing shows it.
type SkillInfo struct{ Name, Description string }

// SkillLoader renders the invoked skill (its base directory and body) as
// the tool's result; it fails for a name that is not a skill.
type SkillLoader func(ctx context.Context, in SkillInput) (string, error)

// skillTool loads a skill's instructions into the conversation when the
// model invokes it (progressive disclosure: only names and descriptions
// are in context until then).
type skillTool struct {
	skills []SkillInfo
	load   SkillLoader
}

// NewSkillTool returns the Skill tool listing skills, which load renders.
func NewSkillTool(skills []SkillInfo, load SkillLoader) Tool {
	return skillTool{skills: skills, load: load}
}

func (skillTool) Name() string { return "Skill" }

func (t skillTool) Description() string {
	var list strings.Builder
	for _, sk := range t.skills {
		fmt.Fprintf(&list, "\n- %s: %s", sk.Name, sk.Description)
	}
	if list.Len() == 0 {
		list.WriteString("\n(none)")
	}
	return `Runs a skill: a folder of instructions, scripts and references for a kind of task, which this tool loads into the conversation.

- When a task matches a skill's description below, invoke the skill before working on the task, and then follow its instructions.
- When the user asks for "/<name>" and <name> is a skill, invoke it with args set to the rest of the request.
- Give the skill's name exactly as listed; args are optional.
- Do not invoke a skill that is already loaded in this conversation.
- Files the instructions mention are relative to the skill's base directory, which the result names.

Available skills:` + list.String()
}

func (skillTool) Schema() json.RawMessage { return skillSpec.schema() }
func (skillTool) Kind() Kind              { return KindThink }

// ReadOnly is true: loading instructions changes nothing; what the model
// does with them is governed call by call.
func (skillTool) ReadOnly() bool { return true }

func (skillTool) Describe(env *Env, input json.RawMessage) Description {
	var in SkillInput
	describeInput(input, &in)
	if strings.TrimSpace(in.Skill) == "" {
		return Description{Title: "Skill"}
	}
	return Description{Title: "Skill: " + shorten(in.Skill, 100)}
}

func (t skillTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in SkillInput
	if err := skillSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	in.Skill = strings.TrimPrefix(strings.TrimSpace(in.Skill), "/")
	if in.Skill == "" {
		return Errorf("Skill: skill is required")
	}
	if t.load == nil {
		return Errorf("Unknown skill: %s (no skills are available)", in.Skill)
	}
	text, err := t.load(ctx, in)
	if err != nil {
		return Errorf("%v", err)
	}
	return Result{Text: text}
}
