package main

// Two defects the reliability and security suite found, kept as regression
// tests once fixed: subprocesses outliving the agent through setsid, and
// the provider key in subprocess environments.

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
)

// A hook or Bash command that starts a process in a new session (setsid)
// escapes the process group cordis kills; cordis, a child subreaper on
// Linux, adopts and kills it (proc.ReapOrphans).
func TestSetsidGrandchildDoesNotOutliveAgent(t *testing.T) {
	for _, sleeper := range []string{"hook", "bash"} {
		t.Run(sleeper, func(t *testing.T) {
			ctx := testCtx(t)
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pids")
			// The shell waits a moment so that setsid has run before it exits.
			script := "setsid sleep 100 > /dev/null 2>&1 < /dev/null & sleep 0.3; echo $! > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile
			var model *fakeModel
			var config string
			if sleeper == "bash" {
				model = newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":`+strconv.Quote(script)+`}`), textReply("Done."))
				config = bypassConfig("")
			} else {
				model = newFakeModel(t, textReply("Done."))
				config = bypassConfig(claudeHooksEntry(writeHooks(t, dir, 5, map[string]string{"UserPromptSubmit": script})))
			}
			p := startProc(t, model.srv.URL, procOpts{config: config})
			p.e.Initialize(ctx, acp.ClientCapabilities{})
			sid := p.e.NewSession(ctx, p.work).SessionID
			if _, err := p.e.Prompt(ctx, sid, "start a daemon"); err != nil {
				t.Fatal(err)
			}
			pids := waitPids(t, pidFile, 1)
			p.e.Close()
			if left := waitGone(pids, 3*time.Second); len(left) > 0 {
				t.Fatalf("a %s's setsid child %v outlived the agent", sleeper, left)
			}
		})
	}
}

// The provider key (ANTHROPIC_API_KEY, or the configured apiKeyEnv) never
// reaches a hook command or a Bash command: proc hides it from every
// subprocess environment (agent.exposeEnv lets it through on purpose).
func TestSubprocessEnvHasNoProviderKey(t *testing.T) {
	ctx := testCtx(t)
	dumps := t.TempDir()
	hooks := writeHooks(t, t.TempDir(), 10, map[string]string{"UserPromptSubmit": "env > " + dumps + "/hook.env"})
	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":"env > bash.env"}`), textReply("Done."))
	p := startProc(t, model.srv.URL, procOpts{
		config: bypassConfig(claudeHooksEntry(hooks)),
		env:    []string{"ANTHROPIC_API_KEY=" + fakeKey},
	})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	if _, err := p.e.Prompt(ctx, sid, "dump the environment"); err != nil {
		t.Fatal(err)
	}
	p.e.Close()
	for where, path := range map[string]string{"a hook": filepath.Join(dumps, "hook.env"), "the Bash tool": filepath.Join(p.work, "bash.env")} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s did not run: %v", where, err)
		}
		if bytes.Contains(data, []byte(fakeKey)) {
			t.Errorf("the API key is in the environment of %s", where)
		}
	}
}
