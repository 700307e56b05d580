//go:build !linux

package proc

import (
	"context"
	"time"
)

// runWarm has no waiting helper to use outside Linux (there is no
// sandbox there).
func runWarm(ctx, runCtx context.Context, c Cmd, limit int, grace time.Duration) (Result, bool) {
	return Result{}, false
}
