package main

import (
	"testing"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
)

func TestResolveRelative(t *testing.T) {
	tests := []struct{ path, source, want string }{
		{"", "/etc/cordis/cordis.yml:12", ""},
		{"/abs/hooks.json", "/etc/cordis/cordis.yml:12", "/abs/hooks.json"},
		{"./hooks.json", "/etc/cordis/cordis.yml:12", "/etc/cordis/hooks.json"},
		{"hooks/claude.json", "/etc/cordis/cordis.yml:3", "/etc/cordis/hooks/claude.json"},
		{"./hooks.json", config.EmbeddedSource, "./hooks.json"},
	}
	for _, tt := range tests {
		if got := resolveRelative(tt.path, tt.source); got != tt.want {
			t.Errorf("resolveRelative(%q, %q) = %q, want %q", tt.path, tt.source, got, tt.want)
		}
	}
}
