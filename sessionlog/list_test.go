package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// evLine renders one event line at t0+sec seconds.
func evLine(seq, sec int, typ, data string) string {
	return fmt.Sprintf(`{"v":1,"seq":%d,"time":%q,"type":%q,"data":%s}`+"\n",
		seq, t0.Add(time.Duration(sec)*time.Second).Format(time.RFC3339Nano), typ, data)
}

func start(cwd string) string {
	return evLine(1, 0, TypeSessionStart, fmt.Sprintf(`{"sessionId":"x","cwd":%q}`, cwd))
}

func TestList(t *testing.T) {
	state := t.TempDir()
	dir := Dir(state)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	garbage := strings.Repeat("#", 2<<20) + "\n"

	files := map[string]string{
		"sess_a": evLine(1, 0, TypeSessionStart, `{"sessionId":"sess_a","cwd":"/w/a","additionalDirectories":["/lib"]}`) +
			evLine(2, 1, TypeTurnStart, `{"turnId":"t1","prompt":"fix  the\n\tbug "}`) +
			evLine(3, 10, TypeTurnEnd, `{"stopReason":"end_turn"}`),
		// Ties with sess_a on time; the title is cut to 80 runes.
		"sess_c": start("/w/a/") +
			evLine(2, 1, TypeHookStart, `{}`) +
			evLine(3, 2, TypeTurnStart, fmt.Sprintf(`{"prompt":%q}`, strings.Repeat("é", 100))) +
			evLine(4, 10, TypeTurnEnd, `{}`),
		"sess_b": start("/w/b") + evLine(2, 20, TypeNotice, `{}`),
		// A torn tail: the time is the last complete event's.
		"sess_d": start("/w/d") + evLine(2, 5, TypeNotice, `{}`) + `{"v":1,"seq":3,"time":"2025-01-02T03:09`,
		// A damaged middle that List never reads.
		"sess_e": start("/w/e") + evLine(2, 1, TypeTurnStart, `{"prompt":"middle is damaged"}`) +
			"garbage\n" + garbage + evLine(9, 30, TypeTurnEnd, `{}`),
		// An unreadable last line: the one before it gives the time.
		"sess_f": start("/w/f") + "garbage\n",
		// No readable time at the end at all: the file's mtime.
		"sess_g": start("/w/g") + "garbage\n" + `{"v":1,"seq":3}` + "\n",
		// The first turn lies beyond the head List reads.
		"sess_h": start("/w/h") + evLine(2, 1, TypeMessage, `"`+strings.Repeat("m", 2<<20)+`"`) +
			evLine(3, 2, TypeTurnStart, `{"prompt":"too far"}`),
	}
	for id, content := range files {
		writeFile(t, filepath.Join(dir, id+".jsonl"), content)
	}
	if err := os.Chtimes(filepath.Join(dir, "sess_g.jsonl"), at(40), at(40)); err != nil {
		t.Fatal(err)
	}
	// Not listed: an empty log, an invalid id, another extension, a
	// directory, a subagent log.
	writeFile(t, filepath.Join(dir, "sess_empty.jsonl"), "")
	writeFile(t, filepath.Join(dir, "bad.id.jsonl"), start("/w/a"))
	writeFile(t, filepath.Join(dir, "notes.txt"), start("/w/a"))
	if err := os.Mkdir(filepath.Join(dir, "dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, SubagentPath(state, "sess_a", "agent_1"), start("/w/a"))

	p := func(id string) string { return filepath.Join(dir, id+".jsonl") }
	want := []Summary{
		{SessionID: "sess_g", Cwd: "/w/g", UpdatedAt: at(40), Path: p("sess_g")},
		{SessionID: "sess_e", Cwd: "/w/e", Title: "middle is damaged", UpdatedAt: at(30), Path: p("sess_e")},
		{SessionID: "sess_b", Cwd: "/w/b", UpdatedAt: at(20), Path: p("sess_b")},
		{SessionID: "sess_a", Cwd: "/w/a", AdditionalDirectories: []string{"/lib"}, Title: "fix the bug", UpdatedAt: at(10), Path: p("sess_a")},
		{SessionID: "sess_c", Cwd: "/w/a/", Title: strings.Repeat("é", 79) + "…", UpdatedAt: at(10), Path: p("sess_c")},
		{SessionID: "sess_d", Cwd: "/w/d", UpdatedAt: at(5), Path: p("sess_d")},
		{SessionID: "sess_h", Cwd: "/w/h", UpdatedAt: at(2), Path: p("sess_h")},
		{SessionID: "sess_f", Cwd: "/w/f", UpdatedAt: at(0), Path: p("sess_f")},
	}
	got, err := List(state)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if _, _, err := Read(p("sess_e")); err == nil {
		t.Error("Read(sess_e) succeeded; the test relies on its middle being corrupt")
	}

	ids := func(ss []Summary) []string {
		out := []string{}
		for _, s := range ss {
			out = append(out, s.SessionID)
		}
		return out
	}
	for _, tt := range []struct {
		cwd  string
		want []string
	}{
		{"/w/a", []string{"sess_a", "sess_c"}},
		{"/w/a/", []string{"sess_a", "sess_c"}},
		{"/w/b", []string{"sess_b"}},
		{"/w", []string{}},
	} {
		got, err := ListForCwd(state, tt.cwd)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
			t.Errorf("ListForCwd(%q) (-want +got):\n%s", tt.cwd, diff)
		}
	}
}

func TestListMissingDir(t *testing.T) {
	got, err := List(filepath.Join(t.TempDir(), "nope"))
	if err != nil || got != nil {
		t.Errorf("List = %v, %v; want nil, nil", got, err)
	}
}

func TestTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  hello\n\n world\t", "hello world"},
		{strings.Repeat("a", 80), strings.Repeat("a", 80)},
		{strings.Repeat("a", 81), strings.Repeat("a", 79) + "…"},
		{strings.Repeat("日本", 50), strings.Repeat("日本", 39) + "日…"},
	}
	for _, tt := range tests {
		if got := title(tt.in); got != tt.want {
			t.Errorf("title(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkList lists 300 sessions of 200 events of about 2 KiB each.
func BenchmarkList(b *testing.B) {
	state := b.TempDir()
	body := fmt.Sprintf(`{"output":%q}`, strings.Repeat("o", 2<<10))
	for i := range 300 {
		var sb strings.Builder
		sb.WriteString(start("/w"))
		sb.WriteString(evLine(2, i, TypeTurnStart, `{"prompt":"p"}`))
		for seq := 3; seq <= 200; seq++ {
			sb.WriteString(evLine(seq, i, TypeToolResult, body))
		}
		path := Path(state, fmt.Sprintf("sess_%03d", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := List(state)
		if err != nil || len(got) != 300 {
			b.Fatalf("List = %d, %v", len(got), err)
		}
	}
}
