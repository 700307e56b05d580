package replaytest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cordis-agent/cordis/llm/replay"
)

// LoadAuthored reads a hand-written fixture whose requests may not exist
// yet: only fixture.yml and the NNN.response.sse bodies of each
// conversation folder are required, numbered from 001 without gaps. The
// recording made against it is loaded strictly (replay.Load) before it
// replaces anything, so this loader only checks what it needs to serve.
func LoadAuthored(dir string) (*replay.Fixture, error) {
	meta, err := replay.LoadMeta(dir)
	if err != nil {
		return nil, err
	}
	fx := &replay.Fixture{Dir: dir, Name: filepath.Base(dir), Meta: meta}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries { // sorted by name: the binding order
		if !e.IsDir() || !replay.IsConversationName(e.Name()) {
			continue
		}
		c, err := loadResponses(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		fx.Conversations = append(fx.Conversations, c)
	}
	if len(fx.Conversations) == 0 {
		return nil, fmt.Errorf("authored fixture %s has no conversation folders (01-main/001.response.sse, ...)", dir)
	}
	return fx, nil
}

// loadResponses reads 001.response.sse, 002.response.sse, ... of one
// conversation folder; a request file beside a response is kept.
func loadResponses(dir string) (*replay.Conversation, error) {
	c := &replay.Conversation{Name: filepath.Base(dir)}
	for n := 1; ; n++ {
		resp, err := os.ReadFile(filepath.Join(dir, replay.CallFile(n, "response")))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, err
		}
		req, err := os.ReadFile(filepath.Join(dir, replay.CallFile(n, "request")))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		c.Calls = append(c.Calls, replay.Call{Request: req, Response: resp})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if n, _, ok := replay.ParseCallFile(e.Name()); !ok || n > len(c.Calls) {
			return nil, fmt.Errorf("%s: unexpected %s (want 001.response.sse, 002.response.sse, ... without gaps)", dir, e.Name())
		}
	}
	if len(c.Calls) == 0 {
		return nil, fmt.Errorf("%s holds no 001.response.sse", dir)
	}
	return c, nil
}
