package builtin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/hooks"
)

// AuditLogConfig configures audit-log.
type AuditLogConfig struct {
	File              string `yaml:"file,omitempty" json:"file,omitempty" jsonschema:"description=JSON Lines file to append to; a relative path is under the state directory; empty: audit-log is off"`
	InputSummaryChars int    `yaml:"inputSummaryChars,omitempty" json:"inputSummaryChars,omitempty" jsonschema:"minimum=1,description=How many characters of the tool input (and of an error) a line keeps (default 200)"`
}

// auditLine is one line of the audit log.
type auditLine struct {
	Time       string  `json:"time"`
	Session    string  `json:"session"`
	AgentID    string  `json:"agentId,omitempty"`
	TurnID     string  `json:"turnId,omitempty"`
	ToolUseID  string  `json:"toolUseId"`
	Tool       string  `json:"tool"`
	Input      string  `json:"input"`
	Outcome    string  `json:"outcome"` // ok | error
	Error      string  `json:"error,omitempty"`
	DurationMs float64 `json:"durationMs"`
}

// auditLogHooks append one line per tool execution (PostToolUse and
// PostToolUseFailure) to the file, redacted with input-sanitize's
// patterns whether or not input-sanitize itself is on. Each line is one
// write on an O_APPEND file.
func auditLogHooks(cfg AuditLogConfig, r *redactor, opts Options) ([]registration, func() error, error) {
	if cfg.File == "" {
		return nil, nil, nil
	}
	if cfg.InputSummaryChars < 0 {
		return nil, nil, fmt.Errorf("inputSummaryChars must not be negative")
	}
	n := cfg.InputSummaryChars
	if n == 0 {
		n = 200
	}
	path := cfg.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(opts.StateDir, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	run := func(in *hooks.Input) (hooks.Decision, error) {
		line := auditLine{
			Time: opts.Now().UTC().Format(time.RFC3339Nano), Session: in.SessionID, AgentID: in.AgentID, TurnID: in.TurnID,
			ToolUseID: in.ToolUseID, Tool: in.ToolName, Input: summary(r, string(in.ToolInput), n), Outcome: "ok",
			DurationMs: float64(in.Duration.Microseconds()) / 1000,
		}
		if in.Event == hooks.PostToolUseFailure {
			line.Outcome, line.Error = "error", summary(r, in.Error, n)
		}
		b, err := json.Marshal(line)
		if err != nil {
			return hooks.Decision{}, err
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := f.Write(append(b, '\n')); err != nil {
			return hooks.Decision{}, fmt.Errorf("audit log %s: %w", path, err)
		}
		return hooks.Decision{}, nil
	}
	return []registration{
		{event: hooks.PostToolUse, priority: 10, run: run},
		{event: hooks.PostToolUseFailure, priority: 10, run: run},
	}, f.Close, nil
}

// summary redacts s and keeps its first n characters. Only a window a
// little longer than n is redacted, so a huge input costs no more than a
// small one.
func summary(r *redactor, s string, n int) string {
	window := n*4 + 512
	cut := len(s) > window
	if cut {
		s = truncateUTF8(s, window)
	}
	s, _ = r.String(s)
	if utf8.RuneCountInString(s) > n || cut {
		runes := []rune(s)
		if len(runes) > n {
			runes = runes[:n]
		}
		return string(runes) + "…"
	}
	return s
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
