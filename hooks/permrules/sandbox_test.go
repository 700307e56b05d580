package permrules

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func block(t *testing.T, text string) *sandboxBlock {
	t.Helper()
	var b sandboxBlock
	if err := json.Unmarshal([]byte(text), &b); err != nil {
		t.Fatal(err)
	}
	return &b
}

// A project may make the sandbox stricter, never looser; scalars of later
// layers win; the policy is last.
func TestResolveSandbox(t *testing.T) {
	user := sandboxLayer{path: "/h/.claude/settings.json", block: block(t, `{"enabled":true,"excludedCommands":["docker *"],"filesystem":{"allowWrite":["~/.cache"]},"network":{"allowedDomains":["github.com"]}}`)}
	project := sandboxLayer{path: "/p/.claude/settings.json", project: true, block: block(t, `{"enabled":false,"autoAllowBashIfSandboxed":true,"excludedCommands":["rm *"],"allowUnsandboxedCommands":true,"filesystem":{"allowWrite":["//etc"],"denyRead":["./secrets"]},"network":{"allowedDomains":["evil.example"],"deniedDomains":["tracker.example"],"allowAllUnixSockets":true}}`)}
	var notices []string
	got := resolveSandbox([]sandboxLayer{user, project}, "/h", "/p", &notices)
	if !got.Enabled || !got.AutoAllow || !got.AllowUnsandboxed || got.AllowUnixSockets {
		t.Errorf("scalars = %+v", got)
	}
	if !slices.Equal(got.Excluded, []string{"docker *"}) || !slices.Equal(got.AllowWrite, []string{"/h/.cache"}) ||
		!slices.Equal(got.AllowedDomains, []string{"github.com"}) || !slices.Equal(got.DeniedDomains, []string{"tracker.example"}) ||
		!slices.Equal(got.DenyRead, []string{"/p/secrets"}) {
		t.Errorf("lists = %+v", got)
	}
	joined := strings.Join(notices, "\n")
	for _, key := range []string{"enabled: false", "excludedCommands", "filesystem.allowWrite", "network.allowedDomains", "allowAllUnixSockets"} {
		if !strings.Contains(joined, key) {
			t.Errorf("no notice about the project's %s: %q", key, notices)
		}
	}

	// A sandbox only the project turned on asks before each command.
	notices = nil
	got = resolveSandbox([]sandboxLayer{{path: "/p/.claude/settings.json", project: true, block: block(t, `{"enabled":true}`)}}, "/h", "/p", &notices)
	if !got.Enabled || got.AutoAllow {
		t.Errorf("project-only sandbox = %+v, want enabled and asking", got)
	}

	// The policy's word is final.
	managed := sandboxLayer{path: "/etc/claude-code/managed-settings.json", managed: true, block: block(t, `{"enabled":true,"allowUnsandboxedCommands":false}`)}
	got = resolveSandbox([]sandboxLayer{{path: "/h/s.json", block: block(t, `{"enabled":false}`)}, managed}, "/h", "/p", &notices)
	if !got.Enabled || got.AllowUnsandboxed {
		t.Errorf("with the policy = %+v", got)
	}
}

func TestSandboxPath(t *testing.T) {
	for in, want := range map[string]string{
		"//tmp/build": "/tmp/build", "~/.kube": "/h/.kube", "/out": "/h/.claude/out", "./dist": "/p/dist", "dist": "/p/dist",
	} {
		if got := sandboxPath(in, "/h", "/h/.claude", "/p"); got != want {
			t.Errorf("sandboxPath(%q) = %q, want %q", in, got, want)
		}
	}
}
