package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/internal/secrets"
)

// credentialFile is where `cordis login` keeps provider keys:
// <user config dir>/cordis/credentials, mode 0600, one NAME=value line per
// key variable. Providers read a key from the environment first and from
// this file only when the variable is unset; the file is read on each
// use, so a login in another terminal takes effect without a restart.
type credentialFile struct{ path string }

// userCredentials is the user's credential file.
func userCredentials() (credentialFile, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return credentialFile{}, fmt.Errorf("no user config directory for the credential file: %v", err)
	}
	return credentialFile{path: filepath.Join(dir, "cordis", "credentials")}, nil
}

// lookup returns the stored value of name, "" when there is none. The
// value is registered for scrubbing before it is returned, as the
// environment's keys are at start-up.
func (c credentialFile) lookup(name string) string {
	lines, _ := c.lines()
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, name+"="); ok {
			secrets.Register(name, v)
			return v
		}
	}
	return ""
}

// lines are the file's NAME=value lines; a missing file has none.
func (c credentialFile) lines() ([]string, error) {
	data, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// store sets name to value, keeping the file's other keys.
func (c credentialFile) store(name, value string) error {
	lines, err := c.lines()
	if err != nil {
		return err
	}
	lines = slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, name+"=") })
	return c.write(append(lines, name+"="+value))
}

// remove deletes the keys of names; the file goes when none is left.
func (c credentialFile) remove(names ...string) error {
	lines, err := c.lines()
	if err != nil {
		return err
	}
	lines = slices.DeleteFunc(lines, func(l string) bool {
		name, _, _ := strings.Cut(l, "=")
		return slices.Contains(names, name)
	})
	if len(lines) == 0 {
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return c.write(lines)
}

// write replaces the file in one rename, created 0600 so the key is never
// readable by others, not even for a moment.
func (c credentialFile) write(lines []string) error {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".credentials-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path)
}

// keyGetenv is the providers' getenv: the environment, then, for the key
// variables only, the credential file.
func keyGetenv(creds credentialFile, keyNames []string) func(string) string {
	return func(name string) string {
		if v := os.Getenv(name); v != "" || !slices.Contains(keyNames, name) {
			return v
		}
		return creds.lookup(name)
	}
}
