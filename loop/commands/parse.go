package commands

import (
	"os"
	"strings"
)

// validName reports whether name is non-empty and only uses
// [a-zA-Z0-9:_-].
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ':' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Parse splits prompt text into a command name and its arguments. It
// reports false for anything that is not a command: text not starting
// with '/', a name outside [a-zA-Z0-9:_-] (so `/var/log/syslog` is text),
// or a name that is an existing absolute path (so `/tmp` is text).
// exists is os.Stat-based when nil.
func Parse(text string, exists func(path string) bool) (name, args string, ok bool) {
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	rest := text[1:]
	end := strings.IndexFunc(rest, isSpace)
	if end < 0 {
		name = rest
	} else {
		name, args = rest[:end], strings.TrimSpace(rest[end:])
	}
	if !validName(name) {
		return "", "", false
	}
	if exists == nil {
		exists = pathExists
	}
	if exists("/" + name) {
		return "", "", false
	}
	return name, args, true
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
