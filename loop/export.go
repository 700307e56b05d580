package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/tools"
)

func cmdExport(ctx context.Context, s *Session, args string) commands.Intent {
	format, path := "md", ""
	for _, f := range strings.Fields(args) {
		switch {
		case f == "md" || f == "json":
			format = f
		case path == "":
			path = f
		default:
			return commands.ShowError{Message: "Usage: /export [md|json] [path]"}
		}
	}
	s.mu.Lock()
	history := append([]llm.Message(nil), s.history...)
	s.mu.Unlock()
	var data []byte
	if format == "json" {
		var err error
		data, err = json.MarshalIndent(history, "", "  ")
		if err != nil {
			return commands.ShowError{Message: "/export: " + err.Error()}
		}
	} else {
		data = []byte(markdownTranscript(history))
	}
	abs, err := s.writeExport(path, format, data)
	if err != nil {
		return commands.ShowError{Message: "/export: " + err.Error()}
	}
	return commands.ShowText{Text: fmt.Sprintf("Exported %d messages to %s.", len(history), abs)}
}

func markdownTranscript(history []llm.Message) string {
	var b strings.Builder
	for _, m := range history {
		for _, bl := range m.Content {
			switch bl.Type {
			case llm.BlockText:
				if m.Role == llm.RoleUser {
					fmt.Fprintf(&b, "## User\n\n%s\n\n", bl.Text)
				} else {
					fmt.Fprintf(&b, "## Assistant\n\n%s\n\n", bl.Text)
				}
			case llm.BlockToolUse:
				fmt.Fprintf(&b, "### Tool call: %s\n\n```json\n%s\n```\n\n", bl.Name, bl.Input)
			case llm.BlockToolResult:
				label := "Tool result"
				if bl.IsError {
					label = "Tool error"
				}
				fmt.Fprintf(&b, "### %s\n\n```\n%s\n```\n\n", label, strings.TrimRight(resultText(bl.Content), "\n"))
			}
		}
	}
	return b.String()
}

// writeExport writes an export to path, or, with no path, into the
// session's state folder: a transcript is the user's, not the project's,
// and dropping it in the working tree would put it in front of git add.
// It returns where the export went.
func (s *Session) writeExport(path, format string, data []byte) (string, error) {
	// The history in memory holds tool output as it came (the provider
	// keys are scrubbed from each request, not from the history), and an
	// export is a file that is easily shared or committed.
	data = secrets.Scrub(data)
	if path == "" {
		dir := filepath.Join(s.agent.cfg.StateDir, "exports")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
		abs := filepath.Join(dir, fmt.Sprintf("cordis-%s.%s", s.id, format))
		// 0600: a transcript holds whatever the tools read.
		return abs, os.WriteFile(abs, data, 0o600)
	}
	env := &tools.Env{Cwd: s.cwd, Roots: s.roots}
	abs, err := env.Resolve(path)
	if err != nil {
		return "", err
	}
	// Written through the session's directories: a link swapped in after
	// Resolve cannot lead outside.
	dirs := confine.New(s.roots...)
	defer dirs.Close()
	return abs, dirs.WriteFile(abs, data, 0o644)
}
