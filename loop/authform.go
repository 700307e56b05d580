package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/cordis-agent/cordis/acp"
)

// keyField is the field of the key form that carries the key.
const keyField = "apiKey"

// askForKey asks the user for the provider's key through a form
// elicitation tied to the request in progress (authenticate, or a
// session request without a key), where the client takes forms and
// cordis can store a key; it stores the key where `cordis login` does
// and returns nil once the provider has it. Otherwise, or when the user
// gives none, it returns missing (the auth_required error).
//
// The key is only in the editor's answer: it is never logged, never in an
// error, and Store registers it for scrubbing. ACP's form schema has no
// password format, so how the field is shown is up to the editor.
func (a *Agent) askForKey(ctx context.Context, missing error) error {
	login, env, id := a.cfg.Login, a.keyEnv(), acp.RequestID(ctx)
	if login == nil || login.Store == nil || env == "" || id == nil || !a.client.Capabilities().ElicitationForm() {
		return missing
	}
	where := cmp.Or(login.Where, "cordis's credential file")
	schema, _ := json.Marshal(map[string]any{
		"type":  "object",
		"title": "Log in to the model API",
		"properties": map[string]any{keyField: map[string]any{
			"type":        "string",
			"title":       env,
			"description": fmt.Sprintf("Stored in %s, readable by you only, never logged.", where),
			"minLength":   1,
		}},
		"required": []string{keyField},
	})
	resp, err := a.client.CreateElicitation(ctx, &acp.CreateElicitationRequest{
		RequestID:       id,
		Mode:            acp.ElicitModeForm,
		Message:         fmt.Sprintf("cordis needs your %s to reach the model. It is stored for cordis only (%s); the editor's logout or `cordis logout` removes it.", env, where),
		RequestedSchema: schema,
	})
	if err != nil {
		a.log.Info("asking for the key by form failed", "error", err)
		return missing
	}
	if resp.Action != acp.ElicitationAccept {
		return missing
	}
	var content map[string]any
	_ = json.Unmarshal(resp.Content, &content)
	key, _ := content[keyField].(string)
	key = strings.TrimSpace(key)
	if key == "" {
		return missing
	}
	if strings.IndexFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return acp.InvalidParams("the %s given has spaces or control characters, which no key has; nothing was stored", env)
	}
	if err := login.Store(key); err != nil {
		return acp.InternalError("storing the %s: %v", env, err)
	}
	a.log.Info("stored the key given in the editor's form", "variable", env)
	return a.authError()
}
