package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Skill is a Claude Code skill: <root>/<name>/SKILL.md, its body loaded
// into the conversation only when the model (Skill tool) or the user
// (/name) invokes it.
type Skill struct {
	// Name is the skill's folder name, which is how Claude Code names it
	// (the frontmatter's name is only a display name).
	Name        string
	Description string
	// Dir is the skill's folder (its scripts and references are read from
	// there); Path is its SKILL.md.
	Dir, Path string
	Source    Source
	Body      string
	// AllowedTools are permission rules pre-approved for the turn that
	// invokes the skill.
	AllowedTools []string
	Model        string
	// ModelInvocable is false for `disable-model-invocation: true`
	// (user-only); UserInvocable is false for `user-invocable: false`.
	ModelInvocable, UserInvocable bool
	Fork                          bool
	Agent                         string
	// ArgumentHint is shown with the /name command; Arguments name the
	// arguments' words ($name).
	ArgumentHint string
	Arguments    []string
}

type skillFrontmatter struct {
	Name                   string    `yaml:"name"`
	Description            string    `yaml:"description"`
	WhenToUse              string    `yaml:"when_to_use"`
	AllowedTools           any       `yaml:"allowed-tools"`
	Model                  string    `yaml:"model"`
	DisableModelInvocation bool      `yaml:"disable-model-invocation"`
	UserInvocable          *bool     `yaml:"user-invocable"`
	Context                string    `yaml:"context"`
	Agent                  string    `yaml:"agent"`
	ArgumentHint           yaml.Node `yaml:"argument-hint"`
	Arguments              any       `yaml:"arguments"`
}

// maxSkillListing is how much of a skill's description (and when_to_use)
// the model's listing keeps, as Claude Code cuts it.
const maxSkillListing = 1536

// skillDirs are the skill roots, highest precedence first.
func (r *Registry) skillDirs(cwd string) []sourceDir { return resolve(r.sources.Skills, cwd) }

// loadSkills reads every <root>/<name>/SKILL.md; on a name clash the
// earlier root wins.
func loadSkills(dirs []sourceDir, cwd string) ([]Skill, []LoadError) {
	var out []Skill
	var errs []LoadError
	seen := map[string]bool{}
	for _, d := range dirs {
		errs = append(errs, walkMarkdown(d.path, d.source == SourceProject, d.confinedTo(cwd), func(p, rel string, read func() ([]byte, error)) error {
			name, file := filepath.Split(rel)
			name = strings.TrimSuffix(name, string(filepath.Separator))
			if file != "SKILL.md" || name == "" || strings.ContainsRune(name, filepath.Separator) || seen[name] {
				return nil
			}
			if !validName(name) {
				return fmt.Errorf("skill name %q may only use letters, digits, '_' and '-'", name)
			}
			sk, err := parseSkill(p, name, d.source, read)
			if err != nil {
				return err
			}
			seen[name] = true
			out = append(out, sk)
			return nil
		})...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

func parseSkill(path, name string, source Source, read func() ([]byte, error)) (Skill, error) {
	data, err := read()
	if err != nil {
		return Skill{}, err
	}
	var fm skillFrontmatter
	body, err := splitFrontmatter(data, &fm)
	if err != nil {
		return Skill{}, err
	}
	rules, err := toolList(fm.AllowedTools)
	if err != nil {
		return Skill{}, err
	}
	desc := strings.TrimSpace(fm.Description)
	if desc == "" {
		desc = firstParagraph(body)
	}
	if w := strings.TrimSpace(fm.WhenToUse); w != "" {
		desc += " " + w
	}
	if len(desc) > maxSkillListing {
		desc = desc[:maxSkillListing] + "…"
	}
	return Skill{
		Name: name, Description: desc, Dir: filepath.Dir(path), Path: path, Source: source, Body: body,
		AllowedTools: rules, Model: fm.Model,
		ModelInvocable: !fm.DisableModelInvocation, UserInvocable: fm.UserInvocable == nil || *fm.UserInvocable,
		Fork: fm.Context == "fork", Agent: fm.Agent,
		ArgumentHint: hintText(&fm.ArgumentHint), Arguments: argumentNames(fm.Arguments),
	}, nil
}

func firstParagraph(body string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if len(lines) > 0 {
				break
			}
			continue
		}
		lines = append(lines, strings.TrimLeft(l, "# "))
	}
	return strings.Join(lines, " ")
}

// skillCommand is a user-invocable skill as a /name prompt command.
func skillCommand(sk Skill) *Prompt {
	return &Prompt{
		Spec:         Spec{Name: sk.Name, Description: sk.Description, ArgumentHint: sk.ArgumentHint, Source: sk.Source, Path: sk.Path},
		Template:     sk.Body,
		AllowedTools: sk.AllowedTools,
		Model:        sk.Model,
		Fork:         sk.Fork,
		Agent:        sk.Agent,
		Arguments:    sk.Arguments,
	}
}

// UserSkillDirs are the user's skill roots that exist: the loop adds
// them to a session's directories so that the model can read a user
// skill's scripts and references.
func (r *Registry) UserSkillDirs() []string {
	var out []string
	for _, src := range r.sources.Skills {
		if src.Project {
			continue
		}
		if info, err := os.Stat(src.Path); err == nil && info.IsDir() {
			out = append(out, src.Path)
		}
	}
	return out
}

// SkillDirsAbove are the skill roots found above cwd up to its
// repository's root (setup.Source.UpToRepo) that exist: the loop adds
// them to a session's directories so that the model can read such a
// skill's scripts and references, as it can a skill's in the cwd.
func (r *Registry) SkillDirsAbove(cwd string) []string {
	var out []string
	for _, src := range r.sources.Skills {
		above, _ := src.Above(cwd)
		for _, p := range above {
			if info, err := os.Stat(p); err == nil && info.IsDir() {
				out = append(out, p)
			}
		}
	}
	return out
}
