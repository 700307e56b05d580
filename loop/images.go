package loop

import (
	"fmt"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/tools"
)

// Limits on the images one model request carries. The Anthropic API
// refuses a request over 32 MB, and with more than 20 images it lowers
// each image's maximum to 2000x2000 px, which images Read accepted
// (8000 px) may exceed: a refused request would fail every later turn of
// the session, since the images stay in its history.
const (
	maxRequestImages      = 20
	maxRequestImageBase64 = 20 << 20
)

// limitImages returns msgs with the oldest images replaced by a text note
// once the newest maxRequestImages images, or maxRequestImageBase64 bytes
// of them, are kept, in the messages themselves and in tool results. The
// history is not changed: messages and blocks are copied where an image is
// left out.
func limitImages(msgs []llm.Message) []llm.Message {
	count, size := 0, 0
	keep := func(b llm.Block) bool {
		count++
		size += len(b.Data)
		return count <= maxRequestImages && size <= maxRequestImageBase64
	}
	var out []llm.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		content, changed := limitBlocks(msgs[i].Content, keep)
		if !changed {
			continue
		}
		if out == nil {
			out = append([]llm.Message(nil), msgs...)
		}
		out[i] = llm.Message{Role: msgs[i].Role, Content: content}
	}
	if out == nil {
		return msgs
	}
	return out
}

// limitBlocks walks blocks from the last to the first, asking keep about
// each image (tool results' included), and returns a copy with the images
// it refuses replaced by a note, or blocks itself when all are kept.
func limitBlocks(blocks []llm.Block, keep func(llm.Block) bool) ([]llm.Block, bool) {
	var out []llm.Block
	replace := func(j int, b llm.Block) {
		if out == nil {
			out = append([]llm.Block(nil), blocks...)
		}
		out[j] = b
	}
	for j := len(blocks) - 1; j >= 0; j-- {
		b := blocks[j]
		switch b.Type {
		case llm.BlockImage:
			if !keep(b) {
				replace(j, llm.Text(imageLeftOut(b)))
			}
		case llm.BlockToolResult:
			if content, changed := limitBlocks(b.Content, keep); changed {
				b.Content = content
				replace(j, b)
			}
		}
	}
	return out, out != nil
}

func imageLeftOut(b llm.Block) string {
	return fmt.Sprintf("[an earlier image (%s, %d KB) is left out of this request to keep it within the model API's limits; read the file again to see it]",
		b.MediaType, tools.DecodedLen(b.Data)>>10)
}
