package permrules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/google/go-cmp/cmp"
)

func bashInput(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

func urlInput(u string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"url": u, "prompt": "p"})
	return b
}

func fileInput(path string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"file_path": path})
	return b
}

func TestScopeOf(t *testing.T) {
	tests := []struct {
		tool  string
		input json.RawMessage
		want  *Scope // nil: no always option
	}{
		// A prefix where Claude Code derives one: the program and its
		// subcommand.
		{"Bash", bashInput("echo first"), &Scope{"Bash(echo:*)", "`echo:*`"}},
		{"Bash", bashInput("npm run test -- --watch"), &Scope{"Bash(npm run test:*)", "`npm run test:*`"}},
		{"Bash", bashInput("git diff HEAD~1"), &Scope{"Bash(git diff:*)", "`git diff:*`"}},
		{"Bash", bashInput("git push origin main"), &Scope{"Bash(git push:*)", "`git push:*`"}},
		{"Bash", bashInput("go test ./..."), &Scope{"Bash(go test:*)", "`go test:*`"}},
		{"Bash", bashInput("pytest tests/a.py"), &Scope{"Bash(pytest:*)", "`pytest:*`"}},
		{"Bash", bashInput("  ls -la  "), &Scope{"Bash(ls:*)", "`ls:*`"}},
		// The exact command when the prefix would be all of it.
		{"Bash", bashInput("npm run test"), &Scope{"Bash(npm run test)", "`npm run test`"}},
		{"Bash", bashInput("git push"), &Scope{"Bash(git push)", "`git push`"}},
		// Compound, substituting, redirecting: the exact command only.
		{"Bash", bashInput("make && make test"), &Scope{"Bash(make && make test)", "`make && make test`"}},
		{"Bash", bashInput("echo first; touch second-unasked.txt"), &Scope{"Bash(echo first; touch second-unasked.txt)", "`echo first; touch second-unasked.txt`"}},
		{"Bash", bashInput("git log | head"), &Scope{"Bash(git log | head)", "`git log | head`"}},
		{"Bash", bashInput("echo $(id)"), &Scope{"Bash(echo $(id))", "`echo $(id)`"}},
		{"Bash", bashInput("echo `id`"), &Scope{"Bash(echo `id`)", "this exact command"}},
		{"Bash", bashInput("echo hi > out.txt"), &Scope{"Bash(echo hi > out.txt)", "`echo hi > out.txt`"}},
		{"Bash", bashInput("FOO=1 make build"), &Scope{"Bash(FOO=1 make build)", "`FOO=1 make build`"}},
		// Programs that run or overwrite whatever their arguments say.
		{"Bash", bashInput("rm -rf build"), &Scope{"Bash(rm -rf build)", "`rm -rf build`"}},
		{"Bash", bashInput("python3 -c 'print(1)'"), &Scope{"Bash(python3 -c 'print(1)')", "`python3 -c 'print(1)'`"}},
		{"Bash", bashInput("sudo apt install x"), &Scope{"Bash(sudo apt install x)", "`sudo apt install x`"}},
		{"Bash", bashInput("find . -delete"), &Scope{"Bash(find . -delete)", "`find . -delete`"}},
		// No scope narrow enough to offer.
		{"Bash", bashInput("echo ok\ntouch hidden.txt"), nil},
		{"Bash", bashInput("rm *.o && make"), nil},
		{"Bash", bashInput(""), nil},
		// A fetch: its host.
		{"WebFetch", urlInput("https://Docs.Example.com:8443/a?b"), &Scope{"WebFetch(domain:docs.example.com)", "fetches from `docs.example.com`"}},
		{"WebFetch", urlInput("ftp://example.com/"), nil},
		{"NotebookEdit", json.RawMessage(`{"notebook_path":"/w/nb/a.ipynb"}`), &Scope{"Edit(/nb/a.ipynb)", "edits to `nb/a.ipynb`"}},
		// Files: the file, anchored at the project, or absolute outside it.
		{"Edit", fileInput("/w/src/main.go"), &Scope{"Edit(/src/main.go)", "edits to `src/main.go`"}},
		{"Write", fileInput("notes/new.md"), &Scope{"Edit(/notes/new.md)", "edits to `notes/new.md`"}},
		{"Write", fileInput("/etc/hosts"), &Scope{"Edit(//etc/hosts)", "edits to `/etc/hosts`"}},
		{"Edit", fileInput("/w/a[1]*.go"), &Scope{`Edit(/a\[1]\*.go)`, "edits to `a[1]*.go`"}},
		{"Edit", fileInput(""), nil},
		// MCP: the tool.
		{"mcp__notes__write_note", json.RawMessage(`{"note":"x"}`), &Scope{"mcp__notes__write_note", "`mcp__notes__write_note`"}},
		{"Read", fileInput("/w/a.go"), nil},
		{"Task", json.RawMessage(`{}`), nil},
	}
	for _, tt := range tests {
		got, ok := ScopeOf(tt.tool, tt.input, "/w")
		var gotp *Scope
		if ok {
			gotp = &got
		}
		if diff := cmp.Diff(tt.want, gotp); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.tool, tt.input, diff)
		}
	}
}

// Allowing `echo first` with "Always allow" must not allow
// `touch second-unasked.txt`, nor smuggle anything in behind echo.
func TestPrefixRulesCoverOnlyTheirCommand(t *testing.T) {
	rule := func(text string) Rule {
		r, err := Parse(text, "/w")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		rule, command string
		permits       bool
	}{
		{"Bash(echo:*)", "echo second", true},
		{"Bash(echo:*)", "echo", true},
		{"Bash(echo:*)", "touch second-unasked.txt", false},
		{"Bash(echo:*)", "echofoo", false},
		{"Bash(echo:*)", "echo a; touch b", false},
		{"Bash(echo:*)", "echo a && echo b", true},
		{"Bash(echo:*)", "echo hi > ~/.bashrc", false},
		{"Bash(echo:*)", "echo $(touch x)", false},
		{"Bash(echo:*)", "echo `touch x`", false},
		{"Bash(npm run test:*)", "npm run test -- -v", true},
		{"Bash(npm run test:*)", "npm run test-all", false},
		{"Bash(ls *)", "ls", true},
		{"Bash(ls *)", "lsof", false},
		{"Bash(ls*)", "lsof", true},
		{"Bash(make && make test)", "make && make test", true},
		{"Bash(make && make test)", "make", false},
		{"Bash(echo hi > out.txt)", "echo hi > out.txt", true},
		{"Bash(git * main:*)", "git push main -f", true},
	}
	for _, tt := range tests {
		_, got := Matcher{}.Permits([]Rule{rule(tt.rule)}, NewCall("Bash", bashInput(tt.command), "/w"))
		if got != tt.permits {
			t.Errorf("%s permits %q = %v, want %v", tt.rule, tt.command, got, tt.permits)
		}
	}
	// A deny or ask rule restricts when it matches any part.
	if _, ok := (Matcher{}).Restricts([]Rule{rule("Bash(touch:*)")}, NewCall("Bash", bashInput("echo a; touch b"), "/w")); !ok {
		t.Error("Bash(touch:*) does not restrict `echo a; touch b`")
	}
}

func TestToolAndPathRules(t *testing.T) {
	m := Matcher{Home: "/home/u"}
	tests := []struct {
		rule, anchor, tool string
		input              json.RawMessage
		want               bool
	}{
		{"mcp__notes__write_note", "", "mcp__notes__write_note", nil, true},
		{"mcp__notes__write_note", "", "mcp__notes__read_note", nil, false},
		{"mcp__notes", "", "mcp__notes__read_note", nil, true},
		{"mcp__notes__*", "", "mcp__notes__read_note", nil, true},
		{"mcp__notes", "", "mcp__notesx__read", nil, false},
		// "/p" starts at the settings file's anchor, "//p" at the root;
		// without an anchor (cordis.yml) "/p" is absolute.
		{"Edit(/src/**)", "/proj", "Edit", fileInput("/proj/src/a.go"), true},
		{"Edit(/src/**)", "/proj", "Write", fileInput("/src/a.go"), false},
		{"Edit(/src/**)", "", "Edit", fileInput("/src/a.go"), true},
		{"Edit(//etc/**)", "/proj", "Write", fileInput("/etc/passwd"), true},
		{"Edit(~/notes/*)", "/proj", "Edit", fileInput("/home/u/notes/a.md"), true},
		{`Edit(/a\[1]\*.go)`, "/proj", "Edit", fileInput("/proj/a[1]*.go"), true},
		{`Edit(/a\[1]\*.go)`, "/proj", "Edit", fileInput("/proj/a1x.go"), false},
		// Edit(...) covers NotebookEdit, whose path is notebook_path.
		{"Edit(/nb/**)", "/proj", "NotebookEdit", json.RawMessage(`{"notebook_path":"/proj/nb/a.ipynb"}`), true},
		{"Edit(/nb/**)", "/proj", "NotebookEdit", json.RawMessage(`{"notebook_path":"/proj/other/a.ipynb"}`), false},
		{"NotebookEdit(/nb/**)", "/proj", "NotebookEdit", json.RawMessage(`{"notebook_path":"/proj/nb/a.ipynb"}`), true},
		// WebFetch(domain:host) is that host; domain:*.host its subdomains.
		{"WebFetch(domain:example.com)", "", "WebFetch", urlInput("https://example.com/docs"), true},
		{"WebFetch(domain:example.com)", "", "WebFetch", urlInput("http://EXAMPLE.com:8080/"), true},
		{"WebFetch(domain:example.com)", "", "WebFetch", urlInput("https://docs.example.com/"), false},
		{"WebFetch(domain:example.com)", "", "WebFetch", urlInput("https://example.com.evil.io/"), false},
		{"WebFetch(domain:example.com)", "", "WebFetch", urlInput("https://evil.io/?u=https://example.com/"), false},
		{"WebFetch(domain:*.example.com)", "", "WebFetch", urlInput("https://docs.example.com/x"), true},
		{"WebFetch(domain:*.example.com)", "", "WebFetch", urlInput("https://badexample.com/"), false},
		{"WebFetch(domain:example.com)", "", "WebFetch", urlInput("file:///etc/passwd"), false},
		{"WebFetch", "", "WebFetch", urlInput("https://anything.io/"), true},
		{"WebFetch(*)", "", "WebFetch", urlInput("https://anything.io/"), true},
	}
	for _, tt := range tests {
		r, err := Parse(tt.rule, tt.anchor)
		if err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		if _, got := m.Permits([]Rule{r}, NewCall(tt.tool, tt.input, "/proj")); got != tt.want {
			t.Errorf("%s (anchor %q) permits %s %s = %v, want %v", tt.rule, tt.anchor, tt.tool, tt.input, got, tt.want)
		}
	}
}

func TestSaveAllowRule(t *testing.T) {
	dir := t.TempDir()
	path, err := SaveAllowRule(dir, LocalSettings, "Bash(npm run test:*)")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, ".claude", "settings.local.json") {
		t.Errorf("path = %s", path)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v, mode %v; want 0600", err, fi.Mode())
	}
	if got, want := readString(t, path), "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm run test:*)\"\n    ]\n  }\n}\n"; got != want {
		t.Errorf("new file:\n%s\nwant:\n%s", got, want)
	}

	// Other keys stay, in their order; the mode stays; no HTML escaping.
	os.WriteFile(path, []byte(`{"model": "opus", "permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read"], "defaultMode": "default"}, "hooks": {"Stop": []}}`), 0o644)
	os.Chmod(path, 0o644)
	if _, err := SaveAllowRule(dir, LocalSettings, "Bash(make && make test)"); err != nil {
		t.Fatal(err)
	}
	want := `{
  "model": "opus",
  "permissions": {
    "deny": [
      "Bash(rm:*)"
    ],
    "allow": [
      "Read",
      "Bash(make && make test)"
    ],
    "defaultMode": "default"
  },
  "hooks": {
    "Stop": []
  }
}
`
	if got := readString(t, path); got != want {
		t.Errorf("merged file:\n%s\nwant:\n%s", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want the file's own 0644", fi.Mode())
	}
	// Saving it again changes nothing.
	before, _ := os.Stat(path)
	if _, err := SaveAllowRule(dir, LocalSettings, "Bash(make && make test)"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(before.ModTime()) || readString(t, path) != want {
		t.Error("saving a rule that is there rewrote the file")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf(".claude holds %d entries, want the settings file only (no temporary file left)", len(entries))
	}

	// A file that is not JSON is left alone.
	os.WriteFile(path, []byte(`{"permissions": {`), 0o644)
	if _, err := SaveAllowRule(dir, LocalSettings, "Read"); err == nil || readString(t, path) != `{"permissions": {` {
		t.Errorf("broken file: err %v, content %q", err, readString(t, path))
	}
}

// A .claude that links out of the project is not written through.
func TestSaveAllowRuleStaysInTheProject(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, ".claude")); err != nil {
		t.Skip(err)
	}
	if _, err := SaveAllowRule(dir, LocalSettings, "Bash(ls:*)"); err == nil {
		t.Error("saved through a symbolic link out of the project")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote %v outside the project", entries)
	}
	if _, _, err := ReadProjectFile(dir, LocalSettings); err == nil {
		t.Error("read through a symbolic link out of the project")
	}
}

func TestTrust(t *testing.T) {
	dir := t.TempDir()
	tr := Trust{Store: trust.Open(t.TempDir()), Files: testFiles}
	local := filepath.Join(dir, LocalSettings)
	os.MkdirAll(filepath.Dir(local), 0o755)
	// A rule planted by the repository is not trusted.
	os.WriteFile(local, []byte(`{"permissions": {"allow": ["Bash(touch:*)"]}}`), 0o644)
	if tr.Trusted(local, "Bash(touch:*)") {
		t.Fatal("a planted rule is trusted")
	}
	// An answer saves and trusts its rule, leaving the planted one alone.
	if err := tr.SaveAllow(dir, "Bash(echo:*)"); err != nil {
		t.Fatal(err)
	}
	if !tr.Trusted(local, "Bash(echo:*)") || tr.Trusted(local, "Bash(touch:*)") {
		t.Errorf("after SaveAllow: echo trusted %v, touch trusted %v", tr.Trusted(local, "Bash(echo:*)"), tr.Trusted(local, "Bash(touch:*)"))
	}
	// A second answer keeps the first one's trust.
	if err := tr.SaveAllow(dir, "Edit(/src/a.go)"); err != nil {
		t.Fatal(err)
	}
	if !tr.Trusted(local, "Bash(echo:*)") || !tr.Trusted(local, "Edit(/src/a.go)") {
		t.Error("a second answer dropped the trust of the first")
	}
	// The same rule in another file, or another project, is not trusted.
	if tr.Trusted(filepath.Join(dir, SharedSettings), "Bash(echo:*)") || tr.Trusted(filepath.Join(t.TempDir(), LocalSettings), "Bash(echo:*)") {
		t.Error("trust leaked to another file")
	}
	// Without a store nothing is trusted, and nothing can be recorded.
	if (Trust{}).Trusted(local, "Bash(echo:*)") || (Trust{}).Record(dir, LocalSettings, "Bash(echo:*)") == nil {
		t.Error("a missing store trusts or records")
	}

	// `cordis hooks trust` sees the project's allow rules.
	found := testFiles.Discover(dir)
	if len(found) != 1 || found[0].Path != local+"#permissions.allow" || len(found[0].Hooks) != 3 {
		t.Fatalf("Discover = %+v", found)
	}
	if err := tr.Store.Trust(found[0]); err != nil {
		t.Fatal(err)
	}
	if !tr.Trusted(local, "Bash(touch:*)") {
		t.Error("trusting the discovered rules did not trust the planted one")
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A project settings file that is a FIFO is refused, not waited on, both
// when rules are read and when an "Always allow" answer is saved.
func TestProjectSettingsFIFO(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, LocalSettings), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	if _, _, err := ReadProjectFile(dir, LocalSettings); err == nil {
		t.Error("a FIFO was read")
	}
	if _, err := SaveAllowRule(dir, LocalSettings, "Bash(ls:*)"); err == nil {
		t.Error("a rule was saved over a FIFO")
	}
}
