package loop

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/tools"
)

// linkedFileLimit caps the bytes of a file a prompt links to that reach
// the model (as @path does in a command file); the rest is cut with a
// marker the model sees.
const linkedFileLimit = 100 << 10

// linkedResource is what the model gets for a resource_link the user put
// in the prompt (an @-mention in Zed when the editor does not embed it).
// A file:// link to a regular text file inside the session's directories
// is read — through the editor when it offers fs/read_text_file, so an
// unsaved buffer is what the model sees, else from the disk, confined to
// the session's directories — and capped at linkedFileLimit. Any other
// link (a directory, a web page, a file outside the session, one that
// cannot be read) stays a link, with the reason it was not read.
func (s *Session) linkedResource(ctx context.Context, b acp.ContentBlock) llm.Block {
	link := fmt.Sprintf("[@%s](%s)", cmp.Or(b.Name, b.Title, b.URI), b.URI)
	u, err := url.Parse(b.URI)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return llm.Text(link)
	}
	text, err := s.readLinkedFile(ctx, u.Path)
	if err != nil {
		return llm.Text(fmt.Sprintf("%s (not read: %v)", link, err))
	}
	return llm.Text(fmt.Sprintf("<context ref=%q>\n%s\n</context>", b.URI, text))
}

// readLinkedFile reads path for linkedResource.
func (s *Session) readLinkedFile(ctx context.Context, path string) (string, error) {
	env := &tools.Env{Cwd: s.cwd, Roots: s.roots}
	abs, err := env.Resolve(path)
	if err != nil {
		return "", err
	}
	dirs := confine.New(s.roots...)
	defer dirs.Close()
	// Only a regular file is read (a FIFO is refused, not waited on), and
	// its size on the disk the editor shares decides whether the editor
	// is asked for all of it.
	at, err := dirs.Locate(abs)
	if err != nil {
		return "", err
	}
	f, err := at.Open()
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	var data []byte
	if s.agent.client.Capabilities().FS.ReadTextFile && fi.Size() <= linkedFileLimit {
		text, err := clientFS{c: s.agent.client, sessionID: s.id}.ReadTextFile(ctx, abs)
		if err != nil {
			return "", err
		}
		data = []byte(text)
	} else if data, err = io.ReadAll(io.LimitReader(f, linkedFileLimit+1)); err != nil {
		return "", err
	}
	if bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 {
		return "", fmt.Errorf("%s is not a text file", abs)
	}
	if len(data) <= linkedFileLimit {
		return string(data), nil
	}
	data = data[:linkedFileLimit]
	// Cut at a rune boundary: drop the bytes of a rune the cap split.
	for i := 0; i < utf8.UTFMax-1 && len(data) > 0; i++ {
		if r, size := utf8.DecodeLastRune(data); r != utf8.RuneError || size != 1 {
			break
		}
		data = data[:len(data)-1]
	}
	return strings.TrimRight(string(data), "\n") + fmt.Sprintf("\n[cordis: %s cut at %d bytes of %d; read the rest with the Read tool]", abs, linkedFileLimit, fi.Size()), nil
}
