package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
)

// procProbe is a Bash command that tries what a hostile command would
// against its parent (cordis): read its initial environment and its
// memory, and write a forged JSON-RPC frame onto the editor's stream (a
// valid one, so that where the test cannot stop it, the transcripts CI
// validates against the ACP schema stay valid).
const procProbe = `cat /proc/$PPID/environ > environ.dump 2> environ.err; ` +
	`(exec 3< /proc/$PPID/mem) 2> mem.err; ` +
	`printf '{"jsonrpc":"2.0","id":"forged","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[]}}\n' 2> forge.err > /proc/$PPID/fd/1; ` +
	`cat secret-in-repo.txt; echo probed`

// TestChildrenCannotReachAgentProc runs the probe as a Bash tool call, once
// as the current user and once (when the tests run as root) with cordis
// and its children dropped to an ordinary uid. In both the child cannot
// open cordis's memory or stdout, so no forged frame reaches the
// editor, and reads no key from its environ; and the key the child finds
// in a file does not reach the editor, the session log, a hook's input or
// the next model request.
func TestChildrenCannotReachAgentProc(t *testing.T) {
	t.Run("as-is", func(t *testing.T) { probeAgentProc(t, nil) })
	t.Run("unprivileged", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("already unprivileged: the as-is variant covers it")
		}
		probeAgentProc(t, &syscall.Credential{Uid: 65534, Gid: 65534})
	})
}

func probeAgentProc(t *testing.T, cred *syscall.Credential) {
	ctx := testCtx(t)
	const key = "sk-ant-proc-probe-0123456789abcdef-SECRET"
	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":`+mustJSON(procProbe)+`}`), textReply("Done."))

	// Directories every uid may use: the test's own are private to root.
	top, err := os.MkdirTemp("", "cordis-proc-probe")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	dirs := map[string]string{}
	for _, name := range []string{"bin", "home", "state", "work"} {
		dirs[name] = filepath.Join(top, name)
		os.MkdirAll(dirs[name], 0o777)
	}
	os.Chmod(top, 0o755)
	bin := filepath.Join(dirs["bin"], "cordis")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin, data, 0o755)
	os.WriteFile(filepath.Join(dirs["work"], "secret-in-repo.txt"), []byte("found: "+key+"\n"), 0o644)
	// A PostToolUse hook sees the Bash output, with the key scrubbed.
	hooks := writeHooks(t, dirs["home"], 10, map[string]string{"PostToolUse": "cat > post-tool.stdin"})
	config := bypassConfig(claudeHooksEntry(hooks))
	os.MkdirAll(filepath.Join(dirs["home"], ".config", "cordis"), 0o777)
	os.WriteFile(filepath.Join(dirs["home"], ".config", "cordis", "cordis.yml"), []byte(config), 0o644)
	if cred != nil {
		filepath.WalkDir(top, func(p string, _ os.DirEntry, _ error) error {
			return os.Lchown(p, int(cred.Uid), int(cred.Gid))
		})
	}

	cmd := exec.Command(bin, "acp", "--state-dir", dirs["state"])
	cmd.Dir = dirs["work"]
	cmd.Env = []string{"HOME=" + dirs["home"], "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(dirs["home"], ".config"),
		"ANTHROPIC_BASE_URL=" + model.srv.URL, "ANTHROPIC_API_KEY=" + key}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent stderr:\n%s", stderr.String())
		}
	})
	e := acptest.StartProcess(t, cmd)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, dirs["work"]).SessionID
	if stop, err := e.Prompt(ctx, sid, "probe"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	e.Close()

	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dirs["work"], name))
		return string(b)
	}
	if _, err := os.Stat(filepath.Join(dirs["work"], "environ.err")); err != nil {
		t.Fatal("the probe did not run")
	}
	if post := read("post-tool.stdin"); !strings.Contains(post, "probed") || strings.Contains(post, key) {
		t.Errorf("the PostToolUse hook's input lacks the output or holds the key: %.300q", post)
	}
	if strings.Contains(read("environ.dump"), key) {
		t.Error("a child read the key from /proc/<cordis>/environ")
	}
	// The child cannot open cordis's memory or its stdout: cordis is
	// not dumpable, and no child holds CAP_SYS_PTRACE (as root, children
	// are started without it; only a root without CAP_SETPCAP, as in a
	// trimmed container, cannot drop it). An ordinary user cannot open
	// environ either; root can (the kernel checks environ, as it does maps,
	// without asking for CAP_SYS_PTRACE), which is why cordis wipes the key
	// from it.
	strict := cred != nil || os.Geteuid() != 0 || haveCapability(8) // CAP_SETPCAP
	switch {
	case !strict:
		t.Logf("root without CAP_SETPCAP: memory readable: %v, frame forged: %v (the key is still wiped and scrubbed)", read("mem.err") == "", read("forge.err") == "")
	case read("mem.err") == "" || read("forge.err") == "":
		t.Errorf("a child opened cordis's /proc entries: mem.err %q, forge.err %q", read("mem.err"), read("forge.err"))
	case (cred != nil || os.Geteuid() != 0) && read("environ.err") == "":
		t.Error("an unprivileged child read cordis's /proc/<pid>/environ")
	}
	for _, f := range e.Frames() {
		var frame struct{ ID any }
		if json.Unmarshal(f, &frame) == nil && frame.ID == "forged" {
			t.Errorf("a forged frame reached the editor: %s", f)
		}
	}
	for _, f := range e.Frames() {
		if bytes.Contains(f, []byte(key)) {
			t.Errorf("the key reached the editor: %s", f)
		}
	}
	shown := false
	for _, f := range e.Frames() {
		shown = shown || bytes.Contains(f, []byte("[REDACTED:ANTHROPIC_API_KEY]"))
	}
	if !shown {
		t.Error("the Bash output with the key, redacted, never reached the editor")
	}
	filepath.WalkDir(dirs["state"], func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
				t.Errorf("the key reached %s", p)
			}
		}
		return nil
	})
	reqs := model.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if strings.Contains(reqs[1], key) {
		t.Error("the key reached the model in the tool result")
	}
}

// haveCapability reports whether this process has capability bit in its
// effective set (/proc/self/status CapEff).
func haveCapability(bit uint) bool {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			var caps uint64
			fmt.Sscanf(strings.TrimSpace(v), "%x", &caps)
			return caps&(1<<bit) != 0
		}
	}
	return false
}
