package loop

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/internal/printable"
)

// What the editor shows the user of a tool call, a permission request, a
// plan or a question is text the model, a project or a server wrote: a
// command, a path, a label. It goes out escaped (internal/printable), so
// that a right-to-left override, an ANSI sequence or a zero-width
// character shows as its escape (\u202e, \x1b, \u200b) instead of
// disguising what the user approves. It is done here, where every such
// frame leaves the loop (Session.notify, requestPermission,
// requestElicitation), not in each tool: a tool's Describe, a hook's
// message or a replayed log cannot forget it.
//
// What is left as it is, on purpose:
//   - the text of a diff (oldText, newText) and its path: the editor shows
//     them as the file and may apply them, so they must be the file. A
//     title whose call writes hidden characters says so (hiddenNote);
//   - rawInput, the call's input as data;
//   - the model's prose and thinking (agent_message_chunk,
//     agent_thought_chunk) and the user's own prompt: they are not what the
//     user approves, every action they talk about reaches the user as an
//     escaped card first, and escaping them would show a joiner or an
//     Arabic letter mark the user's own language needs as a code;
//   - form values the editor sends back (an option's const), which must
//     match what was offered.
// The log keeps everything as it was written; a replay escapes it again
// here.

// hiddenNote ends the title of a call whose diff writes characters that
// would be escaped elsewhere: the diff itself shows the file as it will be.
const hiddenNote = " (writes hidden characters: control, bidi or invisible)"

// shownUpdate is u with the text it shows escaped.
func shownUpdate(u acp.SessionUpdate) acp.SessionUpdate {
	switch u := u.(type) {
	case acp.ToolCall:
		u.Title, u.Content, u.Locations = shownCard(u.Title, u.Content, u.Locations)
		return u
	case acp.ToolCallUpdate:
		return shownToolCallUpdate(u)
	case acp.PlanUpdate:
		entries := make([]acp.PlanEntry, len(u.Entries))
		for i, e := range u.Entries {
			e.Content = printable.Line(e.Content)
			entries[i] = e
		}
		u.Entries = entries
		return u
	case acp.AvailableCommandsUpdate:
		// Commands and their descriptions come from projects, plugins and
		// MCP servers.
		list := make([]acp.AvailableCommand, len(u.AvailableCommands))
		for i, c := range u.AvailableCommands {
			c.Name, c.Description = printable.Line(c.Name), printable.Text(c.Description)
			if c.Input != nil {
				c.Input = &acp.AvailableCommandInput{Hint: printable.Line(c.Input.Hint)}
			}
			list[i] = c
		}
		u.AvailableCommands = list
		return u
	case acp.SessionInfoUpdate:
		// The session's title is the model's summary of the first prompt.
		if u.Title != nil {
			u.Title = new(printable.Line(*u.Title))
		}
		return u
	case acp.NoticeUpdate:
		u.Title, u.Description = printable.Line(u.Title), printable.Text(u.Description)
		return u
	}
	return u
}

func shownToolCallUpdate(u acp.ToolCallUpdate) acp.ToolCallUpdate {
	u.Title, u.Content, u.Locations = shownCard(u.Title, u.Content, u.Locations)
	return u
}

// shownCard escapes a tool call's title, the text of its content and its
// locations. Slices are copied before a change: the caller's stay as they
// were (the log, a later update).
func shownCard(title string, content []acp.ToolCallContent, locs []acp.ToolCallLocation) (string, []acp.ToolCallContent, []acp.ToolCallLocation) {
	title = printable.Line(title)
	writesHidden, copied := false, false
	for i, c := range content {
		switch {
		case c.Type == "diff":
			writesHidden = writesHidden || c.NewText != nil && printable.Hidden(*c.NewText)
		case c.Type == "content" && c.Content != nil:
			b := shownBlock(*c.Content)
			if b == *c.Content {
				continue
			}
			if !copied {
				content, copied = append([]acp.ToolCallContent(nil), content...), true
			}
			content[i].Content = &b
		}
	}
	if writesHidden && title != "" {
		title += hiddenNote
	}
	copied = false
	for i, l := range locs {
		if p := printable.Line(l.Path); p != l.Path {
			if !copied {
				locs, copied = append([]acp.ToolCallLocation(nil), locs...), true
			}
			locs[i].Path = p
		}
	}
	return title, content, locs
}

// shownBlock is a content block with the text it shows escaped; an image's
// or a resource's data is not text to read.
func shownBlock(b acp.ContentBlock) acp.ContentBlock {
	b.Text = printable.Text(b.Text)
	b.Title, b.Name, b.Description = printable.Line(b.Title), printable.Line(b.Name), printable.Text(b.Description)
	return b
}

// shownPermission is a copy of req with what it shows escaped: the call's
// card and the options' names.
func shownPermission(req *acp.RequestPermissionRequest) *acp.RequestPermissionRequest {
	out := *req
	out.ToolCall = shownToolCallUpdate(req.ToolCall)
	out.Options = make([]acp.PermissionOption, len(req.Options))
	for i, o := range req.Options {
		o.Name = printable.Line(o.Name)
		out.Options[i] = o
	}
	return &out
}

// requestPermission asks the editor's permission, showing req escaped;
// the option ids, which come back, are unchanged.
func (s *Session) requestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return s.agent.client.RequestPermission(ctx, shownPermission(req))
}

// requestElicitation asks the editor for a form or a URL, showing the
// message and the schema's titles and descriptions escaped.
func (s *Session) requestElicitation(ctx context.Context, req *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
	shown := *req
	shown.Message = printable.Text(req.Message)
	shown.RequestedSchema = shownSchema(req.RequestedSchema)
	return s.agent.client.CreateElicitation(ctx, &shown)
}

// shownSchema is a form's schema with the words it shows escaped: every
// title and description, and enumNames. Values (const, enum, default,
// examples) and property names are what the editor answers with, so they
// stay as they are. A schema with nothing to escape, or that does not
// decode, is returned unchanged.
func shownSchema(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	if !escapeSchema(v) {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// escapeSchema escapes v's shown words in place and reports whether any
// changed.
func escapeSchema(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch k {
			case "const", "enum", "default", "examples":
				continue
			case "title", "description":
				if str, ok := x.(string); ok {
					e := printable.Text(str)
					if k == "title" {
						e = printable.Line(str)
					}
					if e != str {
						v[k], changed = e, true
					}
					continue
				}
			case "properties", "patternProperties", "$defs", "definitions":
				// Names of fields, each a schema of its own.
				if m, ok := x.(map[string]any); ok {
					for _, field := range m {
						changed = escapeSchema(field) || changed
					}
					continue
				}
			case "enumNames":
				if list, ok := x.([]any); ok {
					for i, n := range list {
						if str, ok := n.(string); ok && printable.Line(str) != str {
							list[i], changed = printable.Line(str), true
						}
					}
					continue
				}
			}
			changed = escapeSchema(x) || changed
		}
	case []any:
		for _, x := range v {
			changed = escapeSchema(x) || changed
		}
	}
	return changed
}
