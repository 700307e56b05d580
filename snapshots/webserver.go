package snapshots

import (
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"time"
)

// WebDir is a scenario's folder of files the harness serves over HTTP on
// a loopback port for the length of a run: the pages a WebFetch scenario
// fetches. The scenario's cordis.yml must let WebFetch reach 127.0.0.1
// (agent.webFetch.allowPrivateRanges), which cordis refuses by default.
const WebDir = "web"

// WebPlaceholder stands for the served folder's base URL,
// http://127.0.0.1:PORT, in fixtures and expected files, as {{cwd}} stands
// for the workspace: the port differs on every run.
const WebPlaceholder = "{{web}}"

// startWebServer serves sc's web/ folder, when it has one, and returns
// its base URL ("" when there is none) and a stop function.
func startWebServer(sc *Scenario) (base string, stop func(), err error) {
	dir := filepath.Join(sc.Dir, WebDir)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	// Files only, typed by extension; no directory listings, whose
	// modification times would differ between checkouts.
	root := os.DirFS(dir)
	files := http.FileServerFS(root)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if info, err := fs.Stat(root, path.Clean("."+r.URL.Path)); err != nil || info.IsDir() {
				http.NotFound(w, r)
				return
			}
			files.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}
