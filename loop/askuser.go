package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/tools"
)

// askUser puts AskUserQuestion's questions to the user: as one ACP form
// elicitation when the editor offers them, else as one permission request
// per question whose options are the choices. ctx ends with the turn, so
// a cancel ends the wait.
func (s *Session) askUser(ctx context.Context, toolCallID string, qs []tools.Question) ([]tools.Answer, error) {
	if s.agent.client.Capabilities().ElicitationForm() {
		return s.askByElicitation(ctx, toolCallID, qs)
	}
	answers := make([]tools.Answer, 0, len(qs))
	for _, q := range qs {
		a, err := s.askByPermission(ctx, toolCallID, q)
		if err != nil {
			return nil, err
		}
		answers = append(answers, a)
	}
	return answers, nil
}

// questionKeys are the form fields of question i: its choice, and the
// free text that may replace or add to it.
func questionKeys(i int) (choice, other string) {
	n := strconv.Itoa(i + 1)
	return "q" + n, "q" + n + "_other"
}

// askByElicitation asks every question in one form: a single-select (or,
// with multiSelect, a multi-select) field of titled options per question,
// and a text field for an answer of the user's own.
func (s *Session) askByElicitation(ctx context.Context, toolCallID string, qs []tools.Question) ([]tools.Answer, error) {
	props := map[string]any{}
	for i, q := range qs {
		choice, other := questionKeys(i)
		options := make([]map[string]string, len(q.Options))
		for j, o := range q.Options {
			options[j] = map[string]string{"const": o.Label, "title": o.Label, "description": o.Description}
		}
		title := cmp.Or(q.Header, "Question "+strconv.Itoa(i+1))
		if q.MultiSelect {
			props[choice] = map[string]any{"type": "array", "title": title, "description": q.Question, "items": map[string]any{"anyOf": options}}
		} else {
			props[choice] = map[string]any{"type": "string", "title": title, "description": q.Question, "oneOf": options}
		}
		props[other] = map[string]any{"type": "string", "title": title + ": other", "description": "Or type your own answer."}
	}
	schema, err := json.Marshal(map[string]any{"type": "object", "properties": props})
	if err != nil {
		return nil, err
	}
	var msg strings.Builder
	msg.WriteString("The agent asks:")
	for _, q := range qs {
		msg.WriteString("\n- " + q.Question)
	}
	resp, err := s.requestElicitation(ctx, &acp.CreateElicitationRequest{
		SessionID: s.id, ToolCallID: toolCallID, Mode: "form", Message: msg.String(), RequestedSchema: schema,
	})
	if err != nil {
		return nil, err
	}
	if resp.Action != acp.ElicitationAccept {
		return nil, tools.ErrDeclined
	}
	var content map[string]json.RawMessage
	if err := json.Unmarshal(resp.Content, &content); err != nil && len(resp.Content) > 0 {
		return nil, fmt.Errorf("the editor's answer is not an object: %v", err)
	}
	answers := make([]tools.Answer, len(qs))
	for i, q := range qs {
		choice, other := questionKeys(i)
		answers[i] = tools.Answer{Question: q.Question, Choices: offeredChoices(content[choice], q), Other: jsonString(content[other])}
	}
	return answers, nil
}

// offeredChoices reads a form field (a string or a list of strings) and
// keeps only labels the question offered: the editor's answer is not
// taken on trust.
func offeredChoices(raw json.RawMessage, q tools.Question) []string {
	var picked []string
	if err := json.Unmarshal(raw, &picked); err != nil {
		if one := jsonString(raw); one != "" {
			picked = []string{one}
		}
	}
	var out []string
	for _, p := range picked {
		for _, o := range q.Options {
			if o.Label == p {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func jsonString(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// askByPermission asks one question as a permission request whose options
// are the choices (an editor without elicitation still shows buttons),
// plus one to decline. A multi-select question takes one choice this way.
func (s *Session) askByPermission(ctx context.Context, toolCallID string, q tools.Question) (tools.Answer, error) {
	options := make([]acp.PermissionOption, 0, len(q.Options)+1)
	var detail strings.Builder
	detail.WriteString(q.Question + "\n")
	for i, o := range q.Options {
		options = append(options, acp.PermissionOption{OptionID: "choice_" + strconv.Itoa(i+1), Name: o.Label, Kind: acp.PermAllowOnce})
		fmt.Fprintf(&detail, "\n- **%s**: %s", o.Label, o.Description)
	}
	if q.MultiSelect {
		detail.WriteString("\n\n(Several may apply; this editor lets you pick one.)")
	}
	options = append(options, acp.PermissionOption{OptionID: "decline", Name: "Decline to answer", Kind: acp.PermRejectOnce})
	resp, err := s.requestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall: acp.ToolCallUpdate{ToolCallID: toolCallID, Title: q.Question, Kind: acp.ToolKindOther,
			Status: acp.ToolStatusPending, Content: []acp.ToolCallContent{acp.ContentText(detail.String())}},
		Options: options,
	})
	if err != nil {
		return tools.Answer{}, err
	}
	if resp.Outcome.Outcome != "selected" {
		return tools.Answer{}, tools.ErrDeclined
	}
	n, ok := strings.CutPrefix(resp.Outcome.OptionID, "choice_")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || i < 1 || i > len(q.Options) {
		return tools.Answer{}, tools.ErrDeclined
	}
	return tools.Answer{Question: q.Question, Choices: []string{q.Options[i-1].Label}}, nil
}
