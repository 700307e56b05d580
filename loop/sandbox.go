package loop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/sandbox"
)

// SandboxSettings are the session's sandbox settings (Claude Code's
// `sandbox` block, layered by cmd/cordis; cordis.yml can set the same).
type SandboxSettings struct {
	// Enabled confines every Bash command of the session (and its
	// children) in the workspace sandbox: writes only in the session's
	// folders, the allowed paths and a private temp folder, protected
	// files excepted; reads everywhere but DenyRead; no network.
	Enabled bool
	// AutoAllow (autoAllowBashIfSandboxed, default true) runs a command
	// that will run confined without asking; ask and deny rules and hooks
	// still decide first.
	AutoAllow bool
	// Excluded (excludedCommands) run outside the sandbox, through the
	// ordinary permission flow, never allowed for being confined.
	Excluded []permrules.Rule
	// AllowUnsandboxed (allowUnsandboxedCommands, default true) lets the
	// model ask to leave the sandbox (the Bash tool's
	// dangerouslyDisableSandbox), which the user is asked about every time.
	AllowUnsandboxed bool
	// AllowWrite, DenyWrite and DenyRead are absolute paths
	// (filesystem.allowWrite, denyWrite, denyRead).
	AllowWrite, DenyWrite, DenyRead []string
	// AllowedDomains are reached without asking, DeniedDomains never
	// (network.allowedDomains, deniedDomains: "example.com",
	// "*.example.com", an optional ":port"); any other host is asked about
	// once per session.
	AllowedDomains, DeniedDomains []string
	// AllowUnixSockets (network.allowAllUnixSockets) lets commands open
	// Unix sockets (the Docker socket, ssh-agent ...).
	AllowUnixSockets bool
	// Source names where the settings came from, for /doctor.
	Source string
}

// sandboxUse is how one Bash call runs.
type sandboxUse int

const (
	unconfined sandboxUse = iota
	confinedReadOnly
	confinedWorkspace
)

// bashSandboxInput are the fields of a Bash call the sandbox decision reads.
type bashSandboxInput struct {
	Command                   string `json:"command"`
	DangerouslyDisableSandbox bool   `json:"dangerouslyDisableSandbox"`
}

// wantsUnsandboxed reports whether a Bash call asks to leave the sandbox
// and may: the sandbox is on and the settings let the model ask.
func (s *Session) wantsUnsandboxed(tool string, input json.RawMessage) bool {
	sb := s.settings.Sandbox
	if tool != "Bash" || !sb.Enabled || !sb.AllowUnsandboxed {
		return false
	}
	var in bashSandboxInput
	_ = json.Unmarshal(input, &in)
	return in.DangerouslyDisableSandbox
}

// workspaceConfined reports whether a Bash call will run in the
// workspace sandbox: the sandbox is on, the command is not excluded and
// did not (validly) ask to leave it.
func (s *Session) workspaceConfined(call permrules.Call, input json.RawMessage) bool {
	sb := s.settings.Sandbox
	if call.Tool != "Bash" || !sb.Enabled || s.wantsUnsandboxed(call.Tool, input) || !sandbox.Check().CanConfineWrites() {
		// Where the kernel cannot confine, the sandbox is off and every
		// command goes through the ordinary permission flow (the session
		// start said so).
		return false
	}
	if _, excluded := (permrules.Matcher{Home: s.agent.cfg.Home}).Permits(sb.Excluded, call); excluded {
		return false
	}
	return true
}

// sandboxFor is the policy a Bash call runs under, given how it was
// allowed (nil runs it unconfined), and the variables its commands get
// with it: git's neutral settings in the read-only sandbox, the proxy's
// address in the workspace sandbox.
func (s *Session) sandboxFor(use sandboxUse) (*sandbox.Policy, []string) {
	s.mu.Lock()
	roots := append([]string(nil), s.roots...)
	s.mu.Unlock()
	sb := s.settings.Sandbox
	switch use {
	case confinedReadOnly:
		return &sandbox.Policy{
			Read:       append(roots, gitConfigFiles(s.agent.cfg.Home)...),
			ReadSystem: true,
			DenyRead:   sb.DenyRead,
		}, gitNeutralEnv
	case confinedWorkspace:
		tmp := s.sandboxTemp()
		write := append(append(roots, sb.AllowWrite...), tmp)
		ensureHooksFolders(roots)
		protect := append(sandbox.ProtectedPaths(write, s.agent.cfg.Home), sb.DenyWrite...)
		p := &sandbox.Policy{
			ReadAll:          true,
			DenyRead:         sb.DenyRead,
			Write:            write,
			Protect:          protect,
			AllowUnixSockets: sb.AllowUnixSockets,
		}
		// The shared /tmp is not writable; programs that make temporary
		// files find the session's own through TMPDIR.
		env := []string{"TMPDIR=" + tmp}
		if proxy := s.proxyFor(); proxy != nil {
			p.ProxyPort = proxy.Port()
			env = append(env, proxy.Env()...)
		}
		return p, env
	}
	return nil, nil
}

// ensureHooksFolders creates the hooks folder of each root's git
// repository where it is missing (git init makes one; some clones and
// tools leave it out): a protected path that does not exist cannot be
// mounted read-only, and a hook planted there would run on the user's
// next commit.
func ensureHooksFolders(roots []string) {
	for _, r := range roots {
		if info, err := os.Lstat(filepath.Join(r, ".git")); err == nil && info.IsDir() {
			_ = os.Mkdir(filepath.Join(r, ".git", "hooks"), 0o755)
		}
	}
}

// sandboxTemp is the session's private temp folder, writable inside the
// workspace sandbox (a shared /tmp would let a command plant files other
// programs read). Created on first use, removed when the session closes.
func (s *Session) sandboxTemp() string {
	dir := s.sandboxTempPath()
	_ = os.MkdirAll(dir, 0o700)
	return dir
}

func (s *Session) sandboxTempPath() string {
	return filepath.Join(os.TempDir(), "cordis-sandbox-"+safeID(s.id))
}

func safeID(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, id)
}

// gitConfigFiles are git's own configuration files in home, which a
// read-only git command reads (home itself is not readable in the
// read-only sandbox: it holds credentials and cordis's state).
func gitConfigFiles(home string) []string {
	if home == "" {
		return nil
	}
	var paths []string
	for _, f := range []string{".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes", ".gitignore_global"} {
		paths = append(paths, filepath.Join(home, f))
	}
	return paths
}

// gitNeutralEnv makes git ignore what the repository's configuration
// could make it run, for commands confined read-only: the sandbox already
// contains such a program, this keeps it from running at all. Bare
// repositories are used only when named (a committed directory laid out
// as one is not opened by a git -C into it).
var gitNeutralEnv = func() []string {
	pairs := [][2]string{
		{"core.fsmonitor", "false"}, {"core.pager", "cat"}, {"core.hooksPath", "/dev/null"},
		{"diff.external", ""}, {"safe.bareRepository", "explicit"}, {"core.sshCommand", "false"},
		{"credential.helper", ""}, {"protocol.allow", "never"},
	}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(pairs)), "GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EXTERNAL_DIFF=", "GIT_OPTIONAL_LOCKS=0"}
	for i, p := range pairs {
		env = append(env, "GIT_CONFIG_KEY_"+strconv.Itoa(i)+"="+p[0], "GIT_CONFIG_VALUE_"+strconv.Itoa(i)+"="+p[1])
	}
	return env
}()

// readOnlyAllowed reports whether the allowance for read-only Bash
// commands may apply: only where the kernel can confine them read-only.
func readOnlyAllowed() bool { return sandbox.Check().Available() }

// confinedByHook reports whether a hook's allow holds only inside the
// read-only sandbox (the built-in read-only allowance).
func confinedByHook(pre hooks.Decision) bool {
	return pre.Permission == hooks.Allow && pre.ReadOnlyConfined
}
