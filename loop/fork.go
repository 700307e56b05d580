package loop

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/sessionlog"
)

// ForkSession copies a session into a new one (session/fork, unstable
// in ACP): a new log holds the original's events after its own
// session/start, so the fork has the conversation, mode, model, usage
// and title the original had, and the two go on separately. The
// original need not be open, and stays as it is. Subagent logs and
// transcripts are not copied: they are rendered again when needed.
func (a *Agent) ForkSession(ctx context.Context, req *acp.ForkSessionRequest) (*acp.ForkSessionResponse, error) {
	if !sessionlog.ValidID(req.SessionID) {
		return nil, acp.SessionNotFound(req.SessionID)
	}
	if err := a.sessionError(ctx); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(req.Cwd); err != nil || !fi.IsDir() {
		return nil, acp.InvalidParams("field \"cwd\": %q is not a directory", req.Cwd)
	}
	events, warnings, err := sessionlog.Read(sessionlog.Path(a.cfg.StateDir, req.SessionID))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, acp.SessionNotFound(req.SessionID)
	case err != nil:
		return nil, acp.InternalError("session %s cannot be read: %v", req.SessionID, err)
	}
	for _, w := range warnings {
		a.log.Warn("session log", "warning", w)
	}
	id := sessionlog.NewID()
	s, err := a.createSession(id, req.Cwd, req.AdditionalDirectories)
	if err != nil {
		return nil, acp.InternalError("creating session: %v", err)
	}
	if err := s.copyEvents(events); err != nil {
		a.closeOpen(id)
		return nil, acp.InternalError("copying session %s: %v", req.SessionID, err)
	}
	s.restore(ctx, events, false)
	if s.title != "" {
		a.saveTitle(id, s.title)
	}
	s.startMCP(ctx, req.MCPServers)
	s.queueSessionStart(ctx, "resume")
	return &acp.ForkSessionResponse{SessionID: id, Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// copyEvents appends another log's events to the session's, except those
// that belong to the original log itself (its start and its reopenings).
func (s *Session) copyEvents(events []sessionlog.Event) error {
	for _, ev := range events {
		if ev.Type == sessionlog.TypeSessionStart || ev.Type == sessionlog.TypeSessionLoad {
			continue
		}
		if _, err := s.log.Append(ev.Type, ev.Data); err != nil {
			return err
		}
	}
	return nil
}

// listPageSize is how many sessions one session/list answer holds.
const listPageSize = 50

// listPage returns the page of list that cursor points to and the cursor
// of the next page ("" after the last). A cursor names the last session
// of the previous page by its place in List's order (updated time, then
// id), so a session updated meanwhile moves without shifting the others.
func listPage(list []sessionlog.Summary, cursor string) ([]sessionlog.Summary, string, error) {
	start := 0
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", acp.InvalidParams("field \"cursor\": not a cursor cordis gave (%v)", err)
		}
		start = len(list)
		for i, s := range list {
			if s.UpdatedAt.Before(at) || (s.UpdatedAt.Equal(at) && s.SessionID > id) {
				start = i
				break
			}
		}
	}
	end := min(start+listPageSize, len(list))
	page := list[start:end]
	if end == len(list) {
		return page, "", nil
	}
	last := page[len(page)-1]
	return page, encodeCursor(last.UpdatedAt, last.SessionID), nil
}

func encodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d/%s", at.UnixNano(), id))
}

func decodeCursor(cursor string) (time.Time, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return time.Time{}, "", err
	}
	nanos, id, ok := strings.Cut(string(raw), "/")
	n, err := strconv.ParseInt(nanos, 10, 64)
	if !ok || err != nil || !sessionlog.ValidID(id) {
		return time.Time{}, "", errors.New("malformed")
	}
	return time.Unix(0, n).UTC(), id, nil
}
