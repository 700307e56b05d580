package main

import (
	"bufio"
	"bytes"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			os.Stdout.Write(answer(line))
		}
		if err != nil {
			return
		}
	}
}

// answer cuts the id out of the request without decoding it (the floor
// must not pay for a JSON decoder) and returns a canned result.
func answer(line []byte) []byte {
	id := []byte("null")
	if i := bytes.Index(line, []byte(`"id":`)); i >= 0 {
		rest := line[i+5:]
		if j := bytes.IndexAny(rest, ",}"); j >= 0 {
			id = bytes.TrimSpace(rest[:j])
		}
	}
	result := `{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}`
	if bytes.Contains(line, []byte(`"session/new"`)) {
		result = `{"sessionId":"floor"}`
	}
	out := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	return append(out, "}\n"...)
}
