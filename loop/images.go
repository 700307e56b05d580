package loop

import (
	"encoding/base64"
	"fmt"
	"strings"

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
	return replaceImages(msgs, keep, imageLeftOut)
}

// replaceImages returns msgs with each image keep refuses (asked from the
// newest to the oldest) replaced by the text note gives it.
func replaceImages(msgs []llm.Message, keep func(llm.Block) bool, note func(llm.Block) string) []llm.Message {
	var out []llm.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		content, changed := limitBlocks(msgs[i].Content, keep, note)
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
func limitBlocks(blocks []llm.Block, keep func(llm.Block) bool, note func(llm.Block) string) ([]llm.Block, bool) {
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
				replace(j, llm.Text(note(b)))
			}
		case llm.BlockToolResult:
			if content, changed := limitBlocks(b.Content, keep, note); changed {
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

func imageNotTaken(b llm.Block) string {
	return fmt.Sprintf("[an image (%s, %d KB) is not shown: the model in use does not take images]", b.MediaType, tools.DecodedLen(b.Data)>>10)
}

// maxImageBytes is the largest image the Anthropic API accepts (5 MB,
// decoded).
const maxImageBytes = 5 << 20

// checkImage validates an image from the editor: a media type the model
// APIs accept (image/jpg is read as image/jpeg), valid base64, at most
// maxImageBytes. It returns the media type to send.
func checkImage(mimeType, data string) (string, error) {
	mediaType := strings.ToLower(strings.TrimSpace(mimeType))
	if mediaType == "image/jpg" {
		mediaType = "image/jpeg"
	}
	switch mediaType {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
	default:
		return "", fmt.Errorf("image type %q is not supported; send JPEG, PNG, GIF or WebP", mimeType)
	}
	if n := tools.DecodedLen(data); n > maxImageBytes {
		return "", fmt.Errorf("the image is %.1f MB; the limit is 5 MB", float64(n)/(1<<20))
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return "", fmt.Errorf("the image data is not valid base64: %v", err)
	}
	return mediaType, nil
}

// imageOK reports whether checkImage accepts an image.
func imageOK(mimeType, data string) bool {
	_, err := checkImage(mimeType, data)
	return err == nil
}
