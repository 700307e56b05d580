package proc

import (
	"os"
	"strings"
	"sync"
)

// hidden are environment variables that never reach a subprocess: the
// model providers' credentials. A hook or a model-chosen command has no
// business with the agent's API key (the brief: secrets never reach hook
// input). cmd/cordis adds each provider's configured key variable.
var hidden = struct {
	sync.RWMutex
	names map[string]bool
}{names: map[string]bool{
	"ANTHROPIC_API_KEY":    true,
	"ANTHROPIC_AUTH_TOKEN": true,
	"OPENAI_API_KEY":       true,
}}

// HideEnv keeps the named variables out of every subprocess environment.
func HideEnv(names ...string) {
	hidden.Lock()
	defer hidden.Unlock()
	for _, n := range names {
		if n != "" {
			hidden.names[n] = true
		}
	}
}

// ExposeEnv lets the named variables through again (for a hook that calls
// the model API itself; cordis.yml's agent.exposeEnv).
func ExposeEnv(names ...string) {
	hidden.Lock()
	defer hidden.Unlock()
	for _, n := range names {
		delete(hidden.names, n)
	}
}

// Environ is the agent's environment without the hidden variables: what a
// subprocess inherits.
func Environ() []string { return filterEnv(os.Environ()) }

func filterEnv(env []string) []string {
	hidden.RLock()
	defer hidden.RUnlock()
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !hidden.names[name] {
			out = append(out, kv)
		}
	}
	return out
}
