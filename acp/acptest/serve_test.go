package acptest

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

func params(t *testing.T, v any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func wantCode(t *testing.T, err error, code int64) {
	t.Helper()
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("error %v, want code %d", err, code)
	}
}

func TestServeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "a.txt")
	if _, err := ServeFile(acp.MethodFSWriteTextFile, params(t, acp.WriteTextFileRequest{Path: path, Content: "one\ntwo\nthree\n"})); err != nil {
		t.Fatal(err)
	}
	line, limit := 2, 1
	got, err := ServeFile(acp.MethodFSReadTextFile, params(t, acp.ReadTextFileRequest{Path: path, Line: &line, Limit: &limit}))
	if err != nil || got.(acp.ReadTextFileResponse).Content != "two\n" {
		t.Fatalf("read line 2 limit 1: %#v, %v", got, err)
	}
	_, err = ServeFile(acp.MethodFSReadTextFile, params(t, acp.ReadTextFileRequest{Path: path + ".missing"}))
	wantCode(t, err, acp.CodeResourceNotFound)
	_, err = ServeFile("fs/delete", nil)
	wantCode(t, err, acp.CodeMethodNotFound)
}

// TestTerminals runs a real command: its output is cut from the front at
// the byte limit, its exit status is reported, and a released terminal is
// unknown afterwards.
func TestTerminals(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	ts := &Terminals{}
	limit := 3
	created, err := ts.Serve(acp.MethodTerminalCreate, params(t, acp.CreateTerminalRequest{
		Command: "sh", Args: []string{"-c", `printf "hello $GREETING"; exit 3`}, Env: []acp.EnvVariable{{Name: "GREETING", Value: "you"}}, OutputByteLimit: &limit,
	}))
	if err != nil {
		t.Fatal(err)
	}
	id := params(t, acp.TerminalRequest{TerminalID: created.(acp.CreateTerminalResponse).TerminalID})
	status, err := ts.Serve(acp.MethodTerminalWaitForExit, id)
	if st := status.(*acp.TerminalExitStatus); err != nil || st.ExitCode == nil || *st.ExitCode != 3 {
		t.Fatalf("wait_for_exit: %#v, %v", status, err)
	}
	out, err := ts.Serve(acp.MethodTerminalOutput, id)
	if o := out.(acp.TerminalOutputResponse); err != nil || o.Output != "you" || !o.Truncated || o.ExitStatus == nil {
		t.Fatalf("output: %#v, %v", out, err)
	}
	if _, err := ts.Serve(acp.MethodTerminalRelease, id); err != nil {
		t.Fatal(err)
	}
	_, err = ts.Serve(acp.MethodTerminalOutput, id)
	wantCode(t, err, acp.CodeInvalidParams)
	ts.KillAll()
}

func TestSelectKind(t *testing.T) {
	req := &acp.RequestPermissionRequest{Options: []acp.PermissionOption{{OptionID: "yes", Kind: acp.PermAllowOnce}, {OptionID: "no", Kind: acp.PermRejectOnce}}}
	if resp, ok := SelectKind(req, acp.PermRejectOnce); !ok || resp.Outcome != (acp.PermissionOutcome{Outcome: "selected", OptionID: "no"}) {
		t.Errorf("reject_once: %+v, %v", resp, ok)
	}
	if resp, ok := SelectKind(req, "cancelled"); !ok || resp.Outcome.Outcome != "cancelled" {
		t.Errorf("cancelled: %+v, %v", resp, ok)
	}
	if _, ok := SelectKind(req, acp.PermAllowAlways); ok {
		t.Error("allow_always was found among allow_once and reject_once")
	}
}
