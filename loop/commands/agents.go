package commands

import (
	"fmt"
	"sort"
	"strings"
)

// AgentDef is a custom subagent in Claude Code's format: a Markdown file
// in an agent folder (Sources.Agents) whose body is the subagent's system
// prompt.
type AgentDef struct {
	Name, Description string
	// Prompt is the body: the subagent's system prompt.
	Prompt string
	// Tools lists the tools the subagent gets (nil: every tool a subagent
	// may have); DisallowedTools are taken away from those.
	Tools, DisallowedTools []string
	// Model is an alias (sonnet, opus, haiku), a model id, or "inherit"/"".
	Model  string
	Path   string
	Source Source
}

type agentFrontmatter struct {
	Name            string `yaml:"name"`
	Description     string `yaml:"description"`
	Tools           any    `yaml:"tools"`
	DisallowedTools any    `yaml:"disallowedTools"`
	Model           string `yaml:"model"`
}

// agentDirs are the agent roots, highest precedence first.
func (r *Registry) agentDirs(cwd string) []sourceDir { return resolve(r.sources.Agents, cwd) }

// loadAgents reads every *.md below the agent roots (recursively; the
// name comes from the frontmatter, not the file name). On a name clash
// the earlier root wins.
func loadAgents(dirs []sourceDir, cwd string) ([]AgentDef, []LoadError) {
	var out []AgentDef
	var errs []LoadError
	seen := map[string]bool{}
	for _, d := range dirs {
		errs = append(errs, walkMarkdown(d.path, d.source == SourceProject, d.confinedTo(cwd), func(p, _ string, read func() ([]byte, error)) error {
			a, err := parseAgent(p, d.source, read)
			if err != nil || seen[a.Name] {
				return err
			}
			seen[a.Name] = true
			out = append(out, a)
			return nil
		})...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

func parseAgent(path string, source Source, read func() ([]byte, error)) (AgentDef, error) {
	data, err := read()
	if err != nil {
		return AgentDef{}, err
	}
	var fm agentFrontmatter
	body, err := splitFrontmatter(data, &fm)
	if err != nil {
		return AgentDef{}, err
	}
	name := strings.TrimSpace(fm.Name)
	switch {
	case name == "":
		return AgentDef{}, fmt.Errorf("a subagent needs a name in its frontmatter")
	case strings.TrimSpace(fm.Description) == "":
		return AgentDef{}, fmt.Errorf("subagent %q needs a description in its frontmatter", name)
	case strings.ContainsAny(name, ": \t\n"):
		return AgentDef{}, fmt.Errorf("subagent name %q may not contain ':' or blanks", name)
	}
	tools, err := toolList(fm.Tools)
	if err != nil {
		return AgentDef{}, fmt.Errorf("tools: %v", err)
	}
	denied, err := toolList(fm.DisallowedTools)
	if err != nil {
		return AgentDef{}, fmt.Errorf("disallowedTools: %v", err)
	}
	return AgentDef{
		Name: name, Description: strings.TrimSpace(fm.Description), Prompt: strings.TrimSpace(body),
		Tools: tools, DisallowedTools: denied, Model: strings.TrimSpace(fm.Model), Path: path, Source: source,
	}, nil
}
