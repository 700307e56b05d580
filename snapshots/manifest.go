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
	// Env adds fixed environment variables for the agent process.
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
	Restart         *RestartStep         `yaml:"restart,omitempty"`
}

// InitializeStep sends initialize.
type InitializeStep struct{}

// NewSessionStep sends session/new with the workspace as cwd.
type NewSessionStep struct{}

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
	// CancelWhen sends session/cancel as soon as a frame matching it
	// arrives from the agent.
	CancelWhen *FrameMatch `yaml:"cancelWhen,omitempty"`
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

// LoadSessionStep sends session/load for an earlier session.
type LoadSessionStep struct {
	Session int `yaml:"session"`
}

// RestartStep ends the agent process (closing stdin, or SIGKILL with
// kill) and starts a new one on the same state directory.
type RestartStep struct {
	Kill bool `yaml:"kill,omitempty"`
}

var permissionKinds = []string{"allow_once", "allow_always", "reject_once", "reject_always", "cancelled"}

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
		n := 0
		for _, set := range []bool{s.Initialize != nil, s.NewSession != nil, s.Prompt != nil, s.SetMode != nil, s.SetConfigOption != nil, s.LoadSession != nil, s.Restart != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("step %d: want exactly one action (initialize, newSession, prompt, setMode, setConfigOption, loadSession, restart), got %d", i+1, n)
		}
		switch {
		case s.NewSession != nil:
			sessions++
		case s.Prompt != nil:
			if s.Prompt.Text == "" {
				return fmt.Errorf("step %d: prompt.text is required", i+1)
			}
			for _, p := range s.Prompt.Permissions {
				if !contains(permissionKinds, p) {
					return fmt.Errorf("step %d: permission answer %q is not one of %s", i+1, p, strings.Join(permissionKinds, ", "))
				}
			}
			if c := s.Prompt.CancelWhen; c != nil && *c == (FrameMatch{}) {
				return fmt.Errorf("step %d: cancelWhen needs method, update or status", i+1)
			}
			if err := checkSession(i, s.Prompt.Session, sessions); err != nil {
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
		case s.LoadSession != nil:
			if s.LoadSession.Session < 1 {
				return fmt.Errorf("step %d: loadSession.session is required (1 for the first session)", i+1)
			}
			if err := checkSession(i, s.LoadSession.Session, sessions); err != nil {
				return err
			}
		}
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
