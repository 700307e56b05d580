package tools

import (
	"context"
	"fmt"
	"time"
)

// editorWriteGrace is how long a write the editor was asked to make is
// still waited for once the call is cancelled. The request is already on
// its way; only the editor's answer tells whether the file changed, and a
// cancel must still be answered within a second.
const editorWriteGrace = 250 * time.Millisecond

// writeThroughEditor asks the editor to write content to path
// (fs/write_text_file). A cancel does not abandon the request at once:
// the answer that arrives within editorWriteGrace is the outcome, and
// without one the error says the outcome is unknown rather than that
// nothing was written.
func writeThroughEditor(ctx context.Context, fsys FileSystem, path, content string) error {
	if err := ctx.Err(); err != nil {
		return err // not asked: nothing changed
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(editorWriteGrace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-wctx.Done():
		}
	})
	defer stop()
	err := fsys.WriteTextFile(wctx, path, content)
	if err != nil && wctx.Err() != nil {
		return fmt.Errorf("the turn was cancelled before the editor answered, so it is not known whether %s was changed (Read it to see)", path)
	}
	return err
}
