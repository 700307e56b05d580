package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/internal/confine"
)

// ReadInput is the Read tool's input (Claude Code's shape).
type ReadInput struct {
	FilePath string `json:"file_path" jsonschema_description:"The absolute path of the file to read."`
	Offset   int    `json:"offset,omitempty" jsonschema:"minimum=1" jsonschema_description:"The 1-based line number to start reading from. Give it only when the file is too long to read at once."`
	Limit    int    `json:"limit,omitempty" jsonschema:"minimum=1" jsonschema_description:"How many lines to read (2000 when omitted). Give it only when the file is too long to read at once."`
}

const (
	readDefaultLimit = 2000
	readMaxLineChars = 2000
	// readMaxBytes stops the listing early so one call cannot flood the
	// model's context.
	readMaxBytes = 256 << 10
)

const (
	// imageMaxBase64 is the largest image the Anthropic Messages API
	// accepts, measured on its base64 text: a bigger one is rejected with
	// "image exceeds 5 MB maximum: N bytes > 5242880 bytes" (the API error
	// quoted in anthropics/claude-code issue #14887; Claude Code's
	// API_IMAGE_MAX_BASE64_SIZE is the same 5 * 1024 * 1024 and notes that
	// it is the base64 length, not the raw size). The rejected image would
	// stay in the history and fail every later request of the session, so
	// Read refuses it instead.
	imageMaxBase64 = 5 << 20
	// imageMaxBytes is the largest file whose base64 fits: 3,932,160 bytes
	// (3.75 MiB).
	imageMaxBytes = imageMaxBase64 / 4 * 3
	// imageMaxSide is the largest width or height the API accepts: "The
	// maximal dimensions per image are 8000x8000 px"
	// (https://platform.claude.com/docs/en/build-with-claude/vision; the
	// same page lowers it to 2000x2000 px for requests with more than 20
	// images, which one call cannot know).
	imageMaxSide = 8000
)

var readSpec = specFor[ReadInput]()

// imageExts are the names Read treats as images, with the media type the
// name claims. The bytes decide the type actually sent.
var imageExts = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
}

var imageNames = map[string]string{
	"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP",
}

type readTool struct{}

func (readTool) Name() string { return "Read" }

func (readTool) Description() string {
	return `Reads a file from the local filesystem and returns its lines numbered like "cat -n" (line number, a tab, the text).

- file_path must be an absolute path inside the session's directories.
- Up to 2000 lines are returned from the start of the file by default; use offset and limit to page through long files.
- Lines longer than 2000 characters are truncated.
- Directories cannot be read: use Glob, or ls through Bash.
- PNG, JPEG, GIF and WebP images are returned as images you can see (up to 3.75 MB and 8000x8000 pixels); other binary files are refused.
- Reading several files at once (several calls in one response) is encouraged.`
}

func (readTool) Schema() json.RawMessage { return readSpec.schema() }
func (readTool) Kind() Kind              { return KindRead }
func (readTool) ReadOnly() bool          { return true }

func (readTool) Describe(env *Env, input json.RawMessage) Description {
	var in ReadInput
	describeInput(input, &in)
	if in.FilePath == "" {
		return Description{Title: "Read"}
	}
	title := "Read " + displayPath(env, in.FilePath)
	switch {
	case in.Offset > 0 && in.Limit > 0:
		title += fmt.Sprintf(" (lines %d-%d)", in.Offset, in.Offset+in.Limit-1)
	case in.Offset > 0:
		title += fmt.Sprintf(" (from line %d)", in.Offset)
	case in.Limit > 0:
		title += fmt.Sprintf(" (lines 1-%d)", in.Limit)
	}
	loc := Location{Path: lexicalPath(env, in.FilePath)}
	if in.Offset > 0 {
		loc.Line = in.Offset
	}
	return Description{Title: title, Locations: []Location{loc}}
}

// Run reads a text file through env.FS (the editor's fs/read_text_file
// when it offers one, so unsaved buffers are seen) and returns it
// numbered. A .png, .jpg, .jpeg, .gif or .webp file is returned as an
// image instead, read from the local disk whatever env.FS is: the editor's
// fs/read_text_file reads text only.
func (t readTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in ReadInput
	if err := readSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if in.FilePath == "" {
		return Errorf("Read: file_path is required")
	}
	if in.Offset < 0 || in.Limit < 0 {
		return Errorf("Read: offset and limit must be positive")
	}
	path, err := env.Resolve(in.FilePath)
	if err != nil {
		return Errorf("Read: %v", err)
	}
	dirs := env.confined()
	defer dirs.Close()
	fi, statErr := dirs.Stat(path)
	if statErr == nil && fi.IsDir() {
		return Errorf("Read: %s is a directory, not a file. Use Glob to find files in it, or Bash with ls to list it.", path)
	}
	if statErr == nil && !fi.Mode().IsRegular() {
		return Errorf("Read: %v", confine.CheckRegular(path, fi))
	}
	if named, ok := imageExts[strings.ToLower(filepath.Ext(path))]; ok {
		return readImage(dirs, path, named)
	}
	offset := max(in.Offset, 1)
	limit := in.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	var text string
	if env.FS != nil && (statErr != nil || fi.Size() <= editorReadMaxBytes) {
		text, err = readFromEditor(ctx, env, dirs, path, offset, limit)
	} else {
		text, err = readFromDisk(ctx, dirs, path, offset, limit)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("Read was cancelled.")
		}
		return readError(path, err)
	}
	loc := Location{Path: path}
	if in.Offset > 0 {
		loc.Line = offset
	}
	return Result{Text: text, Display: withoutNotes(text), Locations: []Location{loc}}
}

// withoutNotes is a window of numbered lines without the notes that
// follow it (lineWindow puts them after a blank line, in parentheses):
// the paging hint is for the model, not the editor's card. Every line of
// the window starts with its number, so a blank line ends it.
func withoutNotes(text string) string {
	if i := strings.LastIndex(text, "\n\n("); i >= 0 {
		return text[:i]
	}
	return text
}

// editorReadMaxBytes is the largest file read through the editor (whose
// answer is one JSON-RPC message holding the whole text); a larger one is
// streamed from the local disk, which the editor shares.
const editorReadMaxBytes = 8 << 20

// errBinary marks a file Read refuses as binary.
var errBinary = errors.New("binary file")

func readError(path string, err error) Result {
	switch {
	case errors.Is(err, errNotExist), errors.Is(err, fs.ErrNotExist):
		return Errorf("Read: file %s does not exist", path)
	case errors.Is(err, confine.ErrNotRegular):
		return Errorf("Read: %v", err)
	case errors.Is(err, errBinary):
		return Errorf("Read: %v; only text files can be read", err)
	}
	return Errorf("Read: cannot read %s: %v", path, err)
}

// readFromEditor reads the file through the editor's fs/read_text_file,
// which sees unsaved buffers, and renders the window asked for.
func readFromEditor(ctx context.Context, env *Env, dirs *confine.Dirs, path string, offset, limit int) (string, error) {
	if lr, ok := env.FS.(LineReader); ok && offset > 1 {
		return readWindowFromEditor(ctx, lr, dirs, path, offset, limit)
	}
	content, err := readText(ctx, env, dirs, path, editorReadMaxBytes)
	if err != nil {
		return "", err
	}
	if isBinary(content) {
		return "", fmt.Errorf("%s is a %w (%d bytes)", path, errBinary, len(content))
	}
	return lineWindow(bufio.NewReader(strings.NewReader(content)), path, offset, limit)
}

// readWindowFromEditor reads a later window of a file through the
// editor's fs/read_text_file line and limit, so paging through a long
// file moves one window over the wire, not the whole file each time. One
// line more than shown is asked for, to tell whether the file goes on.
func readWindowFromEditor(ctx context.Context, lr LineReader, dirs *confine.Dirs, path string, offset, limit int) (string, error) {
	if _, err := dirs.Stat(path); err != nil {
		return "", err
	}
	content, err := lr.ReadTextLines(ctx, path, offset, limit+1)
	if err != nil {
		return "", err
	}
	if content == "" {
		return fmt.Sprintf("(offset %d is past the end of %s)", offset, path), nil
	}
	if isBinary(content) {
		return "", fmt.Errorf("%s is a %w", path, errBinary)
	}
	// The lines before the window stand in as empty ones, so the window
	// is numbered from offset.
	padded := strings.Repeat("\n", offset-1) + content
	return window(bufio.NewReader(strings.NewReader(padded)), path, offset, limit, false)
}

// readFromDisk streams the file from the local disk, holding only the
// lines shown, so that a window of a file of any size costs bounded memory.
func readFromDisk(ctx context.Context, dirs *confine.Dirs, path string, offset, limit int) (string, error) {
	at, err := dirs.Locate(path)
	if err != nil {
		return "", err
	}
	f, err := at.Open()
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(ctxReader{ctx, f}, readBufferBytes)
	head, err := br.Peek(8000)
	if err != nil && err != io.EOF {
		return "", err
	}
	if bytes.IndexByte(head, 0) >= 0 {
		size := int64(len(head))
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		return "", fmt.Errorf("%s is a %w (%d bytes)", path, errBinary, size)
	}
	return lineWindow(br, path, offset, limit)
}

// readImage returns the image file at path (whose name claims the media
// type named) as an image the model sees, with a text that says what was
// read. The bytes come from the local disk (through dirs), which the
// editor shares with the agent. The type sent is the one the bytes show,
// not the name; a file that is none of the four types, has a damaged
// header, or is larger than the model API accepts is refused.
func readImage(dirs *confine.Dirs, path, named string) Result {
	at, err := dirs.Locate(path)
	if err != nil {
		return Errorf("Read: cannot read %s: %v", path, err)
	}
	f, err := at.Open()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("Read: file %s does not exist", path)
	case errors.Is(err, confine.ErrNotRegular):
		return Errorf("Read: %v", err)
	case err != nil:
		return Errorf("Read: cannot read %s: %v", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return Errorf("Read: cannot read %s: %v", path, err)
	case fi.Size() > imageMaxBytes:
		return imageTooLarge(path, fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, imageMaxBytes+1))
	if err != nil {
		return Errorf("Read: cannot read %s: %v", path, err)
	}
	if len(data) > imageMaxBytes { // it grew since the Stat
		return imageTooLarge(path, int64(len(data)))
	}
	mediaType := sniffImage(data)
	if mediaType == "" {
		what := "binary data"
		switch {
		case len(data) == 0:
			what = "empty"
		case !isBinary(string(data)) && utf8.Valid(data):
			what = "text"
		}
		return Errorf("Read: %s is named like a %s image, but its content (%s) is not a PNG, JPEG, GIF or WebP image. Like other binary files it cannot be read; only text files and images of those four types can.",
			path, imageNames[named], what)
	}
	name := imageNames[mediaType]
	w, h, err := imageSize(mediaType, data)
	if err != nil {
		return Errorf("Read: %s starts like a %s image but its header is damaged or truncated (%v); it cannot be sent to the model.", path, name, err)
	}
	if w > imageMaxSide || h > imageMaxSide {
		return Errorf("Read: %s is a %s image of %dx%d pixels; the model accepts at most %dx%d. %s",
			path, name, w, h, imageMaxSide, imageMaxSide, shrinkHint)
	}
	kind := name
	if mediaType != named {
		kind = fmt.Sprintf("%s (although its name says %s)", name, imageNames[named])
	}
	return Result{
		Text:      fmt.Sprintf("Read image %s: %s, %dx%d pixels, %d bytes.", path, kind, w, h, len(data)),
		Images:    []Image{{MediaType: mediaType, Data: base64.StdEncoding.EncodeToString(data)}},
		Locations: []Location{{Path: path}},
	}
}

// shrinkHint tells the model how to get an image the API accepts. The copy
// must lie inside the session's directories for Read to take it; the API
// scales images down to about 1568 pixels on the long edge anyway.
const shrinkHint = "Make a smaller copy inside the session's directories and Read that instead, for example with Bash: " +
	"magick IN -resize '1568x1568>' -quality 85 OUT.jpg (ImageMagick; convert on version 6) " +
	"or sips -Z 1568 -s format jpeg IN --out OUT.jpg (macOS)."

func imageTooLarge(path string, size int64) Result {
	return Errorf("Read: %s is too large to send to the model (%d bytes; images are limited to %d bytes, 5 MB once base64-encoded). %s",
		path, size, imageMaxBytes, shrinkHint)
}

// sniffImage returns the media type the magic bytes of data show, or ""
// when they are none of PNG, JPEG, GIF and WebP.
func sniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// imageSize reads the pixel dimensions from the header of an image of
// mediaType (as sniffImage found it). Only the header is checked; the
// pixels are left to the model API.
func imageSize(mediaType string, data []byte) (w, h int, err error) {
	switch mediaType {
	case "image/png":
		// The IHDR chunk comes first: length, "IHDR", then width and
		// height, big-endian.
		if len(data) < 24 || string(data[12:16]) != "IHDR" {
			return 0, 0, errors.New("no IHDR chunk")
		}
		w, h = int(binary.BigEndian.Uint32(data[16:])), int(binary.BigEndian.Uint32(data[20:]))
	case "image/gif":
		// The logical screen descriptor follows the signature.
		if len(data) < 10 {
			return 0, 0, errors.New("no logical screen descriptor")
		}
		w, h = int(binary.LittleEndian.Uint16(data[6:])), int(binary.LittleEndian.Uint16(data[8:]))
	case "image/jpeg":
		w, h, err = jpegSize(data)
	case "image/webp":
		w, h, err = webpSize(data)
	default:
		err = fmt.Errorf("unsupported type %s", mediaType)
	}
	if err == nil && (w <= 0 || h <= 0) {
		err = fmt.Errorf("it claims %dx%d pixels", w, h)
	}
	return w, h, err
}

// jpegSize walks the JPEG segments to the first frame header (SOF0 to
// SOF15, less DHT, JPG and DAC which share the range): precision, height,
// width.
func jpegSize(data []byte) (w, h int, err error) {
	i := 2
	for {
		if i+4 > len(data) {
			return 0, 0, errors.New("no frame header")
		}
		if data[i] != 0xff {
			return 0, 0, fmt.Errorf("no segment marker at byte %d", i)
		}
		m := data[i+1]
		switch {
		case m == 0xff: // fill byte
			i++
			continue
		case m == 0x01 || m >= 0xd0 && m <= 0xd8: // markers without a segment
			i += 2
			continue
		case m == 0xd9 || m == 0xda:
			return 0, 0, errors.New("no frame header before the image data")
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 {
			return 0, 0, fmt.Errorf("bad segment length at byte %d", i)
		}
		if m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc {
			if n < 7 || i+9 > len(data) {
				return 0, 0, errors.New("truncated frame header")
			}
			return int(binary.BigEndian.Uint16(data[i+7:])), int(binary.BigEndian.Uint16(data[i+5:])), nil
		}
		i += 2 + n
	}
}

// webpSize reads the first chunk after the RIFF header: VP8X (extended:
// canvas size), VP8L (lossless) or "VP8 " (lossy key frame).
func webpSize(data []byte) (w, h int, err error) {
	if len(data) < 20 {
		return 0, 0, errors.New("no chunk after the RIFF header")
	}
	chunk, body := string(data[12:16]), data[20:]
	switch chunk {
	case "VP8X":
		// Flags and 3 reserved bytes, then canvas width-1 and height-1,
		// 24-bit little-endian each.
		if len(body) < 10 {
			return 0, 0, errors.New("truncated VP8X chunk")
		}
		return 1 + le24(body[4:]), 1 + le24(body[7:]), nil
	case "VP8L":
		// Signature 0x2f, then 14 bits of width-1 and 14 of height-1,
		// little-endian.
		if len(body) < 5 || body[0] != 0x2f {
			return 0, 0, errors.New("bad VP8L header")
		}
		bits := binary.LittleEndian.Uint32(body[1:])
		return 1 + int(bits&0x3fff), 1 + int(bits>>14&0x3fff), nil
	case "VP8 ":
		// A 3-byte frame tag, the start code 9d 01 2a, then width and
		// height in 14 bits each (2 scale bits above), little-endian.
		if len(body) < 10 || body[3] != 0x9d || body[4] != 0x01 || body[5] != 0x2a {
			return 0, 0, errors.New("bad VP8 key frame header")
		}
		return int(binary.LittleEndian.Uint16(body[6:]) & 0x3fff), int(binary.LittleEndian.Uint16(body[8:]) & 0x3fff), nil
	}
	return 0, 0, fmt.Errorf("unknown first chunk %q", chunk)
}

func le24(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }
