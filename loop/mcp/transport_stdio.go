package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cordis-agent/cordis/internal/proc"
)

// stdioTransport speaks to a server process over its standard input and
// output: one JSON message per line, without Content-Length framing.
type stdioTransport struct {
	p  *proc.Process
	mu sync.Mutex // one message at a time on stdin
}

func (t *stdioTransport) connect(_ context.Context, c *client) error {
	go t.read(c)
	return nil
}

// read passes each line of the server's output to c. A line that is not a
// message is dropped by c; the lines after it are read as usual.
func (t *stdioTransport) read(c *client) {
	sc := bufio.NewScanner(t.p.Stdout())
	sc.Buffer(make([]byte, 0, 64<<10), maxMessageSize)
	for sc.Scan() {
		c.receive(sc.Bytes())
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		c.fail(fmt.Errorf("sent a message longer than %d MiB", maxMessageSize>>20))
	case err != nil:
		c.fail(fmt.Errorf("broke its output: %v", err))
	default:
		c.fail(errors.New("closed its output"))
	}
}

// send writes the message as one line. A server that stops reading blocks
// it until the process is stopped.
func (t *stdioTransport) send(_ context.Context, msg []byte, _ int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := t.p.Stdin().Write(append(msg, '\n'))
	return err
}

func (t *stdioTransport) opened(string) {}

// close ends the server's input, which tells it to exit; the server's
// stop does the rest.
func (t *stdioTransport) close() { t.p.Stdin().Close() }
