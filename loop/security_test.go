package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// secretText is the content of a file outside the session's directories.
const secretText = "TOP-SECRET-outside-the-session-7c1e"

// escapeFixture is a session cwd with ways out, an outside directory with
// a secret, and two directories the session may use besides its cwd.
type escapeFixture struct {
	cwd, outside, extra, added string
}

func newEscapeFixture(t *testing.T) escapeFixture {
	t.Helper()
	real := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	f := escapeFixture{cwd: real(), outside: real(), extra: real(), added: real()}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(f.outside, "secret.txt"), []byte(secretText+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(f.cwd, "inside.txt"), []byte("inside\n"), 0o644))
	must(os.WriteFile(filepath.Join(f.extra, "extra.txt"), []byte("from the configured extra directory\n"), 0o644))
	must(os.WriteFile(filepath.Join(f.added, "added.txt"), []byte("from the session's additional directory\n"), 0o644))
	must(os.Symlink(f.outside, filepath.Join(f.cwd, "escape")))                                // a directory link out
	must(os.Symlink(filepath.Join(f.outside, "secret.txt"), filepath.Join(f.cwd, "filelink"))) // a file link out
	must(os.MkdirAll(filepath.Join(f.cwd, "sub"), 0o755))
	must(os.Symlink("../../"+filepath.Base(f.outside), filepath.Join(f.cwd, "sub", "up"))) // a relative link out
	return f
}

// escapes are the ways out of the cwd for a path naming name in outside.
func (f escapeFixture) escapes(name string) map[string]string {
	return map[string]string{
		"absolute elsewhere":    filepath.Join(f.outside, name),
		"dotdot":                f.cwd + "/../" + filepath.Base(f.outside) + "/" + name,
		"relative dotdot":       "../" + filepath.Base(f.outside) + "/" + name,
		"directory symlink":     filepath.Join(f.cwd, "escape", name),
		"relative symlink":      filepath.Join(f.cwd, "sub", "up", name),
		"file symlink (secret)": filepath.Join(f.cwd, "filelink"),
	}
}

type toolCase struct {
	name, tool string
	input      map[string]any
	// allowed cases must succeed; the others must be refused as outside
	// the session's directories (or, for walks, find nothing outside).
	allowed, walk bool
}

func (f escapeFixture) toolCases() []toolCase {
	var cases []toolCase
	for how, p := range f.escapes("secret.txt") {
		cases = append(cases,
			toolCase{name: "Read " + how, tool: "Read", input: map[string]any{"file_path": p}},
			toolCase{name: "Edit " + how, tool: "Edit", input: map[string]any{"file_path": p, "old_string": "TOP", "new_string": "BOTTOM"}},
			toolCase{name: "Grep " + how, tool: "Grep", input: map[string]any{"pattern": "SECRET", "path": p, "output_mode": "content"}},
		)
	}
	for how, p := range f.escapes("new.txt") {
		if how == "file symlink (secret)" {
			p = filepath.Join(f.cwd, "filelink") // overwriting through the link
		}
		cases = append(cases, toolCase{name: "Write " + how, tool: "Write", input: map[string]any{"file_path": p, "content": "planted"}})
	}
	for how, p := range f.escapes("") {
		if how == "file symlink (secret)" {
			continue
		}
		cases = append(cases,
			toolCase{name: "Glob path " + how, tool: "Glob", input: map[string]any{"pattern": "*.txt", "path": p}},
			toolCase{name: "Grep directory " + how, tool: "Grep", input: map[string]any{"pattern": "SECRET", "path": p}},
		)
	}
	cases = append(cases,
		toolCase{name: "Glob absolute pattern", tool: "Glob", input: map[string]any{"pattern": f.outside + "/*.txt"}},
		toolCase{name: "Glob dotdot pattern", tool: "Glob", input: map[string]any{"pattern": "../" + filepath.Base(f.outside) + "/*.txt"}},
		toolCase{name: "Glob walk does not follow links out", tool: "Glob", input: map[string]any{"pattern": "**/*.txt"}, walk: true},
		toolCase{name: "Grep walk does not follow links out", tool: "Grep", input: map[string]any{"pattern": "SECRET", "output_mode": "content"}, walk: true},
		toolCase{name: "Grep glob with dotdot", tool: "Grep", input: map[string]any{"pattern": "SECRET", "glob": "../**/*.txt"}, walk: true},
		toolCase{name: "Read the configured extra directory", tool: "Read", input: map[string]any{"file_path": filepath.Join(f.extra, "extra.txt")}, allowed: true},
		toolCase{name: "Read an additional directory", tool: "Read", input: map[string]any{"file_path": filepath.Join(f.added, "added.txt")}, allowed: true},
		toolCase{name: "Write the configured extra directory", tool: "Write", input: map[string]any{"file_path": filepath.Join(f.extra, "written.txt"), "content": "ok"}, allowed: true},
		toolCase{name: "Read inside", tool: "Read", input: map[string]any{"file_path": filepath.Join(f.cwd, "inside.txt")}, allowed: true},
	)
	return cases
}

// Every file tool, called by the model through the real agent, is refused
// a path outside the session's cwd and extra directories (.., absolute
// elsewhere, symlinks out), with and without the editor's file system; the
// editor is never asked to read or write such a path, and nothing outside
// changes.
func TestFileToolsConfinedThroughTheAgent(t *testing.T) {
	for _, clientFS := range []bool{false, true} {
		t.Run(fmt.Sprintf("clientFS=%v", clientFS), func(t *testing.T) {
			f := newEscapeFixture(t)
			cases := f.toolCases()
			var blocks []looptest.Block
			for i, c := range cases {
				blocks = append(blocks, looptest.ToolUse(fmt.Sprintf("toolu_%02d", i), c.tool, c.input))
			}
			caps := acp.ClientCapabilities{}
			if clientFS {
				caps.FS = acp.FileSystemCapability{ReadTextFile: true, WriteTextFile: true}
			}
			h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass, Caps: caps, Config: func(c *loop.Config) { c.ExtraDirectories = []string{f.extra} }},
				looptest.StreamBlocks("tool_use", blocks...), looptest.ReplyText("done"))
			h.Cwd = f.cwd
			var fsPaths []string
			h.Editor.OnRequest = func(ctx context.Context, method string, params json.RawMessage) (any, error) {
				var p struct {
					Path    string `json:"path"`
					Content string `json:"content"`
				}
				json.Unmarshal(params, &p)
				fsPaths = append(fsPaths, method+" "+p.Path)
				switch method {
				case acp.MethodFSReadTextFile:
					data, err := os.ReadFile(p.Path)
					if err != nil {
						return nil, &acp.Error{Code: acp.CodeResourceNotFound, Message: err.Error()}
					}
					return acp.ReadTextFileResponse{Content: string(data)}, nil
				case acp.MethodFSWriteTextFile:
					return struct{}{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
				}
				return nil, &acp.Error{Code: acp.CodeMethodNotFound, Message: method}
			}
			var resp acp.NewSessionResponse
			if err := h.Editor.Call(h.Ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: f.cwd, MCPServers: []acp.MCPServer{}, AdditionalDirectories: []string{f.added}}, &resp); err != nil {
				t.Fatal(err)
			}
			if stop := h.Prompt(resp.SessionID, "try to get out"); stop != acp.StopEndTurn {
				t.Fatalf("stop = %q", stop)
			}
			reqs := h.Model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			for i, c := range cases {
				text, isErr := looptest.ToolResult(t, reqs[1], fmt.Sprintf("toolu_%02d", i))
				switch {
				case c.allowed:
					if isErr {
						t.Errorf("%s: refused: %s", c.name, text)
					}
				case c.walk:
					if strings.Contains(text, secretText) || strings.Contains(text, "secret.txt") {
						t.Errorf("%s: found something outside: %s", c.name, text)
					}
				default:
					if !isErr || !strings.Contains(text, "outside the session's directories") {
						t.Errorf("%s: not refused as outside: error=%v %q", c.name, isErr, text)
					}
				}
				if strings.Contains(text, secretText) {
					t.Errorf("%s: the secret reached the model", c.name)
				}
			}
			for _, p := range fsPaths {
				if strings.Contains(p, f.outside) || strings.Contains(p, "escape") || strings.Contains(p, "filelink") || strings.Contains(p, "/up/") {
					t.Errorf("the editor was asked to %s", p)
				}
			}
			if clientFS && len(fsPaths) == 0 {
				t.Error("the allowed calls did not go through the editor's file system")
			}
			if data, _ := os.ReadFile(filepath.Join(f.outside, "secret.txt")); string(data) != secretText+"\n" {
				t.Errorf("the outside file changed: %q", data)
			}
			if entries, _ := os.ReadDir(f.outside); len(entries) != 1 {
				t.Errorf("files appeared outside: %v", entries)
			}
			t.Logf("%d tool calls checked (%d editor fs calls)", len(cases), len(fsPaths))
		})
	}
}

// Prompt-command templates cannot include files outside the session's
// directories: @{..}, absolute paths, symlinks out and Claude's @path form
// are refused before anything reaches the model, and /export cannot write
// outside either. An @{path} in the arguments is not a reference at all:
// it reaches the model as the text the user typed.
func TestTemplatesAndExportConfined(t *testing.T) {
	f := newEscapeFixture(t)
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()); c.ExtraDirectories = []string{f.extra} }},
		looptest.ReplyText("allowed one ran"), looptest.ReplyText("arguments sent as typed"))
	h.Cwd = f.cwd
	dir := filepath.Join(f.cwd, ".claude", "commands")
	os.MkdirAll(dir, 0o755)
	templates := map[string]string{
		"abs":      "Summarize @{" + filepath.Join(f.outside, "secret.txt") + "}",
		"dotdot":   "Summarize @{../" + filepath.Base(f.outside) + "/secret.txt}",
		"dirlink":  "Summarize @{escape/secret.txt}",
		"filelink": "Summarize @{filelink}",
		"rellink":  "Summarize @{sub/up/secret.txt}",
		"claude":   "Summarize @escape/secret.txt please",
		"args":     "Summarize $ARGUMENTS",
		"ok":       "Summarize @{" + filepath.Join(f.extra, "extra.txt") + "}",
	}
	for name, tmpl := range templates {
		os.WriteFile(filepath.Join(dir, name+".md"), []byte(tmpl), 0o644)
	}
	sid := h.NewSession()
	prompts := []string{"/abs", "/dotdot", "/dirlink", "/filelink", "/rellink", "/claude",
		"/export md ../" + filepath.Base(f.outside) + "/out.md", "/export md " + filepath.Join(f.outside, "out.md"), "/export md escape/out.md"}
	for _, p := range prompts {
		before := len(looptest.AgentText(h.Editor.Updates(sid)))
		if stop := h.Prompt(sid, p); stop != acp.StopEndTurn {
			t.Fatalf("%s: stop = %q", p, stop)
		}
		said := looptest.AgentText(h.Editor.Updates(sid))[before:]
		if !strings.Contains(said, "outside the session's directories") {
			t.Errorf("%s: not refused as outside: %q", p, said)
		}
	}
	if n := len(h.Model.Requests()); n != 0 {
		t.Fatalf("%d model requests from refused templates", n)
	}
	h.Prompt(sid, "/ok")
	reqs := h.Model.Requests()
	if len(reqs) != 1 || !strings.Contains(fmt.Sprint(reqs[0]["messages"]), "from the configured extra directory") {
		t.Errorf("the allowed template did not include the extra directory's file: %v", reqs)
	}
	typed := "@{../" + filepath.Base(f.outside) + "/secret.txt}"
	h.Prompt(sid, "/args "+typed)
	reqs = h.Model.Requests()
	if len(reqs) != 2 || !strings.Contains(fmt.Sprint(reqs[1]["messages"]), "Summarize "+typed) {
		t.Errorf("the argument was not sent as typed: %v", reqs)
	}
	for _, r := range reqs {
		if strings.Contains(fmt.Sprint(r), secretText) {
			t.Error("the secret reached the model")
		}
	}
	if entries, _ := os.ReadDir(f.outside); len(entries) != 1 {
		t.Errorf("files appeared outside: %v", entries)
	}
	t.Logf("%d refused template and export cases, 1 allowed", len(prompts))
}
