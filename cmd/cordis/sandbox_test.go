package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/internal/sandbox"
)

// startAgentWithHome is startAgent with a home directory the test
// prepared (user settings in it).
func startAgentWithHome(t *testing.T, model *fakeModel, stateDir, workDir, home string) *acptest.Editor {
	cmd := exec.Command(binary, "acp", "--state-dir", stateDir)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANTHROPIC_BASE_URL=" + model.srv.URL, "ANTHROPIC_API_KEY=test-key"}
	cmd.Dir = workDir
	return acptest.StartProcess(t, cmd)
}

func requireKernelSandbox(t *testing.T, writes bool) {
	t.Helper()
	s := sandbox.Check()
	if !s.Available() || writes && !s.CanConfineWrites() {
		t.Skipf("this machine cannot provide the sandbox: %s", s)
	}
}

func (f *fakeModel) allRequests() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.requests, "\n")
}

// writeScript writes an executable that leaves a marker file when run.
func writeScript(t *testing.T, path, marker string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho ran >> "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Issue 27, finding 1: git commands that run unasked never run programs
// the repository's configuration names, from .git/config (fsmonitor,
// pager, external diff), a committed .gitattributes (a textconv driver) or
// a committed directory laid out as a bare repository.
func TestReadOnlyGitRunsNoRepositoryProgram(t *testing.T) {
	requireKernelSandbox(t, false)
	ctx := testCtx(t)
	state, work, outside := t.TempDir(), gitRepo(t), t.TempDir()
	marker := filepath.Join(outside, "marker")
	evil := filepath.Join(outside, "evil.sh")
	writeScript(t, evil, marker)
	gitIn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(work, ".gitattributes"), []byte("*.txt diff=evil\n"), 0o644)
	gitIn(work, "add", ".")
	gitIn(work, "commit", "-qm", "one")
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("two\n"), 0o644)
	for _, kv := range [][2]string{{"core.fsmonitor", evil}, {"core.pager", evil}, {"diff.external", evil}, {"diff.evil.textconv", evil}} {
		gitIn(work, "config", kv[0], kv[1])
	}
	// A committed folder laid out as a bare repository.
	bare := filepath.Join(work, "vendor", "lib")
	gitIn(work, "init", "-q", "--bare", bare)
	gitIn(bare, "config", "core.fsmonitor", evil)

	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"git status"}`), textReply("ok"),
		toolReply("toolu_2", "Bash", `{"command":"git diff"}`), textReply("ok"),
		toolReply("toolu_3", "Bash", `{"command":"git log -p"}`), textReply("ok"),
		toolReply("toolu_4", "Bash", `{"command":"git -C vendor/lib status"}`), textReply("ok"))
	e, _ := startAgent(t, model, state, work)
	asked := recordPermissions(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	for _, text := range []string{"status", "diff", "log", "bare"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a program the repository names ran (%d times) during unasked git commands; asked: %q", strings.Count(string(b), "ran"), asked.titles())
	}
	if !strings.Contains(model.allRequests(), "a.txt") {
		t.Error("git status did not run or its output did not reach the model")
	}
}

// Issue 27, finding 2: in acceptEdits, an edit of a file that makes
// something run later is asked about, so two unasked calls (an edit of
// .git/config, then git status) cannot run the model's code.
func TestAcceptEditsAsksBeforeProtectedFiles(t *testing.T) {
	ctx := testCtx(t)
	state, work := t.TempDir(), gitRepo(t)
	model := newFakeModel(t,
		toolReply("toolu_1", "Write", `{"file_path":"`+filepath.Join(work, ".git", "hooks", "pre-commit")+`","content":"#!/bin/sh\necho pwned\n"}`), textReply("ok"),
		toolReply("toolu_2", "Write", `{"file_path":"`+filepath.Join(work, ".mcp.json")+`","content":"{}"}`), textReply("ok"),
		toolReply("toolu_3", "Write", `{"file_path":"`+filepath.Join(work, "notes.txt")+`","content":"fine"}`), textReply("ok"))
	e, _ := startAgent(t, model, state, work)
	asked := recordPermissions(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	setMode(t, e, sid, "acceptEdits")
	for _, text := range []string{"hook", "mcp", "notes"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()
	titles := asked.titles()
	if len(titles) != 2 || !strings.Contains(titles[0], "pre-commit") || !strings.Contains(titles[1], ".mcp.json") {
		t.Errorf("asked about %q, want the hook and .mcp.json only", titles)
	}
	for _, f := range []string{".git/hooks/pre-commit", ".mcp.json"} {
		if _, err := os.Stat(filepath.Join(work, f)); err == nil {
			t.Errorf("%s was written without the user's approval", f)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "notes.txt")); err != nil {
		t.Errorf("an ordinary edit was not approved by acceptEdits: %v", err)
	}
}

// Claude Code's sandbox settings through the binary: with
// sandbox.enabled in the user's settings, Bash commands run without a
// question inside the workspace sandbox, which lets them write the
// project but not outside it, not the protected files, and reach no
// network; dangerouslyDisableSandbox is asked about.
func TestSandboxSettingsConfineBash(t *testing.T) {
	requireKernelSandbox(t, true)
	ctx := testCtx(t)
	state, work, outside, home := t.TempDir(), gitRepo(t), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	secret := filepath.Join(outside, "secret.txt")
	os.WriteFile(secret, []byte("s3cret-value\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"sandbox":{"enabled":true,"filesystem":{"denyRead":["/`+secret+`"]}}}`), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	config := filepath.Join(work, ".git", "config")
	before, _ := os.ReadFile(config)
	// A repository without a hooks folder: one must not be planted.
	os.RemoveAll(filepath.Join(work, ".git", "hooks"))

	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"echo in > inside.txt && mkdir -p build && f=$(mktemp) && echo o > $f && cp $f build/out; mkdir -p .git/hooks; echo pwned > .git/hooks/pre-commit"}`), textReply("ok"),
		toolReply("toolu_2", "Bash", `{"command":"echo out > `+filepath.Join(outside, "x.txt")+`"}`), textReply("ok"),
		toolReply("toolu_3", "Bash", `{"command":"echo '[core] fsmonitor = /tmp/x' >> .git/config"}`), textReply("ok"),
		toolReply("toolu_4", "Bash", `{"command":"echo hi > /dev/tcp/127.0.0.1/`+port+`"}`), textReply("ok"),
		toolReply("toolu_5", "Bash", `{"command":"echo out > `+filepath.Join(outside, "y.txt")+`","dangerouslyDisableSandbox":true}`), textReply("ok"),
		toolReply("toolu_6", "Bash", `{"command":"cat `+secret+`"}`), textReply("ok"),
		toolReply("toolu_7", "Bash", `{"command":"setsid sleep 317.5 > /dev/null 2>&1 < /dev/null & echo started","run_in_background":true}`), textReply("ok"),
		toolReply("toolu_8", "Bash", `{"command":"sleep 318.5","timeout":700}`), textReply("ok"))
	e := startAgentWithHome(t, model, state, work, home)
	asked := recordPermissions(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	for _, text := range []string{"inside", "outside", "config", "network", "unsandboxed", "secret", "background", "timeout"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()
	if titles := asked.titles(); len(titles) != 1 || !strings.Contains(titles[0], "y.txt") {
		t.Errorf("asked about %q, want only the unsandboxed command", titles)
	}
	if b, err := os.ReadFile(filepath.Join(work, "build", "out")); err != nil || string(b) != "o\n" {
		t.Errorf("the confined command could not write the project: %v\n%s", err, model.allRequests())
	}
	for _, f := range []string{"x.txt", "y.txt"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil {
			t.Errorf("%s was written outside the project", f)
		}
	}
	if after, _ := os.ReadFile(config); string(after) != string(before) {
		t.Errorf(".git/config changed inside the sandbox: %q", after)
	}
	if _, err := os.Stat(filepath.Join(work, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a git hook was planted inside the sandbox")
	}
	requests := model.allRequests()
	if !strings.Contains(requests, "Permission denied") && !strings.Contains(requests, "Read-only file system") {
		t.Errorf("the refused writes did not fail as the kernel refuses them")
	}
	if strings.Contains(requests, "s3cret-value") {
		t.Error("a denyRead file was read inside the sandbox")
	}
	// The background command's setsid child is gone with the session.
	if pids := processesRunning("sleep 317.5"); len(pids) > 0 {
		t.Errorf("a sandboxed background command's child outlived the session: %v", pids)
	}
	// A confined command's timeout kills it as an unconfined one's does.
	if !strings.Contains(requests, "Command timed out after 700ms and was killed.") {
		t.Error("the confined command's timeout was not reported")
	}
	if pids := processesRunning("sleep 318.5"); len(pids) > 0 {
		t.Errorf("a confined command outlived its timeout: %v", pids)
	}
}

// processesRunning lists the pids whose command line is cmdline.
func processesRunning(cmdline string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ") == cmdline {
			if st, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); !strings.Contains(string(st), ") Z ") {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// The workspace sandbox's network goes through cordis's proxy: the first
// request to a host is asked about (once for the session), an allowed
// host is reached through the proxy, a rejected one is not, and a
// connection that bypasses the proxy fails.
func TestSandboxNetworkThroughTheProxy(t *testing.T) {
	requireKernelSandbox(t, true)
	if sandbox.Check().ABI < 4 {
		t.Skip("Landlock cannot limit TCP to the proxy on this kernel")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	ctx := testCtx(t)
	state, work, home := t.TempDir(), gitRepo(t), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"sandbox":{"enabled":true,"network":{"deniedDomains":["denied.invalid"]}}}`), 0o644)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "served-"+r.URL.Path[1:]) }))
	defer srv.Close()
	u := srv.URL // http://127.0.0.1:PORT

	curl := func(id, path, extra string) string {
		return toolReply(id, "Bash", `{"command":"curl -sS --max-time 5 `+extra+u+`/`+path+`"}`)
	}
	model := newFakeModel(t,
		curl("toolu_1", "first", ""), textReply("ok"),
		curl("toolu_2", "second", ""), textReply("ok"),
		curl("toolu_3", "direct", "--noproxy '*' "), textReply("ok"),
		toolReply("toolu_4", "Bash", `{"command":"curl -sS --max-time 5 http://denied.invalid/"}`), textReply("ok"))
	e := startAgentWithHome(t, model, state, work, home)
	asked := recordPermissions(e, acp.PermAllowAlways)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	for _, text := range []string{"first", "second", "direct", "denied"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()
	if titles := asked.titles(); len(titles) != 1 || !strings.Contains(titles[0], "127.0.0.1") {
		t.Errorf("asked %q, want one question about 127.0.0.1", titles)
	}
	requests := model.allRequests()
	for _, want := range []string{"served-first", "served-second"} {
		if !strings.Contains(requests, want) {
			t.Errorf("%s did not come through the proxy", want)
		}
	}
	if strings.Contains(requests, "served-direct") {
		t.Error("a connection that bypassed the proxy got through")
	}
	if !strings.Contains(requests, "does not allow network access to denied.invalid") {
		t.Error("a denied domain was not refused by the proxy")
	}
}

// cordis.yml's agent.sandbox turns the sandbox on as Claude Code's
// settings do; a project's cordis.yml may not set it.
func TestConfigSandboxBlock(t *testing.T) {
	requireKernelSandbox(t, true)
	ctx := testCtx(t)
	state, work, outside := t.TempDir(), gitRepo(t), t.TempDir()
	cfg := configFile(t, "- id: agent\n  name: agent\n  config: {sandbox: {enabled: true}}\n- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5, maxRetries: -1}\n")
	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"echo in > inside.txt; echo out > `+filepath.Join(outside, "x.txt")+`"}`), textReply("ok"))
	e, _ := startAgent(t, model, state, work, "--config", cfg)
	asked := recordPermissions(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	if stop, err := e.Prompt(ctx, sid, "go"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	e.Close()
	if titles := asked.titles(); len(titles) != 0 {
		t.Errorf("asked %q, want the confined command run unasked", titles)
	}
	if _, err := os.Stat(filepath.Join(work, "inside.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Error("the command wrote outside the project")
	}
}

// Where the kernel cannot confine (here: CORDIS_SANDBOX=off), nothing
// that needed the sandbox runs unasked: read-only commands are asked
// about, a sandbox.enabled session asks before every command, and the
// session start says why.
func TestNoSandboxFailsClosed(t *testing.T) {
	ctx := testCtx(t)
	state, work, home := t.TempDir(), gitRepo(t), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"sandbox":{"enabled":true}}`), 0o644)
	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"git status"}`), textReply("ok"),
		toolReply("toolu_2", "Bash", `{"command":"echo hi > made.txt"}`), textReply("ok"))
	cmd := exec.Command(binary, "acp", "--state-dir", state)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANTHROPIC_BASE_URL=" + model.srv.URL, "ANTHROPIC_API_KEY=test-key", sandbox.OffVariable + "=off"}
	cmd.Dir = work
	e := acptest.StartProcess(t, cmd)
	asked := recordPermissions(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	for _, text := range []string{"status", "write"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()
	if got := strings.Join(asked.titles(), " | "); got != "git status | echo hi > made.txt" {
		t.Errorf("asked about %q, want both commands", got)
	}
	if _, err := os.Stat(filepath.Join(work, "made.txt")); err == nil {
		t.Error("a rejected command ran")
	}
	said := acptestText(e.Updates(sid))
	for _, want := range []string{"cannot provide it", "Read-only commands"} {
		if !strings.Contains(said, want) {
			t.Errorf("the session start did not say %q: %q", want, said)
		}
	}
}

// The workspace sandbox through the binary as an ordinary user (uid
// 65534, when the tests run as root): user namespaces without privilege,
// the protected paths, writes and chmod outside refused.
func TestSandboxAsUnprivilegedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already unprivileged: TestSandboxSettingsConfineBash covers it")
	}
	requireKernelSandbox(t, true)
	ctx := testCtx(t)
	top, err := os.MkdirTemp("", "cordis-sandbox-uid")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	os.Chmod(top, 0o755)
	dirs := map[string]string{}
	for _, name := range []string{"bin", "home", "state", "work", "outside"} {
		dirs[name] = filepath.Join(top, name)
		os.MkdirAll(dirs[name], 0o755)
	}
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dirs["bin"], "cordis")
	os.WriteFile(bin, data, 0o755)
	if out, err := exec.Command("git", "init", "-q", dirs["work"]).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	own := filepath.Join(dirs["outside"], "own.txt")
	os.WriteFile(own, []byte("mine\n"), 0o644)
	os.MkdirAll(filepath.Join(dirs["home"], ".claude"), 0o755)
	os.WriteFile(filepath.Join(dirs["home"], ".claude", "settings.json"), []byte(`{"sandbox":{"enabled":true}}`), 0o644)
	filepath.WalkDir(top, func(p string, _ os.DirEntry, _ error) error { return os.Lchown(p, 65534, 65534) })
	config := filepath.Join(dirs["work"], ".git", "config")
	before, _ := os.ReadFile(config)

	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"echo in > inside.txt && id -u > uid.txt"}`), textReply("ok"),
		toolReply("toolu_2", "Bash", `{"command":"echo out > `+filepath.Join(dirs["outside"], "x.txt")+`"}`), textReply("ok"),
		toolReply("toolu_3", "Bash", `{"command":"echo '[core] fsmonitor = /tmp/x' >> .git/config"}`), textReply("ok"),
		toolReply("toolu_4", "Bash", `{"command":"chmod 600 `+own+`"}`), textReply("ok"))
	cmd := exec.Command(bin, "acp", "--state-dir", dirs["state"])
	cmd.Dir = dirs["work"]
	cmd.Env = []string{"HOME=" + dirs["home"], "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(dirs["home"], ".config"),
		"ANTHROPIC_BASE_URL=" + model.srv.URL, "ANTHROPIC_API_KEY=test-key"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	e := acptest.StartProcess(t, cmd)
	asked := recordPermissions(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, dirs["work"]).SessionID
	for _, text := range []string{"inside", "outside", "config", "chmod"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()
	if titles := asked.titles(); len(titles) != 0 {
		t.Errorf("asked %q, want confined commands run unasked", titles)
	}
	if b, err := os.ReadFile(filepath.Join(dirs["work"], "uid.txt")); err != nil || strings.TrimSpace(string(b)) != "65534" {
		t.Errorf("the confined command did not run as uid 65534 in the project: %q, %v\n%s", b, err, model.allRequests())
	}
	if _, err := os.Stat(filepath.Join(dirs["outside"], "x.txt")); err == nil {
		t.Error("the command wrote outside the project")
	}
	if after, _ := os.ReadFile(config); string(after) != string(before) {
		t.Errorf(".git/config changed: %q", after)
	}
	if st, _ := os.Stat(own); st.Mode().Perm() != 0o644 {
		t.Errorf("chmod outside the project went through: %v", st.Mode())
	}
}
