package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// The characters the model hides things with in these tests, and how the
// user must see them.
const (
	rlo = "\u202e"
	esc = "\x1b"
	zws = "\u200b"
)

// rawHidden reports whether s holds one of the characters above as it is.
func rawHidden(s string) bool { return strings.ContainsAny(s, rlo+esc+zws) }

// shownStrings walks a frame the agent wrote and calls f with every string
// the editor shows, with the path to it. rawInput (the call's input as
// data) and a diff's oldText and newText (the file itself) are left out:
// they are meant to be what they are.
func shownStrings(v any, path string, f func(path, s string)) {
	switch v := v.(type) {
	case string:
		f(path, v)
	case []any:
		for _, x := range v {
			shownStrings(x, path+"[]", f)
		}
	case map[string]any:
		for k, x := range v {
			if k == "rawInput" || k == "oldText" || k == "newText" {
				continue
			}
			shownStrings(x, path+"."+k, f)
		}
	}
}

// noRawHidden fails the test for every frame that shows a hidden
// character as it is.
func noRawHidden(t *testing.T, frames []json.RawMessage) {
	t.Helper()
	for _, fr := range frames {
		var v any
		if err := json.Unmarshal(fr, &v); err != nil {
			t.Fatal(err)
		}
		shownStrings(v, "", func(path, s string) {
			if rawHidden(s) {
				t.Errorf("%s shows a hidden character as it is: %q", path, s)
			}
		})
	}
}

// A Bash command carrying a right-to-left override and an ANSI sequence
// reaches the permission request and the tool call escaped, in its title
// and in its fenced content; a plan entry, a Read card of a file holding
// escape sequences and the title of a Write that adds an override are
// escaped too, while the Write's diff is the file's text as it will be.
// The model's input, the file written and what the model is told stay
// as they were. A session/load shows the same.
func TestHiddenCharactersShownEscaped(t *testing.T) {
	command := `echo "` + rlo + `" ; rm -rf src ` + esc + `[8m` + zws
	wantCmd := `echo "\u202e" ; rm -rf src \x1b[8m\u200b`
	written := "invoice" + rlo + "fdp.exe\n"
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use",
			looptest.ToolUse("toolu_plan", "TodoWrite", map[string]any{"todos": []any{
				map[string]any{"content": "tidy " + rlo + "up", "status": "pending", "activeForm": "tidying"}}})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_bash", "Bash", map[string]any{"command": command})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_write", "Write", map[string]any{"file_path": "note.txt", "content": written})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_read", "Read", map[string]any{"file_path": "colors.txt"})),
		looptest.ReplyText("done"))
	if err := os.WriteFile(filepath.Join(h.Cwd, "colors.txt"), []byte("plain "+esc+"[31mred"+esc+"[0m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		asked []*acp.RequestPermissionRequest
	)
	h.Editor.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		answer := acp.PermAllowOnce
		if p.ToolCall.ToolCallID == "toolu_bash" {
			answer = acp.PermRejectOnce
		}
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: answer}}, nil
	}
	sid := h.NewSession()
	if stop := h.Prompt(sid, "go"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}

	mu.Lock()
	defer mu.Unlock()
	var bashAsk, writeAsk *acp.RequestPermissionRequest
	for _, p := range asked {
		switch p.ToolCall.ToolCallID {
		case "toolu_bash":
			bashAsk = p
		case "toolu_write":
			writeAsk = p
		}
	}
	if bashAsk == nil || writeAsk == nil {
		t.Fatalf("permission requests: %d, want Bash's and Write's", len(asked))
	}
	if !strings.Contains(bashAsk.ToolCall.Title, wantCmd) {
		t.Errorf("Bash's permission title = %q, want it to hold %q", bashAsk.ToolCall.Title, wantCmd)
	}
	if text := permissionText(bashAsk); !strings.Contains(text, "```sh\n"+wantCmd+"\n```") {
		t.Errorf("Bash's permission content = %q, want the command fenced and escaped", text)
	}
	if !strings.Contains(writeAsk.ToolCall.Title, "hidden characters") {
		t.Errorf("Write's permission title = %q, want it to say the file gets hidden characters", writeAsk.ToolCall.Title)
	}
	noRawHidden(t, h.Editor.Frames())

	// The diff shows the file as it will be; the file is as the model wrote it.
	var diffs int
	for _, fr := range h.Editor.Frames() {
		if strings.Contains(string(fr), `"type":"diff"`) {
			diffs++
			if !strings.Contains(string(fr), `"newText":"invoice`+rlo+`fdp.exe\n"`) {
				t.Errorf("a diff's newText is not the file's text: %s", fr)
			}
		}
	}
	if diffs == 0 {
		t.Error("no frame carries the Write's diff")
	}
	if got, _ := os.ReadFile(filepath.Join(h.Cwd, "note.txt")); string(got) != written {
		t.Errorf("note.txt = %q, want %q", got, written)
	}

	// What the editor was shown of each call.
	var bashTitle, planEntry, readText string
	for _, u := range h.Editor.Updates(sid) {
		switch u := u.(type) {
		case *acp.ToolCall:
			if u.ToolCallID == "toolu_bash" {
				bashTitle = u.Title
			}
		case *acp.PlanUpdate:
			if len(u.Entries) > 0 {
				planEntry = u.Entries[0].Content
			}
		}
	}
	for _, u := range toolUpdates(h.Editor.Updates(sid), "toolu_read") {
		readText += updateText(u)
	}
	if !strings.Contains(bashTitle, wantCmd) {
		t.Errorf("Bash's tool_call title = %q, want it to hold %q", bashTitle, wantCmd)
	}
	if planEntry != `tidy \u202eup` {
		t.Errorf("plan entry = %q", planEntry)
	}
	if !strings.Contains(readText, `plain \x1b[31mred\x1b[0m`) {
		t.Errorf("Read's card = %q, want the escape sequences escaped", readText)
	}

	// The model is told what the file holds, as it is.
	reqs := h.Model.Requests()
	if text, _ := looptest.ToolResult(t, reqs[len(reqs)-1], "toolu_read"); !strings.Contains(text, esc+"[31mred") {
		t.Errorf("the model got %q for Read, want the file's bytes", text)
	}

	// A replay from the log is escaped the same way.
	closeSession(t, h, sid)
	h2 := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.StateDir = h.StateDir }})
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	replayed := false
	for _, u := range h2.Editor.Updates(sid) {
		if c, ok := u.(*acp.ToolCall); ok && c.ToolCallID == "toolu_bash" {
			replayed = strings.Contains(c.Title, wantCmd)
		}
	}
	if !replayed {
		t.Error("session/load did not show Bash's title escaped")
	}
	noRawHidden(t, h2.Editor.Frames())
}

// permissionText joins the text content of a permission request.
func permissionText(p *acp.RequestPermissionRequest) string {
	var b strings.Builder
	for _, c := range p.ToolCall.Content {
		if c.Content != nil {
			b.WriteString(c.Content.Text)
		}
	}
	return b.String()
}

// hiddenQuestion is an AskUserQuestion whose first label reads as
// "invoice.exe" reversed into "invoicexe.pdf".
func hiddenQuestion() map[string]any {
	return map[string]any{"questions": []any{
		map[string]any{"question": "Open " + rlo + "which?", "header": "File" + zws, "multiSelect": false, "options": []any{
			map[string]any{"label": "invoice" + rlo + "fdp.exe", "description": "the " + esc + "[8mattachment"},
			map[string]any{"label": "nothing", "description": "skip"},
		}},
	}}
}

// Without elicitation, the question is a permission request: its title,
// its content and the option's name are escaped, and the label the user
// picks reaches the model as the model wrote it.
func TestAskUserQuestionLabelsEscapedByPermission(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_q", "AskUserQuestion", hiddenQuestion())),
		looptest.ReplyText("ok"))
	var (
		mu  sync.Mutex
		got *acp.RequestPermissionRequest
	)
	h.Editor.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		got = p
		mu.Unlock()
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: "choice_1"}}, nil
	}
	sid := h.NewSession()
	if stop := h.Prompt(sid, "which?"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	mu.Lock()
	defer mu.Unlock()
	if got == nil {
		t.Fatal("no permission request")
	}
	if got.Options[0].Name != `invoice\u202efdp.exe` {
		t.Errorf("option name = %q", got.Options[0].Name)
	}
	if got.ToolCall.Title != `Open \u202ewhich?` {
		t.Errorf("title = %q", got.ToolCall.Title)
	}
	if text := permissionText(got); !strings.Contains(text, `invoice\u202efdp.exe`) || !strings.Contains(text, `the \x1b[8mattachment`) {
		t.Errorf("content = %q", text)
	}
	noRawHidden(t, h.Editor.Frames())
	if text, _ := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_q"); !strings.Contains(text, "= "+strconv.Quote("invoice"+rlo+"fdp.exe")) {
		t.Errorf("the model got %q, want the label it offered, picked", text)
	}
}

// With elicitation, the form's titles and descriptions are escaped and
// its values are not: the editor answers with the label as offered, and
// the model gets it.
func TestAskUserQuestionLabelsEscapedByElicitation(t *testing.T) {
	caps := acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.Supported{}}}
	h := looptest.NewHarness(t, looptest.Options{Caps: caps},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_q", "AskUserQuestion", hiddenQuestion())),
		looptest.ReplyText("ok"))
	var (
		mu  sync.Mutex
		got acp.CreateElicitationRequest
	)
	h.Editor.OnRequest = func(_ context.Context, method string, raw json.RawMessage) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		if err := json.Unmarshal(raw, &got); err != nil {
			return nil, err
		}
		var schema struct {
			Properties map[string]struct {
				OneOf []struct{ Const string } `json:"oneOf"`
			} `json:"properties"`
		}
		json.Unmarshal(got.RequestedSchema, &schema)
		return map[string]any{"action": "accept", "content": map[string]any{"q1": schema.Properties["q1"].OneOf[0].Const}}, nil
	}
	sid := h.NewSession()
	if stop := h.Prompt(sid, "which?"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(got.Message, `Open \u202ewhich?`) || rawHidden(got.Message) {
		t.Errorf("message = %q", got.Message)
	}
	var schema struct {
		Properties map[string]struct {
			Title string `json:"title"`
			OneOf []struct {
				Const, Title, Description string
			} `json:"oneOf"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(got.RequestedSchema, &schema); err != nil {
		t.Fatal(err)
	}
	q1 := schema.Properties["q1"]
	if q1.Title != `File\u200b` || len(q1.OneOf) != 2 || q1.OneOf[0].Title != `invoice\u202efdp.exe` || q1.OneOf[0].Description != `the \x1b[8mattachment` {
		t.Errorf("schema = %s", got.RequestedSchema)
	}
	if q1.OneOf[0].Const != "invoice"+rlo+"fdp.exe" {
		t.Errorf("const = %q, want the label as offered", q1.OneOf[0].Const)
	}
	if text, _ := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_q"); !strings.Contains(text, "= "+strconv.Quote("invoice"+rlo+"fdp.exe")) {
		t.Errorf("the model got %q, want the label it offered, picked", text)
	}
}

// A project command's description reaches the editor's command list and
// /help escaped.
func TestCommandDescriptionsShownEscaped(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()) }})
	os.MkdirAll(filepath.Join(h.Cwd, ".claude", "commands"), 0o755)
	os.WriteFile(filepath.Join(h.Cwd, ".claude", "commands", "ship.md"),
		[]byte("---\ndescription: Run the tests "+rlo+"yolpeD\nargument-hint: [env"+zws+"]\n---\nShip it."), 0o644)
	sid := h.NewSession()
	var advertised *acp.AvailableCommandsUpdate
	waitFor(t, func() bool {
		for _, u := range h.Editor.Updates(sid) {
			if a, ok := u.(*acp.AvailableCommandsUpdate); ok {
				advertised = a
			}
		}
		return advertised != nil
	})
	found := false
	for _, c := range advertised.AvailableCommands {
		if c.Name == "ship" {
			found = c.Description == `Run the tests \u202eyolpeD` && c.Input != nil && c.Input.Hint == `[env\u200b]`
		}
	}
	if !found {
		t.Errorf("the command list does not show /ship escaped: %+v", advertised.AvailableCommands)
	}
	h.Prompt(sid, "/help")
	if help := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(help, `\u202eyolpeD`) {
		t.Errorf("/help does not show the description escaped:\n%s", help)
	}
	noRawHidden(t, h.Editor.Frames())
}
