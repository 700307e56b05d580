package loop

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/sessionlog"
)

// unquoteSeeds are JSON strings as json.Marshal writes them and as other
// writers (or hands) may: other escapes, raw HTML characters, surrogate
// pairs, invalid UTF-8.
var unquoteSeeds = []string{
	`""`, `"plain"`, `"a\nb\tc\r\"q\" back\\slash"`, `"\u003cb\u003e \u0026"`, `"<b> &"`, `"\u003C"`,
	`"\/path\/x"`, `"\u0041\u00e9"`, `"ctl \u0001 \u001f \b \f"`, `"\u0008"`, `"ls \u2028 ps \u2029"`, "\"raw \u2028\"",
	`"\ud83c\udf89 pair"`, `"\ud83c lone"`, `"\ufffd"`, "\"\xff\"", `"é 🎉 \u00e9"`, `"\u0000"`, `"tail\\"`, `null`, `12`, `"a\u00"`,
}

// TestUnquoteJSONString: the fast string decoder reads every JSON string
// as json.Unmarshal does, and offers the log's text for a frame only
// when json.Marshal would write exactly that text.
func TestUnquoteJSONString(t *testing.T) {
	raws := append([]string(nil), unquoteSeeds...)
	for _, s := range []string{"", "x", "quotes \" and \\ and\n\t<>&", "\u2028\u2029", "\x01\x7f", "ünï 🎉", "bad \xff\xfe utf-8", strings.Repeat("line\n", 100)} {
		b, _ := json.Marshal(s)
		raws = append(raws, string(b))
	}
	for _, raw := range raws {
		checkUnquote(t, []byte(raw))
	}
	// json.Marshal's own encoding of valid text is always offered.
	for _, s := range []string{"quotes \" and \\ and\n\t<>&", "\u2028\x01\x1f\b\f", "ünï 🎉"} {
		b, _ := json.Marshal(s)
		if _, enc, ok := unquoteJSONString(b); !ok || enc != string(b) {
			t.Errorf("%s: encoded %q, ok %v; want it offered", b, enc, ok)
		}
	}
}

func FuzzUnquoteJSONString(f *testing.F) {
	for _, s := range unquoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		checkUnquote(t, raw)
	})
}

func checkUnquote(t *testing.T, raw []byte) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal(raw, &want)
	got, enc, ok := unquoteJSONString(raw)
	if !ok {
		return // left to json.Unmarshal
	}
	if wantErr != nil || got != want {
		t.Fatalf("%s: got %q, json.Unmarshal %q (%v)", raw, got, want, wantErr)
	}
	canonical, _ := json.Marshal(want)
	if (enc != "") != (string(canonical) == string(raw)) || enc != "" && enc != string(raw) {
		t.Fatalf("%s: encoded %q; json.Marshal writes %s", raw, enc, canonical)
	}
}

// toolResultSeeds are tool/result data: as cordis writes them (v1 with
// content, v2 without), and shapes only a hand or another writer leaves
// (other key cases, duplicates, escaped keys, nulls, wrong types).
var toolResultSeeds = []string{
	`{"toolCallId":"toolu_1","status":"completed","output":"     1\tline \"one\"\n"}`,
	`{"toolCallId":"toolu_1","status":"failed","output":"boom","isError":true,"content":[{"type":"content","content":{"type":"text","text":"boom"}}],"resultFrom":"PostToolUse"}`,
	`{"toolCallId":"t","status":"completed","output":"x","content":[{"type":"diff","path":"/a","oldText":null,"newText":"b"}]}`,
	` { "toolCallId" : "t" , "output" : "spaced\u003c" } `,
	`{"toolCallId":"t","Output":"case"}`, `{"toolCallId":"t","output":"a","OUTPUT":"b"}`, `{"toolCallId":"t","output":"a","output":"b"}`,
	`{"toolCallId":"t","outp\u0075t":"escaped key"}`, `{"toolCallId":"t","output":null}`, `{"toolCallId":"t","output":"x","output":null}`,
	`{"toolCallId":1}`, `{"toolCallId":"t","isError":"yes"}`, `{"toolCallId":"t","extra":{"nested":["]}\"",{}]},"output":"y"}`,
	`{"toolCallId":"t","content":null,"content":[]}`, `{"toolCallId":"t","reſultFrom":"PostToolUse"}`, `{}`, `null`, `[]`, `"str"`,
	`{"toolCallId":"t","output":"\ud83c\udf89 \/ \u00e9"}`, "{\"toolCallId\":\"t\",\"output\":\"\xff\"}",
}

// TestDecodeToolResult: session/load's one-pass decoding of a
// tool/result is json.Unmarshal's, whatever the data.
func TestDecodeToolResult(t *testing.T) {
	for _, data := range toolResultSeeds {
		checkDecodeToolResult(t, []byte(data))
	}
}

func FuzzDecodeToolResult(f *testing.F) {
	for _, s := range toolResultSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // sessionlog hands over valid JSON only
		}
		checkDecodeToolResult(t, data)
	})
}

func checkDecodeToolResult(t *testing.T, data []byte) {
	t.Helper()
	want, wantOK := decodeEvent[toolResultLogEvent](sessionlog.Event{Data: data})
	got, enc, ok := decodeToolResult(data)
	if ok != wantOK || ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v (%v)\nwant %+v (%v)", data, got, ok, want, wantOK)
	}
	if enc != "" {
		if canonical, _ := json.Marshal(got.Output); enc != string(canonical) {
			t.Fatalf("%s: encoded output %s, json.Marshal writes %s", data, enc, canonical)
		}
	}
}

// TestReplayedResultFrame: the frame session/load replays for a result
// logged once (its output's JSON text copied from the log) is, byte for
// byte, the frame json.Marshal writes for the card the live turn showed.
func TestReplayedResultFrame(t *testing.T) {
	outputs := []string{"     1\tplain line\n", "html <b>&amp;</b> \"quoted\"\\", "ctl \x01\x1f\b\f del \x7f", "seps \u2028\u2029",
		"ünï 🎉 \ufffd", "bad \xff utf-8", strings.Repeat("     7\ta long file's line\n", 2000)}
	for _, output := range outputs {
		ev := toolResultLogEvent{toolResultEvent{ToolCallID: "toolu_1", Status: "completed", Output: output}}
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		logged, encoded, ok := decodeToolResult(data)
		if !ok {
			t.Fatalf("%s: not decoded", data)
		}
		live := acp.ToolCallUpdate{ToolCallID: "toolu_1", Status: "completed", Content: []acp.ToolCallContent{acp.ContentText(logged.Output)}}
		want, _ := json.Marshal(acp.SessionNotification{SessionID: "sess_1", Update: live})
		got, err := acp.SessionNotification{SessionID: "sess_1", Update: replayedResult(logged.toolResultEvent, encoded, false)}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("output %.40q:\n got %.300s\nwant %.300s", output, got, want)
		}
		if valid := utf8.ValidString(output); valid && (logged.Output != output || encoded == "") {
			t.Errorf("output %.40q: decoded %.40q, encoding offered %v", output, logged.Output, encoded != "")
		}
	}
}

// TestRestoreTalliesToolCalls: the tool counts a reopened session hands
// on (Config.RestoreToolStats) come from the events restore decodes once:
// calls that ran, failures, durations; a result a ProcessToolCalls hook
// supplied and a call never allowed are not counted, and a result whose
// content does not decode is still counted.
func TestRestoreTalliesToolCalls(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var events []sessionlog.Event
	add := func(typ string, after time.Duration, data string) {
		events = append(events, sessionlog.Event{V: 1, Seq: int64(len(events) + 1), Time: at.Add(after), Type: typ, Data: json.RawMessage(data)})
	}
	for i, c := range []struct{ id, name, result string }{
		{"t1", "Read", `{"toolCallId":"t1","status":"completed","output":"ok"}`},
		{"t2", "Read", `{"toolCallId":"t2","status":"failed","output":"no","isError":true}`},
		{"t3", "Bash", `{"toolCallId":"t3","status":"completed","output":"x","resultFrom":"ProcessToolCalls"}`},
		{"t4", "Bash", `{"toolCallId":"t4","status":"completed","output":"y","content":"not a list"}`},
	} {
		base := time.Duration(i) * time.Minute
		add(sessionlog.TypeToolCall, base, `{"toolCallId":"`+c.id+`","name":"`+c.name+`"}`)
		add(sessionlog.TypePermission, base+time.Second, `{"toolCallId":"`+c.id+`","allowed":true}`)
		add(sessionlog.TypeToolResult, base+time.Duration(i+2)*time.Second, c.result)
	}
	add(sessionlog.TypeToolCall, time.Hour, `{"toolCallId":"t5","name":"Read"}`)
	add(sessionlog.TypeToolResult, time.Hour+time.Second, `{"toolCallId":"t5","status":"failed","output":"denied","isError":true}`)

	rs := restorer{s: &Session{}, quiet: map[string]bool{}, outputs: map[string]string{}, show: func(acp.SessionUpdate) {}}
	for _, ev := range events {
		rs.apply(ev)
	}
	want := []ToolStats{
		{Tool: "Bash", Calls: 1, Total: 4 * time.Second, Max: 4 * time.Second},
		{Tool: "Read", Calls: 2, Failures: 1, Total: 3 * time.Second, Max: 2 * time.Second},
	}
	if got := rs.tally.stats(); !reflect.DeepEqual(got, want) {
		t.Errorf("stats %+v\nwant %+v", got, want)
	}
}
