package sandbox

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
)

// HelperVerb is the first argument that makes the cordis binary act as the
// sandbox helper (Main) instead of itself. It is not a user command.
const HelperVerb = "__sandbox"

// innerVerb starts the helper's second stage, already inside its
// namespaces.
const innerVerb = "__sandbox-inner"

// ExitUnenforced is the helper's exit status when it could not put the
// policy in place; it then runs nothing and says why on standard error,
// after UnenforcedPrefix.
const ExitUnenforced = 125

// UnenforcedPrefix starts the helper's message when it could not enforce
// the policy.
const UnenforcedPrefix = "cordis sandbox: "

// Policy is what a confined command may do. Paths are absolute; they are
// resolved (symlinks evaluated) when the policy is applied, so a rule
// names the file the kernel will see.
type Policy struct {
	// Read are the files and directories the command may read and execute,
	// with everything beneath them. ReadAll grants the whole filesystem
	// instead.
	Read    []string `json:"read,omitempty"`
	ReadAll bool     `json:"readAll,omitempty"`
	// ReadSystem adds to Read what programs need to run: the system's
	// program, library and configuration folders, and the folders of the
	// applying process's PATH outside the home folder. Resolved where the
	// policy is applied (an editor terminal's helper reads its own PATH).
	ReadSystem bool `json:"readSystem,omitempty"`
	// DenyRead are paths inside the readable set that stay unreadable.
	// Landlock only grants, so cordis grants their siblings one by one
	// along the path; an entry created later beside a denied path's
	// ancestors is not readable (the command sees EACCES, not the file).
	DenyRead []string `json:"denyRead,omitempty"`
	// Write are the directories and files the command may create, change,
	// rename and delete in, with everything beneath them. Empty: nothing
	// but the sinks (/dev/null, /dev/zero, /dev/full).
	Write []string `json:"write,omitempty"`
	// Protect are paths inside Write that stay read-only: files that make
	// something run later outside any sandbox (.git/config, .git/hooks,
	// shell rc files ...). Enforced with read-only bind mounts in a mount
	// namespace, so a policy with Protect runs through the helper. Paths
	// that do not exist are skipped (see ProtectMissing).
	Protect []string `json:"protect,omitempty"`
	// ProxyPort, when not zero, is the one TCP port the command may
	// connect to (cordis's filtering proxy on loopback). Zero: no network
	// at all (no TCP, no UDP, no raw sockets).
	ProxyPort uint16 `json:"proxyPort,omitempty"`
	// AllowUnixSockets lets the command create Unix sockets (the Docker
	// socket, D-Bus and ssh-agent are then reachable). Off by default, as
	// in Claude Code.
	AllowUnixSockets bool `json:"allowUnixSockets,omitempty"`
	// AllowLocalBinding lets the command listen on TCP ports (a dev
	// server); it is only meaningful with ProxyPort (otherwise no TCP
	// socket can be created at all).
	AllowLocalBinding bool `json:"allowLocalBinding,omitempty"`
	// DieWithParent puts the command in a PID namespace whose first
	// process is the helper: when the helper dies, however it dies, the
	// kernel kills every process of the command. Needed where cordis does
	// not own the process (an editor terminal).
	DieWithParent bool `json:"dieWithParent,omitempty"`
}

// ReadOnly reports whether the policy lets the command write nothing.
func (p *Policy) ReadOnly() bool { return len(p.Write) == 0 }

// NeedsHelper reports whether the policy needs namespaces, which only the
// helper can set up (a process started per command: see Warm).
func (p *Policy) NeedsHelper() bool { return p.needsHelper() }

func (p *Policy) needsHelper() bool {
	return len(p.Protect) > 0 || p.DieWithParent
}

// validate refuses a policy the kernel would read differently from what
// it says.
func (p *Policy) validate() error {
	for _, list := range [][]string{p.Read, p.DenyRead, p.Write, p.Protect} {
		for _, path := range list {
			if !filepath.IsAbs(path) {
				return fmt.Errorf("sandbox: path %q is not absolute", path)
			}
		}
	}
	return nil
}

func (p *Policy) encode() (string, error) {
	b, err := json.Marshal(p)
	return string(b), err
}

func decodePolicy(s string) (*Policy, error) {
	var p Policy
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return nil, fmt.Errorf("sandbox: bad policy: %w", err)
	}
	return &p, p.validate()
}

// Clone returns a deep copy.
func (p *Policy) Clone() *Policy {
	c := *p
	c.Read = slices.Clone(p.Read)
	c.DenyRead = slices.Clone(p.DenyRead)
	c.Write = slices.Clone(p.Write)
	c.Protect = slices.Clone(p.Protect)
	return &c
}
