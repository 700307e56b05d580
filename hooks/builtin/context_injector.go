package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
)

// ContextInjectorConfig configures context-injector.
type ContextInjectorConfig struct {
	Files []string `yaml:"files,omitempty" json:"files,omitempty" jsonschema:"description=Files in the session's working directory added to the system prompt in this order (default AGENTS.md then CLAUDE.md)"`
}

// contextInjectorHooks reads the project instruction files at
// SessionStart (startup, resume, clear, compact) and hands them to the
// loop as system context: every request of the session carries the same
// text, so the system prompt stays stable and cacheable.
func contextInjectorHooks(cfg ContextInjectorConfig) []registration {
	if len(cfg.Files) == 0 {
		return nil
	}
	files := cfg.Files
	return []registration{{event: hooks.SessionStart, priority: 10, run: func(in *hooks.Input) (hooks.Decision, error) {
		var b strings.Builder
		for _, name := range files {
			path := filepath.Join(in.Cwd, name)
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			fmt.Fprintf(&b, "Contents of %s (project instructions):\n\n%s\n\n", path, strings.TrimSpace(string(data)))
		}
		text := strings.TrimSpace(b.String())
		if text == "" {
			return hooks.Decision{}, nil
		}
		return hooks.Decision{SystemContext: []string{text}}, nil
	}}}
}
