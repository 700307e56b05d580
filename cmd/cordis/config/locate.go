package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Locate finds the user's config file, trying in order: flagPath (the
// --config flag), $CORDIS_CONFIG and <userConfigDir>/cordis/cordis.yml.
// found is false when none applies; the caller then runs its embedded
// default. A cordis.yml in cwd is not the user's: it belongs to the project
// the editor opened, which cmd/cordis lays over this file only once the
// user trusts it, and only for the settings a project may change.
//
// A path from the flag or the variable is returned without looking at the
// disk: the user asked for that file, so if it is missing, Load must fail
// rather than silently fall back. Relative paths are taken from cwd. An
// empty userConfigDir (os.UserConfigDir failed) skips that step; nil getenv
// means os.Getenv.
func Locate(flagPath string, getenv func(string) string, cwd string, userConfigDir string) (path string, found bool) {
	if getenv == nil {
		getenv = os.Getenv
	}
	fromCwd := func(p string) string {
		if filepath.IsAbs(p) || cwd == "" {
			return p
		}
		return filepath.Join(cwd, p)
	}
	if flagPath != "" {
		return fromCwd(flagPath), true
	}
	if env := getenv("CORDIS_CONFIG"); env != "" {
		return fromCwd(env), true
	}
	if userConfigDir != "" {
		if p := filepath.Join(userConfigDir, "cordis", "cordis.yml"); present(p) {
			return p, true
		}
	}
	return "", false
}

// present reports whether path should be used. Only a file that certainly
// does not exist is skipped: one we cannot stat is returned, so that Load
// reports why instead of cordis quietly running another configuration.
func present(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
