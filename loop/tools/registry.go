package tools

// Builtin returns the built-in tools in a fixed order: Read, Write, Edit,
// Bash, Glob, Grep, TodoWrite, Agent, then the later additions of Claude
// Code's set: NotebookEdit, TaskOutput, TaskStop, AskUserQuestion, WebFetch,
// WebSearch and Skill (the loop offers WebSearch only when the provider can
// search the web itself). Agent and Skill list no subagent types or skills of a
// session; the loop offers NewAgentTool and NewSkillTool in their place.
// The slice is new on every call.
func Builtin() []Tool {
	return []Tool{
		readTool{},
		writeTool{},
		editTool{},
		bashTool{},
		globTool{},
		grepTool{},
		todoWriteTool{},
		agentTool{},
		notebookEditTool{},
		taskOutputTool{},
		taskStopTool{},
		askUserQuestionTool{},
		webFetchTool{},
		webSearchTool{},
		skillTool{},
	}
}

// legacyNames are tools under the names Claude Code used before, with
// their old inputs: not offered to the model, but a model trained on them
// that calls them is served, when the tool that replaced them is offered.
var legacyNames = map[string]struct {
	tool        Tool
	replacement string
}{
	"BashOutput": {bashOutputTool{}, "TaskOutput"},
	"KillShell":  {killShellTool{}, "TaskStop"},
	"Task":       {agentTool{}, "Agent"},
}

// ByName returns the tool called name (matched exactly, as Claude Code
// names are case-sensitive), or its older name's stand-in when tools
// offers the tool that replaced it.
func ByName(tools []Tool, name string) (Tool, bool) {
	for _, t := range tools {
		if t.Name() == name {
			return t, true
		}
	}
	if old, ok := legacyNames[name]; ok {
		if _, offered := ByName(tools, old.replacement); offered {
			return old.tool, true
		}
	}
	return nil, false
}
