package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
)

type event struct {
	Type  string `json:"type"`
	Delta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"delta"`
}

type chunk struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	} `json:"params"`
}

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: relay URL\n")
		os.Exit(2)
	}
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadBytes('\n'); err != nil {
		return
	}
	resp, err := http.Post(os.Args[1], "application/json", bytes.NewReader([]byte(`{"stream":true}`)))
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	defer resp.Body.Close()
	var c chunk
	c.JSONRPC, c.Method = "2.0", "session/update"
	c.Params.SessionID = "relay"
	c.Params.Update.SessionUpdate = "agent_message_chunk"
	c.Params.Update.Content.Type = "text"
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		var ev event
		if json.Unmarshal(data, &ev) != nil || ev.Type != "content_block_delta" || ev.Delta.Type != "text_delta" {
			continue
		}
		c.Params.Update.Content.Text = ev.Delta.Text
		out, _ := json.Marshal(&c)
		os.Stdout.Write(append(out, '\n'))
	}
	os.Stdout.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}` + "\n")
}
