package tools

// Builtin returns the built-in tools in a fixed order: Read, Write, Edit,
// Bash, Glob, Grep, TodoWrite, Task. The slice is new on every call.
func Builtin() []Tool {
	return []Tool{
		readTool{},
		writeTool{},
		editTool{},
		bashTool{},
		globTool{},
		grepTool{},
		todoWriteTool{},
		taskTool{},
	}
}

// ByName returns the tool called name (matched exactly, as Claude Code
// names are case-sensitive).
func ByName(tools []Tool, name string) (Tool, bool) {
	for _, t := range tools {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}
