package sessionlog

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"path/filepath"
)

// MaxIDLen bounds session and agent ids. Ids arrive from the network
// (session/load), and a bound keeps file names well under NAME_MAX.
const MaxIDLen = 128

// idEncoding is lower-case base32 without padding: URL- and filename-safe,
// and single-case so case-insensitive file systems cannot merge two ids.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns a fresh session id: "sess_" followed by 26 base32 characters
// of 128 random bits.
func NewID() string {
	var b [16]byte
	rand.Read(b[:]) // crypto/rand.Read never returns an error.
	return "sess_" + idEncoding.EncodeToString(b[:])
}

// ValidID reports whether id is safe to use as a file name inside the
// sessions directory: 1 to MaxIDLen bytes of ASCII letters, digits, '_' and
// '-'. Everything else, including '.', path separators and NUL, is rejected,
// so no id can name a parent directory or escape the directory.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// Dir returns the directory that holds the session logs under stateDir.
func Dir(stateDir string) string {
	return filepath.Join(stateDir, "sessions")
}

// Path returns <stateDir>/sessions/<sessionID>.jsonl.
//
// Ids from the network must be checked with ValidID first (session/load
// answers an invalid one with "not found"). Path itself never lets an id leave
// the directory: an id that is not ValidID is replaced by fileName's hashed
// form, so a missed check is a wrong file name, never path traversal.
func Path(stateDir, sessionID string) string {
	return filepath.Join(Dir(stateDir), fileName(sessionID)+".jsonl")
}

// SubagentPath returns
// <stateDir>/sessions/<parentSessionID>/subagents/<agentID>.jsonl, the log of
// a Task subagent. Ids are mapped as in Path: agent ids are often derived from
// model-chosen tool call ids, which this package cannot vouch for.
func SubagentPath(stateDir, parentSessionID, agentID string) string {
	return filepath.Join(Dir(stateDir), fileName(parentSessionID), "subagents", fileName(agentID)+".jsonl")
}

// fileName returns id when it is ValidID, and otherwise "~" followed by 26
// base32 characters of its SHA-256: deterministic (the same id finds the same
// file), free of separators and dots, and never equal to a valid id, since
// ValidID rejects '~'.
func fileName(id string) string {
	if ValidID(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "~" + idEncoding.EncodeToString(sum[:16])
}
