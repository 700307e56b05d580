package codex

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
)

// asyncLimit is how many async hooks Codex runs at once per session; more
// wait for a free slot.
const asyncLimit = 8

var _ engine.Backgrounder[*handler] = (*dialect)(nil)

// Background: an `async: true` command hook runs in the background (the
// engine keeps SessionEnd's in the call).
func (d *dialect) Background(_ *hooks.Input, h *handler) bool { return h.async }

// Late: an async hook cannot decide (what it would have decided already
// happened); the additionalContext of its JSON output reaches the model
// with the session's next request. Its systemMessage, which Codex shows
// the user as a warning, is logged: there is no turn left to show it in.
func (d *dialect) Late(_ *hooks.Input, h *handler, res hookproc.Result) (hooks.LateResult, string) {
	if why := res.NotRun(); why != "" || !res.Exited() {
		return hooks.LateResult{}, cmp.Or(why, res.Failure())
	}
	trimmed := strings.TrimSpace(res.Stdout)
	if res.ExitCode != 0 && !strings.HasPrefix(trimmed, "{") {
		msg := fmt.Sprintf("exit status %d", res.ExitCode)
		if s := strings.TrimSpace(res.Stderr); s != "" {
			msg += ": " + s
		}
		return hooks.LateResult{}, msg
	}
	if !strings.HasPrefix(trimmed, "{") {
		return hooks.LateResult{}, ""
	}
	var out struct {
		SystemMessage string `json:"systemMessage"`
		Specific      struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(trimmed), &out); err != nil {
		return hooks.LateResult{}, "its output is not valid hook JSON: " + err.Error()
	}
	if out.SystemMessage != "" {
		d.log.Info("codex async hook message", "event", h.event, "command", h.command, "systemMessage", out.SystemMessage)
	}
	var late hooks.LateResult
	if c := strings.TrimSpace(out.Specific.AdditionalContext); c != "" {
		late.Context = []string{c}
	}
	return late, ""
}
