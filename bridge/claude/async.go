package claude

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
)

var _ engine.Backgrounder[handler] = (*dialect)(nil)

// Background: `async` and `asyncRewake` hooks run in the background, on
// every event (the engine keeps SessionEnd's in the call).
func (d *dialect) Background(_ *hooks.Input, h handler) bool { return h.async }

// Late is what Claude Code makes of a background hook's result (CC-REF
// "Run hooks in the background"):
//
//   - an `async` hook's JSON output gives its additionalContext and
//     systemMessage, both to the model (neither is shown to the user);
//     a field of the wrong type is dropped, not the whole output, and
//     decisions (decision, permissionDecision, continue) have no effect:
//     what they would have controlled already happened;
//   - an `asyncRewake` hook that exits 2 wakes the model with its stderr
//     (its stdout when stderr is empty); any other exit delivers nothing.
func (d *dialect) Late(_ *hooks.Input, h handler, res hookproc.Result) (hooks.LateResult, string) {
	if why := res.NotRun(); why != "" || !res.Exited() {
		return hooks.LateResult{}, cmp.Or(why, res.Failure())
	}
	if h.rewake {
		if res.ExitCode != 2 {
			return hooks.LateResult{}, ""
		}
		text := strings.TrimSpace(res.Stderr)
		if text == "" {
			text = strings.TrimSpace(res.Stdout)
		}
		if text == "" {
			text = "(the hook printed nothing)"
		}
		return hooks.LateResult{Context: []string{capText(text)}, Wake: true}, ""
	}
	trimmed := strings.TrimSpace(res.Stdout)
	if !strings.HasPrefix(trimmed, "{") {
		if res.ExitCode != 0 {
			return hooks.LateResult{}, exitFailure(res)
		}
		return hooks.LateResult{}, "" // plain text: nothing for the model
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(trimmed), &top); err != nil {
		return hooks.LateResult{}, "stdout starts with '{' but is not valid JSON"
	}
	var late hooks.LateResult
	var spec map[string]json.RawMessage
	_ = json.Unmarshal(top["hookSpecificOutput"], &spec)
	if s, ok := jsonString(spec["additionalContext"]); ok && s != "" {
		late.Context = append(late.Context, capText(s))
	}
	if s, ok := jsonString(top["systemMessage"]); ok && s != "" {
		late.Context = append(late.Context, capText(s))
	}
	return late, ""
}

// jsonString decodes raw when it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
