package loop

import (
	"strings"
	"sync"
	"time"
)

// Streamed text reaches the log in batches while it streams, so that a
// crash (kill -9) loses at most the last batch: at most streamBatchBytes,
// or what streamed in the last streamBatchDelay. When the message ends,
// the message event carries the whole text and the unwritten rest of the
// batch is dropped, so a short answer adds no event.
const (
	streamBatchBytes = 4 << 10
	streamBatchDelay = 250 * time.Millisecond
)

// textBatch collects streamed text for the log. add is called from the
// stream's callback, the flush timer runs on its own goroutine; mu orders
// them, and end stops both.
type textBatch struct {
	write func(text string)

	mu      sync.Mutex
	pending strings.Builder
	timer   *time.Timer
	armed   bool
	ended   bool
}

func newTextBatch(write func(text string)) *textBatch {
	return &textBatch{write: write}
}

// add appends streamed text, writing the batch once it is full and arming
// the timer that writes it once it is old.
func (b *textBatch) add(text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return
	}
	b.pending.WriteString(text)
	switch {
	case b.pending.Len() >= streamBatchBytes:
		b.flushLocked()
	case !b.armed:
		b.armed = true
		if b.timer == nil {
			b.timer = time.AfterFunc(streamBatchDelay, b.flushOld)
		} else {
			b.timer.Reset(streamBatchDelay)
		}
	}
}

func (b *textBatch) flushOld() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	if !b.ended {
		b.flushLocked()
	}
}

func (b *textBatch) flushLocked() {
	if b.timer != nil && b.armed {
		b.timer.Stop()
		b.armed = false
	}
	if b.pending.Len() == 0 {
		return
	}
	b.write(b.pending.String())
	b.pending.Reset()
}

// end stops the batch once the stream is over. With kept, the message
// event holds the whole text and the rest is dropped; otherwise (no
// response to keep) the rest is written, since nothing else records it.
func (b *textBatch) end(kept bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return
	}
	if !kept {
		b.flushLocked()
	}
	if b.timer != nil {
		b.timer.Stop()
	}
	b.ended = true
	b.pending.Reset()
}
