package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/llm/openai"
	"github.com/cordis-agent/cordis/llm/replay"
)

// placeholder matches the path placeholders of the fixtures ({{cwd}},
// {{home}}, ...); each is expanded to a directory under fakeRoot.
var placeholder = regexp.MustCompile(`\{\{([a-z_]+)\}\}`)

const fakeRoot = "/tmp/cordis-wire"

func expandPaths(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		return fakeRoot + "/" + placeholder.FindStringSubmatch(m)[1]
	})
}

// expandAll applies expandPaths to every string value of v.
func expandAll(v any) any {
	switch x := v.(type) {
	case string:
		return expandPaths(x)
	case []any:
		for i := range x {
			x[i] = expandAll(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = expandAll(x[k])
		}
	}
	return v
}

var systemMarker = regexp.MustCompile(`(?m)^<!-- system\[(\d+)\] -->\n`)

// parseSystem inverts replay's sidecar rendering: each block under a
// "<!-- system[i] -->" line, followed by "\n", blocks separated by "\n".
func parseSystem(sidecar string) ([]any, error) {
	locs := systemMarker.FindAllStringSubmatchIndex(sidecar, -1)
	if len(locs) == 0 || locs[0][0] != 0 {
		return nil, fmt.Errorf("system sidecar does not start with a <!-- system[0] --> line")
	}
	var blocks []any
	for i, loc := range locs {
		if want := fmt.Sprint(i); sidecar[loc[2]:loc[3]] != want {
			return nil, fmt.Errorf("system sidecar: block %s where %s was expected", sidecar[loc[2]:loc[3]], want)
		}
		end, suffix := len(sidecar), "\n"
		if i+1 < len(locs) {
			end, suffix = locs[i+1][0], "\n\n"
		}
		chunk := sidecar[loc[1]:end]
		if !strings.HasSuffix(chunk, suffix) {
			return nil, fmt.Errorf("system sidecar: block %d does not end with %q", i, suffix)
		}
		blocks = append(blocks, map[string]any{"type": "text", "text": strings.TrimSuffix(chunk, suffix)})
	}
	return blocks, nil
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

// body is one captured request: Name is its file name without .json.
type body struct {
	Name string
	Data []byte
}

// snapshotBodies rebuilds every recorded snapshot request.
func snapshotBodies(t *testing.T) []body {
	t.Helper()
	files, err := filepath.Glob("../fixtures/*/*/*.request.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures/*/*/*.request.json found")
	}
	sort.Strings(files)
	var out []body
	for _, f := range files {
		conv := filepath.Base(filepath.Dir(f))
		scenario := filepath.Base(filepath.Dir(filepath.Dir(f)))
		name := scenario + "." + conv + "." + strings.TrimSuffix(filepath.Base(f), ".request.json")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := decodeJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: not a JSON object", f)
		}
		sidecar := filepath.Join("..", "snapshots", scenario, "expected", conv)
		if obj["system"] == replay.SystemPlaceholder {
			text, err := os.ReadFile(sidecar + ".system.md")
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if obj["system"], err = parseSystem(string(text)); err != nil {
				t.Fatalf("%s.system.md: %v", sidecar, err)
			}
		}
		if obj["tools"] == replay.ToolsPlaceholder {
			raw, err := os.ReadFile(sidecar + ".tools.json")
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if obj["tools"], err = decodeJSON(raw); err != nil {
				t.Fatalf("%s.tools.json: %v", sidecar, err)
			}
		}
		expandAll(obj)
		if s := fmt.Sprint(obj); strings.Contains(s, replay.SystemPlaceholder) || strings.Contains(s, replay.ToolsPlaceholder) {
			t.Fatalf("%s: a {{system}} or {{tools}} placeholder is left", f)
		}
		full, err := marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, body{Name: name, Data: full})
	}
	return out
}

// capture is an http.RoundTripper that keeps every request body and
// answers 400, so the provider returns at once without retrying.
type capture struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, data)
	c.mu.Unlock()
	return &http.Response{
		StatusCode: http.StatusBadRequest,
		Header:     http.Header{"Content-Type": []string{"application/json"}},
		Body:       io.NopCloser(strings.NewReader(`{"type":"error","error":{"type":"invalid_request_error","message":"captured by wire"}}`)),
		Request:    r,
	}, nil
}

func (c *capture) last(t *testing.T, name string) []byte {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) == 0 {
		t.Fatalf("%s: the provider sent no request", name)
	}
	b := c.bodies[len(c.bodies)-1]
	c.bodies = nil
	v, err := decodeJSON(b)
	if err != nil {
		t.Fatalf("%s: request body is not JSON: %v", name, err)
	}
	out, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cordisTools is the tool list cordis offers (from the text-turn sidecar).
func cordisTools(t *testing.T) []llm.ToolSpec {
	t.Helper()
	raw, err := os.ReadFile("../snapshots/text-turn/expected/01-main.tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools []llm.ToolSpec
	if err := json.Unmarshal([]byte(expandPaths(string(raw))), &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) == 0 {
		t.Fatal("no tools in the text-turn sidecar")
	}
	return tools
}

func cordisSystem(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../snapshots/text-turn/expected/01-main.system.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseSystem(expandPaths(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range blocks {
		out = append(out, b.(map[string]any)["text"].(string))
	}
	return out
}

// A 1x1 PNG and a 1x1 GIF, base64.
const (
	pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	gifData = "R0lGODlhAQABAAAAACw="
)

// conversations are representative llm.Requests (without model and
// limits): what the loop hands a provider.
func conversations(t *testing.T) map[string]llm.Request {
	system, tools := cordisSystem(t), cordisTools(t)
	user := func(b ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleUser, Content: b} }
	assistant := func(b ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: b} }
	toolUse := func(id, name, input string) llm.Block {
		return llm.Block{Type: llm.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
	}
	result := func(id string, isErr bool, c ...llm.Block) llm.Block {
		return llm.Block{Type: llm.BlockToolResult, ToolUseID: id, IsError: isErr, Content: c}
	}
	image := func(mt, data string) llm.Block { return llm.Block{Type: llm.BlockImage, MediaType: mt, Data: data} }
	thinking := func(text, sig string) llm.Block {
		return llm.Block{Type: llm.BlockThinking, Thinking: text, Signature: sig}
	}
	return map[string]llm.Request{
		"text": {System: system, Tools: tools, Messages: []llm.Message{
			user(llm.Text("What does this project do?")),
		}},
		"text-multi-turn": {System: system, Tools: tools, Messages: []llm.Message{
			user(llm.Text("Hi")),
			assistant(llm.Text("Hello! "), llm.Text("   "), llm.Text("How can I help?")),
			user(llm.Text("Explain main.go"), llm.Text("")),
		}},
		"tool-calls": {System: system, Tools: tools, Messages: []llm.Message{
			user(llm.Text("Read a.go and b.go, then run the tests.")),
			assistant(llm.Text("Reading both files."),
				toolUse("toolu_01", "Read", `{"file_path":"/tmp/cordis-wire/cwd/a.go"}`),
				toolUse("toolu_02", "Read", `{"file_path":"/tmp/cordis-wire/cwd/b.go"}`)),
			user(result("toolu_01", false, llm.Text("     1\tpackage a")),
				result("toolu_02", true, llm.Text("file does not exist"))),
			assistant(toolUse("toolu_03", "Bash", `{"command":"go test ./..."}`)),
			user(result("toolu_03", false, llm.Text("ok")), llm.Text("Also check vet.")),
			assistant(toolUse("toolu_04", "TodoWrite", ``)),
			user(result("toolu_04", false)),
		}},
		"images": {System: system, Tools: tools, Messages: []llm.Message{
			user(llm.Text("What is in this picture?"), image("image/png", pngData)),
			assistant(toolUse("toolu_11", "Read", `{"file_path":"/tmp/cordis-wire/cwd/logo.gif"}`)),
			user(result("toolu_11", false, image("image/gif", gifData))),
		}},
		"reasoning": {System: system, Tools: tools, Messages: []llm.Message{
			user(llm.Text("Fix the failing test.")),
			assistant(thinking("The test fails because…", "sig-abc"),
				llm.Block{Type: llm.BlockRedactedThinking, Data: "cmVkYWN0ZWQ="},
				llm.Text("Let me look."),
				toolUse("toolu_21", "Grep", `{"pattern":"TestFoo"}`)),
			user(result("toolu_21", false, llm.Text("foo_test.go:12: func TestFoo"))),
			assistant(thinking("Cut off by a cancel", ""), llm.Text("Found it.")),
			user(llm.Text("Go on.")),
		}},
		// A WebSearch call's side request, continued after pause_turn: the
		// server tool's call and result go back as the API sent them, and
		// text keeps its citations (authored blocks, not a recording).
		"web-search": {System: []string{"You search the web for the user's query."}, WebSearch: &llm.WebSearch{MaxUses: 8, AllowedDomains: []string{"go.dev"}}, Messages: []llm.Message{
			user(llm.Text("Search the web for: go 1.26 release")),
			assistant(llm.Text("Searching."),
				llm.Block{Type: llm.BlockServerToolUse, ID: "srvtoolu_01", Name: "web_search", Input: json.RawMessage(`{"query":"go 1.26 release"}`),
					Raw: json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{"query":"go 1.26 release"},"caller":{"type":"direct"}}`)},
				llm.Block{Type: llm.BlockServerToolResult, ToolUseID: "srvtoolu_01", Name: "web_search_tool_result",
					Raw: json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[{"type":"web_search_result","title":"Go 1.26 Release Notes","url":"https://go.dev/doc/go1.26","encrypted_content":"EqgfCioIARgB","page_age":null}],"caller":{"type":"direct"}}`)},
				llm.Block{Type: llm.BlockText, Text: "Go 1.26 adds new features.",
					Citations: json.RawMessage(`[{"type":"web_search_result_location","cited_text":"Go 1.26 adds","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_index":"Eo8BCioI"}]`)}),
			user(llm.Text("Go on.")),
		}},
		// /model mid-session: Anthropic's turn (signed and redacted
		// thinking, toolu_ ids), then DeepSeek's (unsigned reasoning),
		// then a server's ids others refuse (Kimi's "functions.Bash:0",
		// an id reused from an earlier turn, with Gemini's extra_content),
		// then a turn cancelled while it only thought.
		"provider-switch": {System: system, Tools: tools, Messages: []llm.Message{
			user(llm.Text("Fix the build.")),
			assistant(thinking("Read the file first.", "sig-switch"),
				llm.Block{Type: llm.BlockRedactedThinking, Data: "cmVkYWN0ZWQ="},
				llm.Text("Reading."),
				toolUse("toolu_31", "Read", `{"file_path":"/tmp/cordis-wire/cwd/main.go"}`)),
			user(result("toolu_31", false, llm.Text("     1\tpackage main"))),
			assistant(thinking("Now build it.", ""), toolUse("call_00_wireSwitch", "Bash", `{"command":"go build ./..."}`)),
			user(result("call_00_wireSwitch", true, llm.Text("main.go:3: undefined: x"))),
			assistant(toolUse("functions.Bash:0", "Bash", `{"command":"go vet ./..."}`),
				llm.Block{Type: llm.BlockToolUse, ID: "call_00_wireSwitch", Name: "Grep", Input: json.RawMessage(`{"pattern":"x"}`),
					Raw: json.RawMessage(`{"google":{"thought_signature":"d2lyZQ=="}}`)}),
			user(result("functions.Bash:0", false, llm.Text("ok")), result("call_00_wireSwitch", false, llm.Text("main.go:3"))),
			assistant(thinking("Cancelled while thinking", "")),
			user(llm.Text("Go on.")),
		}},
	}
}

// anthropicBodies builds the representative bodies through llm/anthropic.
func anthropicBodies(t *testing.T) []body {
	t.Helper()
	convs := conversations(t)
	names := make([]string, 0, len(convs))
	for n := range convs {
		names = append(names, n)
	}
	sort.Strings(names)
	ctx := context.Background()
	getenv := func(k string) string {
		if strings.HasSuffix(k, "_API_KEY") {
			return "sk-wire-placeholder"
		}
		return ""
	}
	var out []body

	// Anthropic: a budget-thinking model, an adaptive one, and thinking off.
	type aCase struct {
		model          string
		maxTokens      int
		thinkingBudget int
	}
	aCases := map[string]aCase{
		"sonnet-4-5":          {"claude-sonnet-4-5", 8192, 0},
		"sonnet-4-5-thinking": {"claude-sonnet-4-5", 16000, 4096},
		"opus-4-6-adaptive":   {"claude-opus-4-6", 32000, 8192},
	}
	for label, c := range aCases {
		tr := &capture{}
		p, err := anthropic.New(anthropic.Config{Model: c.model, MaxTokens: c.maxTokens, ThinkingBudget: c.thinkingBudget,
			BaseURL: "https://api.anthropic.invalid", MaxRetries: -1},
			anthropic.WithHTTPClient(&http.Client{Transport: tr}), anthropic.WithGetenv(getenv))
		if err != nil {
			t.Fatalf("anthropic %s: %v", label, err)
		}
		for _, n := range names {
			req := convs[n]
			if _, err := p.Stream(ctx, &req, nil); err == nil {
				t.Fatalf("anthropic %s %s: the capture transport answered 200?", label, n)
			}
			name := "provider." + label + "." + n
			out = append(out, body{Name: name, Data: tr.last(t, name)})
		}
	}
	return out
}

// openaiBodies builds the representative bodies through llm/openai.
func openaiBodies(t *testing.T) []body {
	t.Helper()
	convs := conversations(t)
	names := make([]string, 0, len(convs))
	for n := range convs {
		names = append(names, n)
	}
	sort.Strings(names)
	// gpt-4o takes max_tokens, o4-mini max_completion_tokens, deepseek-chat
	// wants reasoning_content back and takes no images, Mistral takes only
	// nine-character tool call ids, Gemini wants extra_content back.
	models := map[string]string{"gpt-4o": "gpt-4o", "o4-mini": "o4-mini", "deepseek-chat": "deepseek-chat",
		"mistral-large": "mistral-large-latest", "gemini-3-pro": "gemini-3-pro-preview"}
	var out []body
	for label, model := range models {
		tr := &capture{}
		p, err := openai.New(openai.Config{Model: model, MaxTokens: 4096, BaseURL: "https://api.openai.invalid/v1", MaxRetries: -1},
			openai.WithHTTPClient(&http.Client{Transport: tr}),
			openai.WithGetenv(func(k string) string {
				if k == openai.DefaultAPIKeyEnv {
					return "sk-wire-placeholder"
				}
				return ""
			}))
		if err != nil {
			t.Fatalf("openai %s: %v", label, err)
		}
		for _, n := range names {
			if n == "images" && !llm.CapsOf(model).Images {
				continue // the loop sends such models a text note instead (loop/messages.go)
			}
			req := convs[n]
			if _, err := p.Stream(context.Background(), &req, nil); err == nil {
				t.Fatalf("openai %s %s: the capture transport answered 200?", label, n)
			}
			name := "provider." + label + "." + n
			out = append(out, body{Name: name, Data: tr.last(t, name)})
		}
	}
	return out
}

// TestCapture builds every body; with $WIRE_OUT set it writes them to
// $WIRE_OUT/anthropic and $WIRE_OUT/openai for run.sh to check.
func TestCapture(t *testing.T) {
	sets := map[string][]body{
		"anthropic": append(append(snapshotBodies(t), anthropicBodies(t)...), longSessionBodies(t)...),
		"openai":    openaiBodies(t),
	}
	dir := os.Getenv("WIRE_OUT")
	for provider, bodies := range sets {
		t.Logf("%s: %d bodies", provider, len(bodies))
		if dir == "" {
			continue
		}
		sub := filepath.Join(dir, provider)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, b := range bodies {
			if err := os.WriteFile(filepath.Join(sub, b.Name+".json"), b.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
