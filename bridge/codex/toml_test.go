package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
)

// The config.toml hooks are the hooks.json tree written as TOML. These
// tests build both forms from one description and check that they parse,
// validate and run identically, then cover what only config.toml has:
// the rest of the file, both forms in one layer, trust, broken files and
// an explicit .toml path.

// hookSpec is one event's matcher groups; a group is {"matcher"?,
// "hooks": [handler...]} with handlers as field maps.
type hookSpec struct {
	event  string
	groups []map[string]any
}

func group(matcher string, handlers ...map[string]any) map[string]any {
	g := map[string]any{"hooks": handlers}
	if matcher != "" {
		g["matcher"] = matcher
	}
	return g
}

func cmdHandler(command string, fields ...any) map[string]any {
	h := map[string]any{"type": "command", "command": command}
	for i := 0; i+1 < len(fields); i += 2 {
		h[fields[i].(string)] = fields[i+1]
	}
	return h
}

// specJSON writes specs as a hooks.json, events in order.
func specJSON(t *testing.T, specs []hookSpec) string {
	t.Helper()
	var parts []string
	for _, s := range specs {
		b, err := json.Marshal(s.groups)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, strconv.Quote(s.event)+": "+string(b))
	}
	return `{"hooks": {` + strings.Join(parts, ", ") + `}}`
}

// specTOML writes specs as a config.toml with [[hooks.<Event>]] and
// [[hooks.<Event>.hooks]] tables after preamble (other settings).
func specTOML(t *testing.T, preamble string, specs []hookSpec) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(preamble)
	for _, s := range specs {
		for _, g := range s.groups {
			fmt.Fprintf(&sb, "\n[[hooks.%s]]\n", s.event)
			if m, ok := g["matcher"]; ok {
				fmt.Fprintf(&sb, "matcher = %s\n", tomlValue(t, m))
			}
			for _, h := range g["hooks"].([]map[string]any) {
				fmt.Fprintf(&sb, "[[hooks.%s.hooks]]\n", s.event)
				keys := make([]string, 0, len(h))
				for k := range h {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					fmt.Fprintf(&sb, "%s = %s\n", k, tomlValue(t, h[k]))
				}
			}
		}
	}
	return sb.String()
}

func tomlValue(t *testing.T, v any) string {
	switch v := v.(type) {
	case string:
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
		return `"` + r.Replace(v) + `"`
	case int:
		return strconv.Itoa(v)
	case float64:
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case bool:
		return strconv.FormatBool(v)
	}
	t.Fatalf("no TOML form for %T", v)
	return ""
}

// describeFile lists what parsing kept: each handler and each problem.
func describeFile(f *hookFile) []string {
	var out []string
	for _, h := range f.all {
		out = append(out, fmt.Sprintf("%s[%d][%d] matcher=%q command=%q timeout=%s status=%q", h.event, h.group, h.index, h.matcher.raw, h.command, h.timeout, h.status))
	}
	return append(out, f.problems...)
}

// TestTOMLParsesLikeJSON: the same hooks written in both forms give the
// same handlers, timeouts, skipped groups and handlers, and notes.
func TestTOMLParsesLikeJSON(t *testing.T) {
	specs := []hookSpec{
		{"PreToolUse", []map[string]any{
			group("^Bash$",
				cmdHandler("a", "timeout", 30, "statusMessage", "checking"),
				map[string]any{"type": "prompt", "prompt": "x"},
				cmdHandler("  "),
				cmdHandler("b", "async", true),
				cmdHandler("c", "timeout_sec", 5),
				cmdHandler("d", "timeout", 0.5),
				map[string]any{"type": "mcp_tool", "server": "s"},
				map[string]any{"type": "weird", "command": "x"},
				map[string]any{"command": "untyped"},
			),
			group("(bad", cmdHandler("e")),
			group("Edit|Write", cmdHandler("f", "timeout", 1e7)),
		}},
		{"PostCompact", []map[string]any{group("", cmdHandler("g"))}},
		{"SessionEnd", []map[string]any{group("", cmdHandler("h", "timeout", 60), cmdHandler("i"))}},
		{"Stop", []map[string]any{group("ignored", cmdHandler("j")), group("")}},
	}
	js := parseFile("/p/hooks", []byte(specJSON(t, specs)))
	tm := parseTOMLFile("/p/hooks", []byte(specTOML(t, "model = \"gpt-5-codex\"\n", specs)))
	want := describeFile(js)
	if len(js.all) != 10 || len(js.problems) != 5 || !js.declared {
		t.Fatalf("the hooks.json itself parsed to %q", want)
	}
	// A decoded TOML table has no key order: events come in Codex's
	// order rather than the file's (groups and handlers keep theirs, and
	// each line names its position), so the lists are compared sorted.
	if diff := cmp.Diff(want, describeFile(tm), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("config.toml vs hooks.json (-json +toml):\n%s", diff)
	}
	if !tm.declared {
		t.Error("the config.toml declares no hooks")
	}
}

// TestEntryProblemsSkipOnlyTheEntry: a bad entry of a file that parses
// (an unknown event, an entry of the wrong shape, a field of the wrong
// type) is reported with the file and the entry, and skipped alone: the
// good hooks of the same file still load, in both forms.
func TestEntryProblemsSkipOnlyTheEntry(t *testing.T) {
	const goodJSON = `"PreToolUse": [{"hooks": [{"command": "good"}]}]`
	const goodTOML = "[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ncommand = \"good\"\n"
	cases := []struct {
		name, json, toml, want string
	}{
		{"unknown event", `"Notification": [{"hooks": [{"command": "a"}]}]`,
			"[[hooks.Notification]]\n[[hooks.Notification.hooks]]\ncommand = \"a\"\n", `hooks.Notification: unknown event`},
		{"event not a list", `"Stop": {"hooks": []}`, "[hooks.Stop]\nhooks = []\n", "hooks.Stop must be"},
		{"group not an object", `"Stop": ["x"]`, "[hooks]\nStop = [\"x\"]\n", "hooks.Stop[0] must be"},
		{"group hooks not a list", `"Stop": [{"hooks": {}}]`, "[[hooks.Stop]]\nhooks = {}\n", `"hooks" must be a list`},
		{"matcher not a string", `"Stop": [{"matcher": 1, "hooks": []}]`, "[[hooks.Stop]]\nmatcher = 1\n", `"matcher" must be a string`},
		{"command not a string", `"Stop": [{"hooks": [{"command": 1}]}]`,
			"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = 1\n", `hooks.Stop[0].hooks[0]: a handler must be`},
		{"timeout not a number", `"Stop": [{"hooks": [{"command": "a", "timeout": "30"}]}]`,
			"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"a\"\ntimeout = \"30\"\n", `"timeout" must be a number`},
		{"async not a boolean", `"Stop": [{"hooks": [{"command": "a", "async": "yes"}]}]`,
			"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"a\"\nasync = \"yes\"\n", `"async" must be a boolean`},
		{"bad matcher", `"Stop": [{"matcher": "(", "hooks": [{"command": "a"}]}]`,
			"[[hooks.Stop]]\nmatcher = \"(\"\n[[hooks.Stop.hooks]]\ncommand = \"a\"\n", `hooks.Stop[0]: invalid matcher "("`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			js := parseFile("/p/hooks.json", []byte(`{"hooks": {`+c.json+`, `+goodJSON+`}}`))
			tm := parseTOMLFile("/p/config.toml", []byte(c.toml+goodTOML))
			for _, f := range []*hookFile{js, tm} {
				if len(f.all) != 1 || f.all[0].command != "good" || len(f.problems) != 1 || !strings.Contains(f.problems[0], c.want) ||
					!strings.Contains(f.problems[0], "skipped") || !strings.HasPrefix(f.problems[0], f.path+": ") {
					t.Errorf("%s: handlers %d, problems %q; want the good hook kept and one problem with %q", f.path, len(f.all), f.problems, c.want)
				}
			}
		})
	}
	// TOML values JSON has no form for are the wrong type where a field
	// is expected, and ignored elsewhere.
	for doc, want := range map[string]string{
		"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"a\"\ntimeout = inf\n":                 `"timeout" must be a number`,
		"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = 1979-05-27\n":                           `"command" must be a string`,
		"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"a\"\nstatusMessage = 07:00:00\n":      `"statusMessage" must be a string`,
		"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"a\"\nnote = nan\nwhen = 2026-01-01\n": "",
		"hooks = [1]\n":            "hooks must be a table of events",
		"[[hooks]]\nStop = []\n":   "hooks must be a table of events",
		"hooks.Stop = \"never\"\n": "hooks.Stop must be an array of tables ([[hooks.Stop]])",
		"[hooks]\nstate = 1\n":     "",
		"[hooks.state.x]\ny = 1\n": "",
	} {
		f := parseTOMLFile("/p/config.toml", []byte(doc))
		if want == "" && len(f.problems) != 0 || want != "" && (len(f.problems) != 1 || !strings.Contains(f.problems[0], want)) {
			t.Errorf("%q: problems %q, want %q", doc, f.problems, want)
		}
	}
}

// runForms runs seam with the same hooks written as an explicit
// hooks.json and as an explicit config.toml.
func runForms(t *testing.T, specs []hookSpec, seam hooks.Event, tweak func(*hooks.Input)) (js, tm hooks.Decision, jsFail, tmFail []string) {
	t.Helper()
	dir := t.TempDir()
	jsPath, tmPath := filepath.Join(dir, "hooks.json"), filepath.Join(dir, "config.toml")
	writeFile(t, jsPath, specJSON(t, specs))
	writeFile(t, tmPath, specTOML(t, "model = \"gpt-5-codex\"\n[mcp_servers.x]\ncommand = \"x\"\n", specs))
	run := func(path string) (hooks.Decision, []string) {
		e := newEnv(t, envOpts{path: path})
		in := e.baseInput(seam)
		if tweak != nil {
			tweak(in)
		}
		d, failures := e.run(in)
		if p := e.bridge.Problems(); len(p) != 0 {
			t.Errorf("%s: problems %q", path, p)
		}
		return d, failures
	}
	js, jsFail = run(jsPath)
	tm, tmFail = run(tmPath)
	return js, tm, jsFail, tmFail
}

// TestTOMLRunsLikeJSON: on every seam, hooks declared in a config.toml
// decide exactly as the same hooks in a hooks.json.
func TestTOMLRunsLikeJSON(t *testing.T) {
	cmd := func(form, event string, fields ...any) map[string]any {
		return cmdHandler(emit(t, form, event), fields...)
	}
	specs := []hookSpec{
		{"SessionStart", []map[string]any{group("startup", cmd("context", "SessionStart")), group("resume", cmd("block", "SessionStart"))}},
		{"UserPromptSubmit", []map[string]any{group("", cmd("context", "UserPromptSubmit"), cmd("block", "UserPromptSubmit"))}},
		{"PreToolUse", []map[string]any{
			group("Bash", cmd("allow-updated", "PreToolUse"), cmd("ask", "PreToolUse")),
			group("^Ba", cmd("deny", "PreToolUse", "timeout", 30)),
			group("Edit|Write", cmd("exit2", "PreToolUse")),
		}},
		{"PermissionRequest", []map[string]any{group("Bash", cmd("perm-deny", "PermissionRequest"))}},
		{"PostToolUse", []map[string]any{group("Bash", cmd("block", "PostToolUse"), cmd("context", "PostToolUse"))}},
		{"Stop", []map[string]any{group("", cmd("block", "Stop"), cmd("text", "Stop"))}},
		{"SubagentStart", []map[string]any{group("general-purpose", cmd("context", "SubagentStart"))}},
		{"SubagentStop", []map[string]any{group("", cmd("block", "SubagentStop"))}},
		{"PreCompact", []map[string]any{group("manual", cmd("continue-false", "PreCompact"))}},
		{"PostCompact", []map[string]any{group("", cmd("continue-false", "PostCompact"))}},
		{"SessionEnd", []map[string]any{group("", cmd("sysmsg", "SessionEnd", "timeout", 2))}},
		{"Interrupt", []map[string]any{group("", cmd("sysmsg", "Interrupt"))}},
	}
	for _, seam := range seams {
		t.Run(string(seam), func(t *testing.T) {
			js, tm, jsFail, tmFail := runForms(t, specs, seam, nil)
			if diff := cmp.Diff(js, tm); diff != "" {
				t.Errorf("decision (-hooks.json +config.toml):\n%s", diff)
			}
			if diff := cmp.Diff(jsFail, tmFail); diff != "" {
				t.Errorf("failures (-hooks.json +config.toml):\n%s", diff)
			}
			if cmp.Equal(tm, hooks.Decision{}) {
				t.Error("no hook decided anything: the comparison proves nothing")
			}
		})
	}
	// The comparison is not vacuous: the TOML hooks decide what the
	// scripts say.
	_, tm, _, tmFail := runForms(t, specs, hooks.PreToolUse, nil)
	if tm.Permission != hooks.Deny || tm.Reason != "no rm please" || len(tmFail) != 1 {
		t.Errorf("PreToolUse from config.toml: %+v, failures %q", tm, tmFail)
	}
	_, tm, _, _ = runForms(t, specs, hooks.PreToolUse, func(in *hooks.Input) {
		in.ToolName, in.ToolInput = "Write", json.RawMessage(`{"file_path":"/nonexistent/x","content":"y"}`)
	})
	if tm.Permission != hooks.Deny || tm.Reason != "stderr reason" {
		t.Errorf("PreToolUse Write from config.toml: %+v", tm)
	}
	_, tm, _, tmFail = runForms(t, specs, hooks.Stop, nil)
	if !tm.Block || tm.Reason != "blocked because" || len(tmFail) != 1 {
		t.Errorf("Stop from config.toml: %+v, failures %q", tm, tmFail)
	}
}

// logRecorder keeps the messages logged at warning level and above.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

func (r *logRecorder) count(sub string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.msgs {
		if strings.Contains(m, sub) {
			n++
		}
	}
	return n
}

func (e *env) userTOML() string    { return filepath.Join(e.home, ".codex", "config.toml") }
func (e *env) projectTOML() string { return filepath.Join(e.cwd, ".codex", "config.toml") }

// codexConfigPreamble is a hand-written fixture in the shape of a real
// Codex config.toml (settings other than hooks, and the trust records
// Codex keeps under [hooks.state]); it is not copied from anyone's file.
const codexConfigPreamble = `model = "gpt-5-codex"
approval_policy = "on-request"
notify = ["python3", "/home/dev/.codex/notify.py"]
developer_instructions = """
Keep commits small.\
"""

[profiles.fast]
model = "gpt-5-mini"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_example" }

[projects."/home/dev/src"]
trust_level = "trusted"

[notice]
seen_at = 2026-05-29T10:00:00Z

[hooks.state."/home/dev/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:0f1e2d3c"
`

// TestTOMLBothFormsInOneLayer: a layer with hooks in both its hooks.json
// and its config.toml runs both, hooks.json first, and warns (logged
// once); Codex's [hooks.state] alone does not count as hooks.
func TestTOMLBothFormsInOneLayer(t *testing.T) {
	rec := &logRecorder{}
	e := newEnv(t, envOpts{logger: slog.New(rec)})
	slow := filepath.Join(testdataDir(t), "slow.sh")
	stop := func(delay, text string) []hookSpec {
		return []hookSpec{{"Stop", []map[string]any{group("", cmdHandler("sh "+slow+" "+delay+" "+text))}}}
	}
	writeFile(t, e.userFile(), specJSON(t, stop("0.3", "from-json")))
	writeFile(t, e.userTOML(), codexConfigPreamble)

	// Only [hooks.state] in config.toml: no hooks there, no warning.
	d, failures := e.run(e.baseInput(hooks.Stop))
	if !d.Block || d.Reason != "from-json" || len(failures) != 0 || len(e.bridge.Problems()) != 0 || rec.count("both") != 0 {
		t.Fatalf("decision %+v, failures %q, problems %q, log %q", d, failures, e.bridge.Problems(), rec.msgs)
	}

	writeFile(t, e.userTOML(), specTOML(t, codexConfigPreamble, stop("0", "from-toml")))
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(e.userTOML(), future, future)
	d, _ = e.run(e.baseInput(hooks.Stop))
	if !d.Block || d.Reason != "from-json\n\nfrom-toml" {
		t.Errorf("decision %+v, want both files' blocks, hooks.json first", d)
	}
	e.run(e.baseInput(hooks.Stop))
	warning := "loading hooks from both " + e.userFile()
	if n := rec.count(warning); n != 1 {
		t.Errorf("the warning was logged %d times, want once: %q", n, rec.msgs)
	}
	if p := e.bridge.Problems(); len(p) != 1 || !strings.HasPrefix(p[0], e.userTOML()+": "+warning) {
		t.Errorf("Problems() = %q", p)
	}
	doc := e.bridge.Doctor(e.cwd)
	if len(doc) != 2 || doc[0] != "✓ Codex hooks "+e.userFile()+" (1 hooks)" || !strings.HasPrefix(doc[1], "✗ Codex hooks "+e.userTOML()+": "+warning) {
		t.Errorf("Doctor = %q", doc)
	}

	// An empty hooks.json: no warning any more.
	writeFile(t, e.userFile(), `{"hooks": {}}`)
	os.Chtimes(e.userFile(), future, future)
	if d, _ = e.run(e.baseInput(hooks.Stop)); d.Reason != "from-toml" || len(e.bridge.Problems()) != 0 {
		t.Errorf("decision %+v, problems %q", d, e.bridge.Problems())
	}
}

// TestTOMLProjectNeedsTrust: hooks in <cwd>/.codex/config.toml are
// project hooks: skipped and reported until `cordis hooks trust`, which
// finds the file through Discover; an edit needs trust again.
func TestTOMLProjectNeedsTrust(t *testing.T) {
	e := newEnv(t, envOpts{})
	blocker := emit(t, "block", "UserPromptSubmit")
	specs := []hookSpec{{"UserPromptSubmit", []map[string]any{group("", cmdHandler(blocker))}}}
	writeFile(t, e.projectTOML(), specTOML(t, codexConfigPreamble, specs))

	d, _ := e.run(e.baseInput(hooks.UserPromptSubmit))
	if d.Block {
		t.Fatal("an untrusted project config.toml hook ran")
	}
	if len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "not trusted") || !strings.Contains(d.SystemMessages[0], e.projectTOML()) ||
		!strings.Contains(d.SystemMessages[0], "cordis hooks trust --cwd "+e.cwd) {
		t.Errorf("report = %q", d.SystemMessages)
	}
	if p := e.bridge.Problems(); len(p) != 1 || !strings.HasPrefix(p[0], e.projectTOML()+": skipped, not trusted: UserPromptSubmit: "+blocker) {
		t.Errorf("Problems() = %q", p)
	}

	found := Discover(e.cwd)
	if len(found) != 1 || found[0].Path != e.projectTOML() || len(found[0].Hooks) != 1 || found[0].Hooks[0].Command != blocker || len(found[0].Problems) != 0 {
		t.Fatalf("Discover = %+v", found)
	}
	if err := e.store.Trust(found[0]); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.run(e.baseInput(hooks.UserPromptSubmit)); !d.Block || d.Reason != "blocked because" {
		t.Errorf("after trust: %+v", d)
	}

	// Editing the command makes it untrusted again.
	edited := emit(t, "exit2", "UserPromptSubmit")
	writeFile(t, e.projectTOML(), specTOML(t, codexConfigPreamble, []hookSpec{{"UserPromptSubmit", []map[string]any{group("", cmdHandler(edited))}}}))
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(e.projectTOML(), future, future)
	if d, _ := e.run(e.baseInput(hooks.UserPromptSubmit)); d.Block || len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "changed since it was trusted") {
		t.Errorf("after the edit: %+v", d)
	}

	// Both project files are listed, each with its own hooks; the
	// both-forms warning is on the config.toml.
	writeFile(t, e.projectFile(), hooksJSON("Stop", "", "./stop.sh"))
	found = Discover(e.cwd)
	if len(found) != 2 || found[0].Path != e.projectFile() || found[1].Path != e.projectTOML() ||
		len(found[0].Hooks) != 1 || len(found[1].Hooks) != 1 || len(found[1].Problems) != 1 || !strings.Contains(found[1].Problems[0], "loading hooks from both") {
		t.Errorf("Discover = %+v", found)
	}
}

// TestTOMLWithoutHooks: a config.toml without [hooks] (or with only
// Codex's [hooks.state]) contributes nothing and says nothing.
func TestTOMLWithoutHooks(t *testing.T) {
	e := newEnv(t, envOpts{})
	writeFile(t, e.userTOML(), codexConfigPreamble)
	writeFile(t, e.projectTOML(), "model = \"o3\"\n[profiles.x]\nmodel = \"y\"\n")
	d, failures := e.run(e.baseInput(hooks.UserPromptSubmit))
	if !cmp.Equal(d, hooks.Decision{}) || len(failures) != 0 {
		t.Errorf("decision %+v, failures %q", d, failures)
	}
	if p := e.bridge.Problems(); len(p) != 0 {
		t.Errorf("Problems() = %q", p)
	}
	if doc := e.bridge.Doctor(e.cwd); len(doc) != 0 {
		t.Errorf("Doctor = %q", doc)
	}
	if found := Discover(e.cwd); len(found) != 0 {
		t.Errorf("Discover = %+v", found)
	}
}

// TestTOMLBrokenSkipped: a config.toml that is not valid TOML is reported
// with its line and column, its hooks are skipped, and the other files
// still run.
func TestTOMLBrokenSkipped(t *testing.T) {
	rec := &logRecorder{}
	e := newEnv(t, envOpts{logger: slog.New(rec)})
	writeFile(t, e.userFile(), hooksJSON("UserPromptSubmit", "", emit(t, "sysmsg", "UserPromptSubmit")))
	broken := "model = \"gpt-5\"\n\n[profiles.fast]\nmodel = \"gpt-5-mini\n" +
		"[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ncommand = \"" + emit(t, "block", "UserPromptSubmit") + "\"\n"
	writeFile(t, e.userTOML(), broken)
	writeFile(t, e.projectTOML(), "[hooks]\nStop = [\n")

	d, failures := e.run(e.baseInput(hooks.UserPromptSubmit))
	want := []string{
		e.userTOML() + ":4:20: basic strings cannot have new lines",
		e.projectTOML() + ":2:9: array is incomplete",
	}
	p := e.bridge.Problems()
	if len(p) != 2 || !strings.HasPrefix(p[0], want[0]) || !strings.HasPrefix(p[1], want[1]) || !strings.HasSuffix(p[0], "its hooks are ignored") {
		t.Fatalf("Problems() = %q, want %q...", p, want)
	}
	// The user is told of both files, once; the user's hooks.json runs.
	told := []string{trust.ProblemNotice(Dialect, p[0]), trust.ProblemNotice(Dialect, p[1]), "note for the user"}
	if diff := cmp.Diff(hooks.Decision{SystemMessages: told}, d); diff != "" || len(failures) != 0 {
		t.Errorf("decision (-want +got):\n%s\nfailures %q", diff, failures)
	}
	if rec.count(want[0]) != 1 {
		t.Errorf("log %q", rec.msgs)
	}
	if found := Discover(e.cwd); len(found) != 1 || found[0].Path != e.projectTOML() || len(found[0].Hooks) != 0 ||
		len(found[0].Problems) != 1 || !strings.HasPrefix(found[0].Problems[0], want[1]) {
		t.Errorf("Discover = %+v", found)
	}
}

// TestTOMLExplicitPath: Config.Path ending in .toml is read as a
// config.toml, whatever else is there; any other name as a hooks.json.
func TestTOMLExplicitPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team-hooks.TOML")
	specs := []hookSpec{{"PreToolUse", []map[string]any{group("Bash", cmdHandler(emit(t, "deny", "PreToolUse"), "timeout", 10))}}}
	writeFile(t, path, specTOML(t, codexConfigPreamble, specs))
	e := newEnv(t, envOpts{path: path})
	writeFile(t, e.userFile(), hooksJSON("PreToolUse", "", emit(t, "sysmsg", "PreToolUse")))
	d, failures := e.run(e.baseInput(hooks.PreToolUse))
	if diff := cmp.Diff(hooks.Decision{Permission: hooks.Deny, Reason: "no rm please"}, d); diff != "" || len(failures) != 0 {
		t.Errorf("decision (-want +got):\n%s\nfailures %q", diff, failures)
	}
	if doc := e.bridge.Doctor(e.cwd); len(doc) != 1 || doc[0] != "✓ Codex hooks "+path+" (1 hooks)" {
		t.Errorf("Doctor = %q", doc)
	}

	// An explicit config.toml without hooks is still checked by Doctor.
	empty := filepath.Join(dir, "config.toml")
	writeFile(t, empty, codexConfigPreamble)
	if doc := newEnv(t, envOpts{path: empty}).bridge.Doctor(e.cwd); len(doc) != 1 || doc[0] != "✓ Codex hooks "+empty+" (0 hooks)" {
		t.Errorf("Doctor = %q", doc)
	}

	// The same TOML under another name is a (malformed) hooks.json.
	asJSON := filepath.Join(dir, "hooks.conf")
	writeFile(t, asJSON, specTOML(t, "", specs))
	e = newEnv(t, envOpts{path: asJSON})
	if d, _ := e.run(e.baseInput(hooks.PreToolUse)); d.Permission != "" {
		t.Errorf("decision %+v", d)
	}
	if p := e.bridge.Problems(); len(p) != 1 || !strings.Contains(p[0], "not a valid hooks.json") {
		t.Errorf("Problems() = %q", p)
	}
}
