package proc

import (
	"slices"
	"testing"
)

// The provider keys are always hidden, a configured key variable too, and
// a variable the user exposes gets through; a nil policy is the default.
func TestEnvPolicy(t *testing.T) {
	env := []string{"PATH=/bin", "ANTHROPIC_API_KEY=a", "OPENAI_API_KEY=o", "MY_KEY=m", "HOME=/h"}
	tests := []struct {
		name   string
		policy *EnvPolicy
		want   []string
	}{
		{"nil is the default", nil, []string{"PATH=/bin", "MY_KEY=m", "HOME=/h"}},
		{"a configured key variable", NewEnvPolicy([]string{"MY_KEY"}, nil), []string{"PATH=/bin", "HOME=/h"}},
		{"exposed on purpose", NewEnvPolicy([]string{"MY_KEY"}, []string{"OPENAI_API_KEY"}), []string{"PATH=/bin", "OPENAI_API_KEY=o", "HOME=/h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.Filter(env); !slices.Equal(got, tt.want) {
				t.Errorf("Filter = %q, want %q", got, tt.want)
			}
		})
	}
	if got := NewEnvPolicy([]string{"MY_KEY"}, nil).Hidden(); !slices.Equal(got, []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "MY_KEY", "OPENAI_API_KEY"}) {
		t.Errorf("Hidden = %q", got)
	}
}
