package proc

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// Buffer is an io.Writer that keeps at most limit bytes of what is written
// to it: the first half and the last half. It is safe for concurrent use.
type Buffer struct {
	mu      sync.Mutex
	headCap int
	head    []byte
	tail    []byte // ring of tailCap bytes once full
	tailCap int
	pos     int // next write position in tail once full
	full    bool
	total   int64
}

// NewBuffer returns a Buffer keeping at most limit bytes (limit >= 2).
func NewBuffer(limit int) *Buffer {
	limit = max(limit, 2)
	h := limit / 2
	return &Buffer{headCap: h, tailCap: limit - h}
}

// Write records p; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.headCap - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if !b.full {
		if len(b.tail)+len(p) <= b.tailCap {
			b.tail = append(b.tail, p...)
			return n, nil
		}
		// Switch to a full ring: keep the last tailCap bytes.
		joined := append(b.tail, p...)
		b.tail = append([]byte(nil), joined[len(joined)-b.tailCap:]...)
		b.full, b.pos = true, 0
		return n, nil
	}
	if len(p) >= b.tailCap {
		copy(b.tail, p[len(p)-b.tailCap:])
		b.pos = 0
		return n, nil
	}
	k := copy(b.tail[b.pos:], p)
	copy(b.tail, p[k:])
	b.pos = (b.pos + len(p)) % b.tailCap
	return n, nil
}

// Total is the number of bytes written.
func (b *Buffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Omitted is the number of bytes written but not kept.
func (b *Buffer) Omitted() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.omitted()
}

func (b *Buffer) omitted() int64 {
	return b.total - int64(len(b.head)) - int64(len(b.tail))
}

// String returns the kept bytes. When bytes were dropped, the head and the
// tail are joined by a line saying how many, and both are trimmed to whole
// UTF-8 characters.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := b.tail
	if b.full {
		tail = append(append([]byte(nil), b.tail[b.pos:]...), b.tail[:b.pos]...)
	}
	dropped := b.omitted()
	if dropped == 0 {
		return string(b.head) + string(tail)
	}
	head := b.head
	// Trim a character cut at the end of the head or the start of the tail.
	for i := 0; i < utf8.UTFMax && len(head) > 0; i++ {
		r, size := utf8.DecodeLastRune(head)
		if r != utf8.RuneError || size > 1 {
			break
		}
		head = head[:len(head)-1]
		dropped++
	}
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
		dropped++
	}
	return fmt.Sprintf("%s\n... [%d bytes omitted] ...\n%s", head, dropped, tail)
}
