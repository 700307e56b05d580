package anthropic

import (
	"sync"
	"time"
)

type breakerState int

const (
	breakerClosed   breakerState = iota // primary model in use
	breakerOpen                         // fallback model in use until the cool-down ends
	breakerHalfOpen                     // one probe request may try the primary
)

type attemptOutcome int

const (
	outcomeSuccess    attemptOutcome = iota // the primary answered (HTTP 200)
	outcomeOverloaded                       // 529 / overloaded_error
	outcomeOther                            // any other failure: neither proves nor disproves overload
)

// breaker decides between the primary and the fallback model. It is shared
// by every Stream call of a Provider, hence the mutex.
type breaker struct {
	threshold int
	cooldown  time.Duration
	now       func() time.Time

	mu       sync.Mutex
	state    breakerState
	failures int // consecutive overloads while closed
	openedAt time.Time
	probing  bool // a half-open probe is in flight
}

func newBreaker(threshold int, cooldown time.Duration, now func() time.Time) *breaker {
	return &breaker{threshold: threshold, cooldown: cooldown, now: now}
}

// allowPrimary reports whether the next attempt should use the primary
// model. In the half-open state only one caller at a time gets to probe;
// the others stay on the fallback until the probe reports back.
func (b *breaker) allowPrimary() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == breakerOpen {
		if b.now().Sub(b.openedAt) < b.cooldown {
			return false
		}
		b.state, b.probing = breakerHalfOpen, false
	}
	if b.state == breakerHalfOpen {
		if b.probing {
			return false
		}
		b.probing = true
	}
	return true
}

// record reports the outcome of an attempt that used the primary model.
func (b *breaker) record(o attemptOutcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch o {
	case outcomeSuccess:
		b.state, b.failures, b.probing = breakerClosed, 0, false
	case outcomeOverloaded:
		switch b.state {
		case breakerHalfOpen:
			b.state, b.openedAt, b.probing = breakerOpen, b.now(), false
		case breakerClosed:
			b.failures++
			if b.failures >= b.threshold {
				b.state, b.openedAt, b.failures = breakerOpen, b.now(), 0
			}
		}
	case outcomeOther:
		if b.state == breakerHalfOpen {
			b.probing = false // let the next call probe
		} else {
			b.failures = 0
		}
	}
}

func (b *breaker) current() breakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}
