package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Ledger is what the provider has served in a run, kept in the run
// directory so that a restarted agent (session/load after a restart)
// continues where the previous process stopped, and so that the harness
// can tell unused recordings from used ones after the last process exits.
type Ledger struct {
	// Conversations in the order the agent started them.
	Conversations []LedgerConversation `json:"conversations"`
	// Failures are the mismatches and extra calls the provider reported
	// to the agent as model errors, in order.
	Failures []string `json:"failures,omitempty"`
}

// LedgerConversation binds an agent conversation to a fixture folder.
type LedgerConversation struct {
	// Key identifies the agent conversation: a hash of its first system
	// block and first message, which every later request repeats.
	Key string `json:"key"`
	// System hashes the first system block (to tell subagents from
	// sessions when naming a new recording).
	System string `json:"system"`
	Name   string `json:"name"`
	// Used counts the calls served (replay) or recorded (record).
	Used int `json:"used"`
}

// ReadLedger reads dir/ledger.json; a missing file is an empty ledger.
func ReadLedger(dir string) (*Ledger, error) {
	l := &Ledger{}
	data, err := os.ReadFile(filepath.Join(dir, LedgerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, l); err != nil {
		return nil, fmt.Errorf("replay: %s: %w", filepath.Join(dir, LedgerFile), err)
	}
	return l, nil
}

// write replaces dir/ledger.json atomically.
func (l *Ledger) write(dir string) error {
	if dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, LedgerFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, LedgerFile))
}

// Used returns how many calls of the named conversation were served.
func (l *Ledger) Used(name string) int {
	for _, c := range l.Conversations {
		if c.Name == name {
			return c.Used
		}
	}
	return 0
}

// ConversationKey returns the key of the conversation a request body
// belongs to (Ledger's LedgerConversation.Key): the hash of its first
// system block and first message, which every request of the conversation
// repeats.
func ConversationKey(body []byte) (string, error) {
	obj, err := decodeObject(body)
	if err != nil {
		return "", err
	}
	key, _ := routeKeys(obj)
	return key, nil
}

// routeKeys returns the conversation key and the system hash of a request
// body: a conversation is recognised by its first system block and first
// message, which the agent repeats in every request of that conversation.
func routeKeys(body map[string]any) (key, system string) {
	var sys0 any
	if blocks, ok := body["system"].([]any); ok && len(blocks) > 0 {
		sys0 = blocks[0]
	}
	var msg0 any
	if msgs, ok := body["messages"].([]any); ok && len(msgs) > 0 {
		msg0 = msgs[0]
	}
	return hashJSON([]any{sys0, msg0}), hashJSON(sys0)
}

func hashJSON(v any) string {
	data, _ := json.Marshal(v) // sorted keys: stable
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}
