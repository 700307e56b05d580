package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/confine"
)

// ContextInjectorConfig configures context-injector.
type ContextInjectorConfig struct {
	Files []string `yaml:"files,omitempty" json:"files,omitempty" jsonschema:"description=Files in the session's working directory added to the system prompt in this order (default AGENTS.md then CLAUDE.md); a file that is not a regular file inside the working directory (through its links too) is skipped and the user told"`
}

// contextMaxBytes caps one context file: the project must not make cordis
// read without bound, and a file this large would crowd out the
// conversation anyway.
const contextMaxBytes = 1 << 20

// contextInjectorHooks reads the project instruction files at
// SessionStart (startup, resume, clear, compact) and hands them to the
// loop as system context: every request of the session carries the same
// text, so the system prompt stays stable and cacheable.
//
// The files belong to the project, which is untrusted: they are opened
// through the session's working directory (internal/confine), so a link
// out of it (CLAUDE.md -> ~/.aws/credentials) is never read, while a link
// inside (CLAUDE.md -> AGENTS.md) is. A FIFO, a device or an oversized
// file is skipped too. A skipped file is named to the user once, with the
// reason; a missing one is not.
func contextInjectorHooks(cfg ContextInjectorConfig) []registration {
	if len(cfg.Files) == 0 {
		return nil
	}
	files := cfg.Files
	// told remembers the skips already shown to each session. It is not
	// dropped at SessionEnd: registering there would add a hook run to the
	// log of every session, for the rare one with a skipped file. A
	// session has state only while it has skipped files.
	var told sessions[map[string]bool]
	return []registration{{event: hooks.SessionStart, priority: 10, run: func(in *hooks.Input) (hooks.Decision, error) {
		if in.Cwd == "" {
			return hooks.Decision{}, nil
		}
		dirs := confine.New(in.Cwd)
		defer dirs.Close()
		var b strings.Builder
		var skipped []string
		for _, name := range files {
			path := filepath.Join(in.Cwd, name)
			data, err := dirs.ReadFile(path, contextMaxBytes)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					skipped = append(skipped, skipNotice(path, in.Cwd, err))
				}
				continue
			}
			fmt.Fprintf(&b, "Contents of %s (project instructions):\n\n%s\n\n", path, strings.TrimSpace(string(data)))
		}
		var d hooks.Decision
		if text := strings.TrimSpace(b.String()); text != "" {
			d.SystemContext = []string{text}
		}
		if len(skipped) == 0 {
			told.drop(in.SessionID)
			return d, nil
		}
		told.with(in.SessionID, func(seen *map[string]bool) {
			if *seen == nil {
				*seen = map[string]bool{}
			}
			for _, m := range skipped {
				if !(*seen)[m] {
					(*seen)[m] = true
					d.SystemMessages = append(d.SystemMessages, m)
				}
			}
		})
		return d, nil
	}}}
}

// skipNotice tells the user why the context file at path was not read.
func skipNotice(path, cwd string, err error) string {
	why := err.Error()
	var outside *confine.OutsideError
	var irregular *confine.NotRegularError
	switch {
	case errors.As(err, &outside):
		why = fmt.Sprintf("it leads to %s, outside the project (%s)", outside.Real, cwd)
	case errors.As(err, &irregular):
		why = "it is not a regular file (" + confine.Kind(irregular.Mode) + ")"
	case errors.Is(err, confine.ErrTooLarge):
		why = fmt.Sprintf("it is larger than %d KiB", contextMaxBytes>>10)
	}
	return fmt.Sprintf("[cordis: the project instructions in %s were not read: %s.]", path, why)
}
