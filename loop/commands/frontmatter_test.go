package commands

import (
	"strings"
	"testing"
)

// TestFrontmatterClaudeCodeReadsDespiteYAML: agent files as real plugins
// ship them, with an unquoted description full of ": " and example
// lines, load as Claude Code loads them: the fields still typed (a flow
// list of tools, a model), the description kept whole.
func TestFrontmatterClaudeCodeReadsDespiteYAML(t *testing.T) {
	file := "---\nname: tidy\ndescription: Use this agent when code needs tidying. Examples: <example>Context: a user asks\nuser: \"tidy it\"\n<commentary>\nLaunch it.\n</commentary>\n</example>\nmodel: inherit\ntools: [\"Read\", \"Grep\"]\ncolor: green\n---\n\nYou tidy code.\n"
	a, err := parseAgent("/p/tidy.md", SourcePlugin, func() ([]byte, error) { return []byte(file), nil })
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "tidy" || a.Model != "inherit" || strings.Join(a.Tools, ",") != "Read,Grep" || a.Prompt != "You tidy code." {
		t.Errorf("agent = %+v", a)
	}
	if !strings.HasPrefix(a.Description, "Use this agent when code needs tidying. Examples: <example>Context: a user asks") {
		t.Errorf("description = %q", a.Description)
	}
	// A command with a boolean and a list keeps their types.
	cmd := "---\ndescription: Run it: now\ndisable-model-invocation: true\nallowed-tools: [\"Bash(git status:*)\", \"Read\"]\n---\nBody\n"
	var fm struct {
		Description string `yaml:"description"`
		Disable     bool   `yaml:"disable-model-invocation"`
		Tools       any    `yaml:"allowed-tools"`
	}
	if _, err := splitFrontmatter([]byte(cmd), &fm); err != nil || fm.Description != "Run it: now" || !fm.Disable {
		t.Errorf("fm = %+v, %v", fm, err)
	}
	// A header with no field at all is still an error.
	if _, err := splitFrontmatter([]byte("---\n: : :\n---\nx"), &fm); err == nil {
		t.Error("a header without fields was accepted")
	}
}
