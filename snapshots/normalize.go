package snapshots

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/llm/replay"
)

// Outputs maps expected file names (relative to expected/) to their
// normalized content.
type Outputs map[string][]byte

// Names returns the file names, sorted.
func (o Outputs) Names() []string {
	names := make([]string, 0, len(o))
	for n := range o {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Expected file names.
const (
	StdoutFile = "stdout.jsonl"
)

// Keys whose values are volatile.
var (
	sessionIDKeys  = []string{"sessionId", "session_id"}
	toolCallIDKeys = []string{"toolCallId", "tool_use_id", "toolUseId"}
	messageIDKeys  = []string{"messageId", "message_id"}
	timeKeys       = []string{"time", "created", "createdAt", "updatedAt", "timestamp"}
	erasedKeys     = []string{"durationMs"}
)

// Normalize turns a run's raw output into the expected files:
//
//   - stdout.jsonl: every frame the agent wrote, one per line;
//   - session-N.jsonl and session-N.subagent-M.jsonl: the session logs;
//   - <conversation>.system.md, <conversation>.tools.json: the sidecars;
//   - cordis-N.txt: the output of the Nth cordis step (ids and paths
//     replaced as below);
//   - workspace/...: the final workspace, when the manifest compares it
//     (its text files with ids and paths replaced as below).
//
// JSON is re-encoded compactly with sorted keys. JSON-RPC ids are
// renumbered by first appearance (per agent process and direction);
// session, tool call and message ids become {{session-N}},
// {{toolCall-N}}, {{message-N}} by first appearance, wherever they occur
// in a string; timestamps become 0; durationMs is removed; streamed-text
// batches (stream/text, timed by the clock) are left out of session logs
// and seq renumbered; the agent's
// version becomes {{version}}; temporary paths become placeholders. Text
// that merely looks like an id is left alone.
func Normalize(res *Result) (Outputs, error) {
	n := &normalizer{paths: replay.NewPathReplacer(res.Paths), rpcIDs: map[string]int{}}
	var frames []any
	for i, f := range res.Frames {
		v, err := decodeJSON(f.Line)
		if err != nil {
			return nil, fmt.Errorf("stdout frame %d is not JSON: %v", i+1, err)
		}
		frames = append(frames, v)
		n.collect(v, "")
	}
	var logs [][]any
	for _, l := range res.Logs {
		var events []any
		for i, line := range bytes.Split(l.Data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			v, err := decodeJSON(line)
			if err != nil {
				return nil, fmt.Errorf("session log %s line %d is not JSON: %v", l.SessionID, i+1, err)
			}
			// Streamed-text batches are written by size or by the clock
			// (every 250 ms), so whether one lands depends on the
			// machine's speed: they are left out, and seq renumbered.
			if obj, ok := v.(map[string]any); ok {
				if obj["type"] == "stream/text" {
					continue
				}
				if _, ok := obj["seq"]; ok {
					obj["seq"] = json.Number(strconv.Itoa(len(events) + 1))
				}
			}
			events = append(events, v)
			n.collect(v, "")
		}
		logs = append(logs, events)
	}
	n.buildIDs()

	out := Outputs{}
	var stdout bytes.Buffer
	for i, v := range frames {
		if obj, ok := v.(map[string]any); ok {
			n.renumber(obj, res.Frames[i].Process)
		}
		if err := writeLine(&stdout, n.value(v, "")); err != nil {
			return nil, err
		}
	}
	out[StdoutFile] = stdout.Bytes()

	session, sub := 0, 0
	for i, l := range res.Logs {
		var name string
		if l.AgentID == "" {
			session++
			sub = 0
			name = fmt.Sprintf("session-%d.jsonl", session)
		} else {
			sub++
			name = fmt.Sprintf("session-%d.subagent-%d.jsonl", max(session, 1), sub)
		}
		var b bytes.Buffer
		for _, ev := range logs[i] {
			if err := writeLine(&b, n.value(ev, "")); err != nil {
				return nil, err
			}
		}
		out[name] = b.Bytes()
	}
	for name, data := range res.Observed {
		out[name] = data
	}
	for i, data := range res.Cordis {
		out[fmt.Sprintf("cordis-%d.txt", i+1)] = []byte(n.text(string(data)))
	}
	for rel, data := range res.Workspace {
		// Text a hook wrote there (its input, say) holds ids and paths.
		if utf8.Valid(data) {
			data = []byte(n.text(string(data)))
		}
		out["workspace/"+rel] = data
	}
	return out, nil
}

type normalizer struct {
	paths *replay.PathReplacer
	// first-appearance order of ids, per kind
	sessions, toolCalls, messages []string
	ids                           []idPair // longest first
	rpcIDs                        map[string]int
	rpcNext                       map[string]int
}

type idPair struct{ value, placeholder string }

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	return v, nil
}

func writeLine(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	return enc.Encode(v) // compact, sorted keys, '\n'
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// collect records ids in first-appearance order (keys visited sorted).
func (n *normalizer) collect(v any, key string) {
	switch x := v.(type) {
	case string:
		switch {
		case slices.Contains(sessionIDKeys, key):
			n.sessions = appendNew(n.sessions, x)
		case slices.Contains(toolCallIDKeys, key):
			n.toolCalls = appendNew(n.toolCalls, x)
		case slices.Contains(messageIDKeys, key):
			n.messages = appendNew(n.messages, x)
		}
	case []any:
		for _, e := range x {
			n.collect(e, "")
		}
	case map[string]any:
		if x["type"] == "tool_use" {
			if id, ok := x["id"].(string); ok {
				n.toolCalls = appendNew(n.toolCalls, id)
			}
		}
		for _, k := range sortedKeys(x) {
			n.collect(x[k], k)
		}
	}
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func (n *normalizer) buildIDs() {
	for i, s := range n.sessions {
		n.ids = append(n.ids, idPair{s, fmt.Sprintf("{{session-%d}}", i+1)})
	}
	for i, s := range n.toolCalls {
		n.ids = append(n.ids, idPair{s, fmt.Sprintf("{{toolCall-%d}}", i+1)})
	}
	for i, s := range n.messages {
		n.ids = append(n.ids, idPair{s, fmt.Sprintf("{{message-%d}}", i+1)})
	}
	slices.SortStableFunc(n.ids, func(a, b idPair) int { return len(b.value) - len(a.value) })
}

// renumber replaces a frame's JSON-RPC id by its first-appearance number:
// agent-to-editor requests and editor-to-agent requests (whose answers
// the agent writes) count separately, per process.
func (n *normalizer) renumber(frame map[string]any, process int) {
	if frame["method"] == "$/cancel_request" {
		// The agent cancels one of its own requests: same numbering.
		if params, ok := frame["params"].(map[string]any); ok && params["requestId"] != nil {
			params["requestId"] = n.number(process, "agent", params["requestId"])
		}
	}
	id, ok := frame["id"]
	if !ok || id == nil {
		return
	}
	space := "editor"
	if _, isRequest := frame["method"]; isRequest {
		space = "agent"
	}
	frame["id"] = n.number(process, space, id)
}

func (n *normalizer) number(process int, space string, id any) int {
	raw, _ := json.Marshal(id)
	key := fmt.Sprintf("%d/%s/%s", process, space, raw)
	num, seen := n.rpcIDs[key]
	if !seen {
		if n.rpcNext == nil {
			n.rpcNext = map[string]int{}
		}
		n.rpcNext[space]++
		num = n.rpcNext[space]
		n.rpcIDs[key] = num
	}
	return num
}

// value returns v normalized; key is the key v sits under.
func (n *normalizer) value(v any, key string) any {
	switch x := v.(type) {
	case string:
		return n.text(x)
	case []any:
		for i := range x {
			x[i] = n.value(x[i], "")
		}
		return x
	case map[string]any:
		for _, k := range sortedKeys(x) {
			switch {
			case slices.Contains(erasedKeys, k):
				delete(x, k)
			case slices.Contains(timeKeys, k):
				x[k] = 0
			case k == "version" && key == "agentInfo":
				x[k] = "{{version}}"
			default:
				x[k] = n.value(x[k], k)
			}
		}
		return x
	}
	return v
}

func (n *normalizer) text(s string) string {
	for _, id := range n.ids {
		if strings.Contains(s, id.value) {
			s = replaceID(s, id.value, id.placeholder)
		}
	}
	return n.paths.Replace(s)
}

// replaceID replaces whole occurrences of id: not inside a longer run of
// letters, digits and underscores.
func replaceID(s, id, repl string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, id)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(id)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			b.WriteString(s[:i])
			b.WriteString(repl)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
