package permrules

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/cordis-agent/cordis/internal/trust"
)

// Trust keeps, in internal/trust's store, the allow rules of project
// settings files that the user vouched for. Each rule is its own entry,
// hashed from its text, under the source "<settings file>#permissions.allow"
// (beside, not mixed with, the hooks trusted in the same file): a rule
// edited in the file is a new rule, untrusted until vouched for again.
type Trust struct {
	Store *trust.Store
	// Files are the settings files whose allow rules it keeps (SaveAllow
	// writes Files.Local).
	Files Files
}

const (
	trustDialect = "claude-permissions"
	trustEvent   = "permissions.allow"
)

func trustSource(settingsPath string) string { return settingsPath + "#" + trustEvent }

// A project's additionalDirectories widen where tools reach, so each is
// trusted like an allow rule, under "<settings file>#permissions.additionalDirectories".
const dirEvent = "permissions.additionalDirectories"

func dirEntry(settingsPath, dir string) trust.Hook {
	return trust.Hook{Dialect: trustDialect, Source: settingsPath + "#" + dirEvent, Event: dirEvent, Type: "directory", Command: dir}
}

// TrustedDirectory reports whether the user vouched for dir, an
// additionalDirectories entry (as written) of the project settings file at
// settingsPath.
func (t Trust) TrustedDirectory(settingsPath, dir string) bool {
	return t.Store != nil && t.Store.Trusted(dirEntry(settingsPath, dir))
}

func trustEntry(settingsPath, rule string) trust.Hook {
	return trust.Hook{Dialect: trustDialect, Source: trustSource(settingsPath), Event: trustEvent, Type: "rule", Command: rule}
}

// Trusted reports whether the user vouched for rule as an allow rule of the
// settings file at settingsPath. Without a store, or when the store cannot
// be read, nothing is trusted.
func (t Trust) Trusted(settingsPath, rule string) bool {
	return t.Store != nil && t.Store.Trusted(trustEntry(settingsPath, rule))
}

// Record marks rule as trusted in the settings file at file (relative to
// projectDir), keeping the trust of the file's other allow rules (the
// store replaces a source's whole set, and rules no longer in the file
// drop out of it).
func (t Trust) Record(projectDir, file, rule string) error {
	if t.Store == nil {
		return trust.ErrNoStore
	}
	settingsPath := filepath.Join(projectDir, file)
	keep := []trust.Hook{trustEntry(settingsPath, rule)}
	perms, err := readSettings(projectDir, file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, r := range perms.Allow {
		if r != rule && t.Trusted(settingsPath, r) {
			keep = append(keep, trustEntry(settingsPath, r))
		}
	}
	return t.Store.TrustSource(trustDialect, trustSource(settingsPath), keep)
}

// SaveAllow saves rule as an allow rule of the project at projectDir (in
// its Files.Local, see SaveAllowRule) and records it as trusted, so that
// it holds in later sessions too.
func (t Trust) SaveAllow(projectDir, rule string) error {
	if _, err := SaveAllowRule(projectDir, t.Files.Local, rule); err != nil {
		return err
	}
	return t.Record(projectDir, t.Files.Local, rule)
}

// Discover lists the allow rules of dir's project settings files, and the
// allowed-tools of its project commands and skills, as entries `cordis
// hooks trust` trusts and `cordis hooks list` shows.
func (f Files) Discover(dir string) []trust.Discovered {
	var out []trust.Discovered
	for _, src := range f.Settings {
		if !src.Project {
			continue
		}
		rel := src.Path
		data, _, err := ReadProjectFile(dir, rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		path := filepath.Join(dir, rel)
		d := trust.Discovered{Dialect: trustDialect, Path: trustSource(path)}
		perms, perr := ParsePermissions(data)
		switch {
		case err != nil:
			d.Problems = append(d.Problems, err.Error())
		case perr != nil:
			d.Problems = append(d.Problems, "not valid JSON: "+perr.Error())
		}
		for _, r := range perms.Allow {
			if _, err := Parse(r, dir); err != nil {
				d.Problems = append(d.Problems, err.Error())
				continue
			}
			d.Hooks = append(d.Hooks, trustEntry(path, r))
		}
		if len(d.Hooks) > 0 || len(d.Problems) > 0 {
			out = append(out, d)
		}
		dirs := trust.Discovered{Dialect: trustDialect, Path: path + "#" + dirEvent}
		for _, d := range perms.AdditionalDirectories {
			dirs.Hooks = append(dirs.Hooks, dirEntry(path, d))
		}
		if len(dirs.Hooks) > 0 {
			out = append(out, dirs)
		}
	}
	return append(out, f.discoverFrontmatter(dir)...)
}

// readSettings reads the permissions of the project settings file at file
// (relative to dir).
func readSettings(dir, file string) (Permissions, error) {
	data, _, err := ReadProjectFile(dir, file)
	if err != nil {
		return Permissions{}, err
	}
	return ParsePermissions(data)
}
