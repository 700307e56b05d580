package snapshots

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// ManifestFile is the name of a scenario's manifest.
const ManifestFile = "manifest.yml"

// Manifest is what the scripted editor does in a scenario (manifest.yml).
// Unknown fields are errors.
type Manifest struct {
	// Description says what the scenario proves, in a sentence or two.
	Description string `yaml:"description"`
	// Recording is "live" (recorded against the real API) or "authored"
	// (the fixture's SSE bodies were written by hand).
	Recording string `yaml:"recording"`
	// Config is a cordis config file in the scenario folder used instead
	// of the repository's cordis.snapshot.yml, typically an overlay that
	// includes ${CORDIS_REPO}/cordis.snapshot.yml and adds hook entries.
	Config string `yaml:"config,omitempty"`
	// Env adds fixed environment variables for the agent process (and
	// the cordis steps); values may use the run's placeholders
	// ({{cwd}}, {{mcptestserver}}, ...), so that a file of the scenario
	// can name a run's path through ${VAR}, as a project's .mcp.json does.
	Env map[string]string `yaml:"env,omitempty"`
	// Client is what the editor offers (default: fs and terminal).
	Client *ClientSpec `yaml:"client,omitempty"`
	// Compare lists optional outputs compared besides stdout, the session
	// logs and the sidecars.
	Compare CompareSpec `yaml:"compare,omitempty"`
	// Steps are run in order.
	Steps []Step `yaml:"steps"`
}

// ClientSpec is the editor's capabilities.
type ClientSpec struct {
	FS       bool `yaml:"fs"`
	Terminal bool `yaml:"terminal"`
	// Elicitation offers form elicitation (elicitation/create), which
	// prompts' elicitations answer.
	Elicitation bool `yaml:"elicitation,omitempty"`
}

// CompareSpec selects optional outputs.
type CompareSpec struct {
	// Workspace compares the final workspace with expected/workspace/.
	Workspace bool `yaml:"workspace,omitempty"`
}

// Step is one action of the editor; exactly one field is set.
type Step struct {
	Initialize      *InitializeStep      `yaml:"initialize,omitempty"`
	NewSession      *NewSessionStep      `yaml:"newSession,omitempty"`
	Prompt          *PromptStep          `yaml:"prompt,omitempty"`
	SetMode         *SetModeStep         `yaml:"setMode,omitempty"`
	SetConfigOption *SetConfigOptionStep `yaml:"setConfigOption,omitempty"`
	LoadSession     *LoadSessionStep     `yaml:"loadSession,omitempty"`
	// ResumeSession sends session/resume: the session reopens without a
	// replay.
	ResumeSession *LoadSessionStep `yaml:"resumeSession,omitempty"`
	Restart       *RestartStep     `yaml:"restart,omitempty"`
	// WaitFile waits until a file exists in the workspace, named by its
	// path relative to the workspace: the trace of a hook that only
	// observes (a Notification hook, say), written by the hook with a
	// rename so that it appears complete. It is a durable event, polled,
	// bounded like an answer; in a during it holds the turn until the
	// hook ran.
	WaitFile string `yaml:"waitFile,omitempty"`
	// Cordis runs the cordis binary with these arguments (placeholders
	// expanded) in the workspace, with the agent's environment, while the
	// agent keeps running: what a user does in a terminal between two
	// sessions, such as `cordis trust --cwd {{cwd}} --state-dir {{state}}`.
	// Its output is compared as expected/cordis-N.txt (the Nth such
	// step); a non-zero exit fails the run.
	Cordis []string `yaml:"cordis,omitempty"`
}

// InitializeStep sends initialize.
type InitializeStep struct{}

// NewSessionStep sends session/new with the workspace as cwd.
type NewSessionStep struct {
	// MCPServers are passed as the request's mcpServers (default: none).
	MCPServers []MCPServer `yaml:"mcpServers,omitempty"`
}

// MCPServer is one entry of mcpServers in session/new or session/load, in
// ACP's shape: stdio {name, command, args, env}, or http/sse {type, name,
// url, headers}. Command, args, env values, url and header values may use
// the run's placeholders: {{mcptestserver}} (the test MCP server of
// loop/mcp/mcptest, built by the caller), {{cwd}}, {{home}}, {{tmp}},
// {{repo}}, ...
type MCPServer struct {
	// Type is "" (stdio), "http" or "sse".
	Type    string      `yaml:"type,omitempty"`
	Name    string      `yaml:"name"`
	Command string      `yaml:"command,omitempty"`
	Args    []string    `yaml:"args,omitempty"`
	Env     []NameValue `yaml:"env,omitempty"`
	URL     string      `yaml:"url,omitempty"`
	Headers []NameValue `yaml:"headers,omitempty"`
}

// NameValue is an environment variable or an HTTP header.
type NameValue struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// PromptStep sends session/prompt and waits for its answer.
type PromptStep struct {
	Text string `yaml:"text"`
	// Session is the 1-based index of the session (default: the latest).
	Session int `yaml:"session,omitempty"`
	// Permissions answer the permission requests of this turn in order,
	// each by option kind: allow_once, allow_always, reject_once,
	// reject_always, or cancelled. A request with no answer left fails
	// the scenario (and is answered cancelled: fail closed).
	Permissions []string `yaml:"permissions,omitempty"`
	// Elicitations answer the elicitation/create requests of this turn in
	// order (the client must offer elicitation). A request with no
	// answer left fails the scenario (and is answered cancel).
	Elicitations []ElicitationAnswer `yaml:"elicitations,omitempty"`
	// CancelWhen sends session/cancel as soon as a frame matching it
	// arrives from the agent.
	CancelWhen *FrameMatch `yaml:"cancelWhen,omitempty"`
	// During runs more steps while this turn is in progress: when a
	// request of the agent matching During.When arrives, the editor holds
	// its answer, runs During.Steps, then answers it. The turn cannot
	// move on meanwhile, so what the steps see does not race with it.
	During *DuringSpec `yaml:"during,omitempty"`
}

// ElicitationAnswer is the user's answer to a form: accept with the
// form's content, decline or cancel.
type ElicitationAnswer struct {
	Action  string         `yaml:"action"`
	Content map[string]any `yaml:"content,omitempty"`
}

// DuringSpec is what the editor does while a turn waits for its answer.
type DuringSpec struct {
	// When matches the agent's request whose answer is held (a
	// session/request_permission, fs/read_text_file, ...); a notification
	// cannot hold a turn, so matching one fails the scenario.
	When FrameMatch `yaml:"when"`
	// Steps are prompt (text and session only), setMode and
	// setConfigOption steps, run in order; each waits for its answer.
	Steps []Step `yaml:"steps"`
}

// FrameMatch matches a frame from the agent; every set field must match.
type FrameMatch struct {
	// Method is the JSON-RPC method ("terminal/wait_for_exit",
	// "session/request_permission", "session/update").
	Method string `yaml:"method,omitempty"`
	// Update is params.update.sessionUpdate ("tool_call_update").
	Update string `yaml:"update,omitempty"`
	// Status is params.update.status ("in_progress").
	Status string `yaml:"status,omitempty"`
}

// SetModeStep sends session/set_mode.
type SetModeStep struct {
	Mode    string `yaml:"mode"`
	Session int    `yaml:"session,omitempty"`
}

// SetConfigOptionStep sends session/set_config_option.
type SetConfigOptionStep struct {
	ConfigID string `yaml:"configId"`
	Value    string `yaml:"value"`
	Session  int    `yaml:"session,omitempty"`
}

// LoadSessionStep sends session/load (or, as resumeSession,
// session/resume) for an earlier session.
type LoadSessionStep struct {
	Session int `yaml:"session"`
	// MCPServers are passed as the request's mcpServers (default: none).
	MCPServers []MCPServer `yaml:"mcpServers,omitempty"`
}

// RestartStep ends the agent process (closing stdin, or SIGKILL with
// kill) and starts a new one on the same state directory.
type RestartStep struct {
	Kill bool `yaml:"kill,omitempty"`
}

var (
	permissionKinds    = []string{"allow_once", "allow_always", "reject_once", "reject_always", "cancelled"}
	elicitationActions = []string{"accept", "decline", "cancel"}
)

// LoadManifest reads and checks a manifest strictly.
func LoadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty manifest", path)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &m, nil
}

// actions counts the actions set in a step (one is valid).
func (s Step) actions() int {
	n := 0
	for _, set := range []bool{s.Initialize != nil, s.NewSession != nil, s.Prompt != nil, s.SetMode != nil, s.SetConfigOption != nil, s.LoadSession != nil, s.ResumeSession != nil, s.Restart != nil, s.WaitFile != "", s.Cordis != nil} {
		if set {
			n++
		}
	}
	return n
}

func (m *Manifest) check() error {
	if strings.TrimSpace(m.Description) == "" {
		return errors.New("description is required")
	}
	switch m.Recording {
	case "live", "authored":
	default:
		return fmt.Errorf("recording must be live or authored, got %q", m.Recording)
	}
	if m.Config != "" && (filepath.IsAbs(m.Config) || strings.Contains(m.Config, "..")) {
		return fmt.Errorf("config must name a file inside the scenario folder, got %q", m.Config)
	}
	if len(m.Steps) == 0 {
		return errors.New("steps are required")
	}
	sessions := 0
	for i, s := range m.Steps {
		if n := s.actions(); n != 1 {
			return fmt.Errorf("step %d: want exactly one action (initialize, newSession, prompt, setMode, setConfigOption, loadSession, resumeSession, restart, waitFile, cordis), got %d", i+1, n)
		}
		switch {
		case s.Cordis != nil:
			if err := checkCordis(i, s.Cordis); err != nil {
				return err
			}
		case s.WaitFile != "":
			if err := checkWaitFile(i, s.WaitFile); err != nil {
				return err
			}
		case s.NewSession != nil:
			sessions++
			if err := checkMCPServers(i, s.NewSession.MCPServers); err != nil {
				return err
			}
		case s.Prompt != nil:
			if s.Prompt.Text == "" {
				return fmt.Errorf("step %d: prompt.text is required", i+1)
			}
			for _, p := range s.Prompt.Permissions {
				if !contains(permissionKinds, p) {
					return fmt.Errorf("step %d: permission answer %q is not one of %s", i+1, p, strings.Join(permissionKinds, ", "))
				}
			}
			for _, e := range s.Prompt.Elicitations {
				if !contains(elicitationActions, e.Action) || e.Action != "accept" && e.Content != nil {
					return fmt.Errorf("step %d: elicitation answer %q: action must be one of %s, with content only for accept", i+1, e.Action, strings.Join(elicitationActions, ", "))
				}
			}
			if len(s.Prompt.Elicitations) > 0 && (m.Client == nil || !m.Client.Elicitation) {
				return fmt.Errorf("step %d: elicitations need client: {elicitation: true}", i+1)
			}
			if c := s.Prompt.CancelWhen; c != nil && *c == (FrameMatch{}) {
				return fmt.Errorf("step %d: cancelWhen needs method, update or status", i+1)
			}
			if err := checkSession(i, s.Prompt.Session, sessions); err != nil {
				return err
			}
			if err := checkDuring(i, s.Prompt.During, sessions); err != nil {
				return err
			}
		case s.SetMode != nil:
			if s.SetMode.Mode == "" {
				return fmt.Errorf("step %d: setMode.mode is required", i+1)
			}
			if err := checkSession(i, s.SetMode.Session, sessions); err != nil {
				return err
			}
		case s.SetConfigOption != nil:
			if s.SetConfigOption.ConfigID == "" {
				return fmt.Errorf("step %d: setConfigOption.configId is required", i+1)
			}
			if err := checkSession(i, s.SetConfigOption.Session, sessions); err != nil {
				return err
			}
		case s.LoadSession != nil || s.ResumeSession != nil:
			st, name := s.LoadSession, "loadSession"
			if st == nil {
				st, name = s.ResumeSession, "resumeSession"
			}
			if st.Session < 1 {
				return fmt.Errorf("step %d: %s.session is required (1 for the first session)", i+1, name)
			}
			if err := checkSession(i, st.Session, sessions); err != nil {
				return err
			}
			if err := checkMCPServers(i, st.MCPServers); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDuring checks a prompt's during: a request to hold and steps that
// cannot disturb the held turn's own bookkeeping (its permission answers,
// its cancel trigger) or the agent process.
func checkDuring(step int, d *DuringSpec, sessions int) error {
	if d == nil {
		return nil
	}
	if d.When == (FrameMatch{}) {
		return fmt.Errorf("step %d: during.when needs method, update or status", step+1)
	}
	if len(d.Steps) == 0 {
		return fmt.Errorf("step %d: during.steps is empty", step+1)
	}
	for j, s := range d.Steps {
		where := fmt.Sprintf("step %d: during step %d", step+1, j+1)
		if s.actions() != 1 {
			return fmt.Errorf("%s: want exactly one action (prompt, setMode, setConfigOption, waitFile), got %d", where, s.actions())
		}
		switch {
		case s.Prompt != nil:
			p := s.Prompt
			if p.Text == "" {
				return fmt.Errorf("%s: prompt.text is required", where)
			}
			if len(p.Permissions) > 0 || p.CancelWhen != nil || p.During != nil {
				return fmt.Errorf("%s: a prompt run during a turn takes only text and session (its permissions, cancelWhen and during would mix with the held turn's)", where)
			}
			if err := checkSession(step, p.Session, sessions); err != nil {
				return err
			}
		case s.SetMode != nil:
			if s.SetMode.Mode == "" {
				return fmt.Errorf("%s: setMode.mode is required", where)
			}
			if err := checkSession(step, s.SetMode.Session, sessions); err != nil {
				return err
			}
		case s.SetConfigOption != nil:
			if s.SetConfigOption.ConfigID == "" {
				return fmt.Errorf("%s: setConfigOption.configId is required", where)
			}
			if err := checkSession(step, s.SetConfigOption.Session, sessions); err != nil {
				return err
			}
		case s.WaitFile != "":
			if err := checkWaitFile(step, s.WaitFile); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: only prompt, setMode, setConfigOption and waitFile may run during a turn", where)
		}
	}
	return nil
}

// checkMCPServers checks the shape of mcpServers entries.
func checkMCPServers(step int, servers []MCPServer) error {
	names := map[string]bool{}
	for j, sv := range servers {
		where := fmt.Sprintf("step %d: mcpServers[%d]", step+1, j)
		if sv.Name == "" {
			return fmt.Errorf("%s: name is required", where)
		}
		if names[sv.Name] {
			return fmt.Errorf("%s: name %q is used twice", where, sv.Name)
		}
		names[sv.Name] = true
		switch sv.Type {
		case "":
			if sv.Command == "" || sv.URL != "" || len(sv.Headers) > 0 {
				return fmt.Errorf("%s: a stdio server has command (and args, env), not url or headers", where)
			}
		case "http", "sse":
			if sv.URL == "" || sv.Command != "" || len(sv.Args) > 0 || len(sv.Env) > 0 {
				return fmt.Errorf("%s: an %s server has url (and headers), not command, args or env", where, sv.Type)
			}
		default:
			return fmt.Errorf("%s: type must be empty (stdio), http or sse, got %q", where, sv.Type)
		}
	}
	return nil
}

// checkCordis checks a cordis step: a subcommand a user runs in a
// terminal, never a second agent on the run's state.
func checkCordis(step int, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("step %d: cordis needs a subcommand first (cordis: [trust, --cwd, \"{{cwd}}\", --state-dir, \"{{state}}\"])", step+1)
	}
	if args[0] == "acp" {
		return fmt.Errorf("step %d: cordis: acp would start a second agent; the run's agent is started by the harness", step+1)
	}
	return nil
}

// checkWaitFile checks that a waitFile names a file inside the workspace.
func checkWaitFile(step int, path string) error {
	if filepath.IsAbs(path) || !filepath.IsLocal(path) {
		return fmt.Errorf("step %d: waitFile must be a path inside the workspace, got %q", step+1, path)
	}
	return nil
}

func checkSession(step, session, sessions int) error {
	if session < 0 || session > sessions || sessions == 0 && session == 0 {
		return fmt.Errorf("step %d: no session %d at this point (%d created)", step+1, session, sessions)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
