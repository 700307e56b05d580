package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
)

// FuzzParse checks that Parse never panics, that every failure is a
// single-line *config.Error, and that every success decodes all plugins.
// Seeds live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	reg := testRegistry()
	getenv := envOf(map[string]string{
		"MODEL":    "claude-sonnet-4-5",
		"MULTI":    "a: b\n- c\n",
		"BRACES":   "{x}",
		"SPACE":    " ",
		"TOKENS":   "1024",
		"DISABLED": "true",
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.Parse(data, "fuzz.yml", reg, getenv)
		if err != nil {
			var cerr *config.Error
			if !errors.As(err, &cerr) {
				t.Fatalf("error %T is not a *config.Error: %v", err, err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("error spans lines: %q", msg)
			}
			return
		}
		for _, w := range cfg.Warnings {
			if strings.ContainsAny(w, "\r\n") {
				t.Fatalf("warning spans lines: %q", w)
			}
		}
		for _, p := range cfg.Plugins {
			if p.ID == "" || p.Name == "" || p.Config == nil {
				t.Fatalf("incomplete plugin %+v", p)
			}
		}
	})
}
