package tools

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The PNG, JPEG and GIF files below are real images made by the standard
// library's encoders when the test runs. The WebP files, the progressive
// JPEG header and the damaged or fake files are authored here byte by byte:
// only their headers matter to Read, which never decodes pixels.

func testImage(w, h int) *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.White, color.Black})
	img.SetColorIndex(0, 0, 1)
	return img
}

func encodedPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodedJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodedGIF(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gif.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// riff wraps one authored WebP chunk in a RIFF/WEBP header.
func riff(fourcc string, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+len(body)))
	b.WriteString("WEBP" + fourcc)
	binary.Write(&b, binary.LittleEndian, uint32(len(body)))
	b.Write(body)
	return b.Bytes()
}

// webpLossless is an authored VP8L header: signature 0x2f, then 14 bits of
// width-1 and 14 of height-1, little-endian.
func webpLossless(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	return riff("VP8L", []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24), 0})
}

// webpExtended is an authored VP8X header: flags, 3 reserved bytes, then
// canvas width-1 and height-1 in 24 bits each.
func webpExtended(w, h int) []byte {
	return riff("VP8X", []byte{0, 0, 0, 0, byte(w - 1), byte((w - 1) >> 8), byte((w - 1) >> 16), byte(h - 1), byte((h - 1) >> 8), byte((h - 1) >> 16)})
}

// webpLossy is an authored VP8 key frame header: frame tag, start code
// 9d 01 2a, then 14-bit width and height.
func webpLossy(w, h int) []byte {
	return riff("VP8 ", []byte{0x50, 0x01, 0x00, 0x9d, 0x01, 0x2a, byte(w), byte(w >> 8), byte(h), byte(h >> 8)})
}

// jpegProgressive is an authored JPEG header: SOI, a JFIF APP0 segment, a
// fill byte, then an SOF2 (progressive) frame header of 5x7 pixels.
var jpegProgressive = []byte{
	0xff, 0xd8,
	0xff, 0xe0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
	0xff,
	0xff, 0xc2, 0x00, 0x0b, 8, 0x00, 0x07, 0x00, 0x05, 1, 1, 0x11, 0,
	0xff, 0xd9,
}

// pngHeader is an authored PNG signature and IHDR chunk (CRC left zero:
// Read checks only the header fields).
func pngHeader(w, h uint32) []byte {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = binary.BigEndian.AppendUint32(b, w)
	b = binary.BigEndian.AppendUint32(b, h)
	return append(b, 8, 6, 0, 0, 0, 0, 0, 0, 0)
}

func writeBytes(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadImage(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		file      string
		data      []byte
		mediaType string
		text      string // after "Read image <path>: "
	}{
		{"shot.png", encodedPNG(t, 3, 2), "image/png", "PNG, 3x2 pixels, %d bytes."},
		{"SHOT.PNG", encodedPNG(t, 2, 5), "image/png", "PNG, 2x5 pixels, %d bytes."},
		{"photo.jpg", encodedJPEG(t, 4, 3), "image/jpeg", "JPEG, 4x3 pixels, %d bytes."},
		{"photo.jpeg", jpegProgressive, "image/jpeg", "JPEG, 5x7 pixels, %d bytes."},
		{"anim.gif", encodedGIF(t, 6, 1), "image/gif", "GIF, 6x1 pixels, %d bytes."},
		{"lossless.webp", webpLossless(300, 200), "image/webp", "WebP, 300x200 pixels, %d bytes."},
		{"extended.webp", webpExtended(1024, 9), "image/webp", "WebP, 1024x9 pixels, %d bytes."},
		{"lossy.webp", webpLossy(640, 480), "image/webp", "WebP, 640x480 pixels, %d bytes."},
		// The bytes decide the type sent, not the name.
		{"really-a-jpeg.png", encodedJPEG(t, 4, 3), "image/jpeg", "JPEG (although its name says PNG), 4x3 pixels, %d bytes."},
		{"really-a-png.webp", encodedPNG(t, 3, 2), "image/png", "PNG (although its name says WebP), 3x2 pixels, %d bytes."},
		{"really-a-gif.jpg", encodedGIF(t, 6, 1), "image/gif", "GIF (although its name says JPEG), 6x1 pixels, %d bytes."},
		// The API's limits themselves are accepted.
		{"max-side.png", pngHeader(8000, 8000), "image/png", "PNG, 8000x8000 pixels, %d bytes."},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(env.Cwd, tt.file)
			writeBytes(t, path, tt.data)
			res := run(t, env, "Read", map[string]any{"file_path": path})
			want := Result{
				Text:      "Read image " + path + ": " + strings.Replace(tt.text, "%d", itoa(len(tt.data)), 1),
				Images:    []Image{{MediaType: tt.mediaType, Data: base64.StdEncoding.EncodeToString(tt.data)}},
				Locations: []Location{{Path: path}},
			}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// The dimensions Read reports for the encoder-made images agree with the
// standard library's decoders.
func TestImageSizeMatchesDecoders(t *testing.T) {
	for _, data := range [][]byte{encodedPNG(t, 17, 3), encodedJPEG(t, 33, 65), encodedGIF(t, 1, 300)} {
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		mt := sniffImage(data)
		if mt != "image/"+format {
			t.Errorf("%s sniffed as %q", format, mt)
		}
		w, h, err := imageSize(mt, data)
		if err != nil || w != cfg.Width || h != cfg.Height {
			t.Errorf("%s: imageSize = %dx%d, %v; the decoder says %dx%d", format, w, h, err, cfg.Width, cfg.Height)
		}
	}
}

func TestReadImageRefused(t *testing.T) {
	env := newEnv(t)
	p := func(name string) string { return filepath.Join(env.Cwd, name) }
	writeFile(t, p("fake.png"), "this is text, not a picture\n")
	writeBytes(t, p("junk.gif"), []byte{0, 1, 2, 3, 0xfe, 0xff, 0})
	writeBytes(t, p("empty.webp"), nil)
	writeBytes(t, p("sig-only.png"), []byte("\x89PNG\r\n\x1a\n"))
	writeBytes(t, p("no-frame.jpg"), []byte{0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0xff, 0xd9})
	writeBytes(t, p("cut.webp"), webpLossless(10, 10)[:22])
	writeBytes(t, p("zero.gif"), []byte("GIF89a\x00\x00\x05\x00"))
	writeBytes(t, p("wide.png"), pngHeader(8001, 10))
	writeBytes(t, p("tall.webp"), webpExtended(100, 12000))
	if err := os.Mkdir(p("dir.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	const hint = " Make a smaller copy inside the session's directories and Read that instead, for example with Bash: magick IN -resize '1568x1568>' -quality 85 OUT.jpg (ImageMagick; convert on version 6) or sips -Z 1568 -s format jpeg IN --out OUT.jpg (macOS)."
	tests := []struct {
		file, want string
	}{
		{"fake.png", "Read: " + p("fake.png") + " is named like a PNG image, but its content (text) is not a PNG, JPEG, GIF or WebP image. Like other binary files it cannot be read; only text files and images of those four types can."},
		{"junk.gif", "Read: " + p("junk.gif") + " is named like a GIF image, but its content (binary data) is not a PNG, JPEG, GIF or WebP image. Like other binary files it cannot be read; only text files and images of those four types can."},
		{"empty.webp", "Read: " + p("empty.webp") + " is named like a WebP image, but its content (empty) is not a PNG, JPEG, GIF or WebP image. Like other binary files it cannot be read; only text files and images of those four types can."},
		{"sig-only.png", "Read: " + p("sig-only.png") + " starts like a PNG image but its header is damaged or truncated (no IHDR chunk); it cannot be sent to the model."},
		{"no-frame.jpg", "Read: " + p("no-frame.jpg") + " starts like a JPEG image but its header is damaged or truncated (no frame header before the image data); it cannot be sent to the model."},
		{"cut.webp", "Read: " + p("cut.webp") + " starts like a WebP image but its header is damaged or truncated (bad VP8L header); it cannot be sent to the model."},
		{"zero.gif", "Read: " + p("zero.gif") + " starts like a GIF image but its header is damaged or truncated (it claims 0x5 pixels); it cannot be sent to the model."},
		{"wide.png", "Read: " + p("wide.png") + " is a PNG image of 8001x10 pixels; the model accepts at most 8000x8000." + hint},
		{"tall.webp", "Read: " + p("tall.webp") + " is a WebP image of 100x12000 pixels; the model accepts at most 8000x8000." + hint},
		{"missing.png", "Read: file " + p("missing.png") + " does not exist"},
		{"dir.png", "Read: " + p("dir.png") + " is a directory, not a file. Use Glob to find files in it, or Bash with ls to list it."},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res := run(t, env, "Read", map[string]any{"file_path": p(tt.file)})
			if diff := cmp.Diff(Result{Text: tt.want, IsError: true}, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadImageSizeLimit(t *testing.T) {
	env := newEnv(t)
	// The largest accepted file encodes to exactly the API's 5 MB
	// (5,242,880 bytes of base64).
	atLimit := append(encodedPNG(t, 2, 2), make([]byte, imageMaxBytes)...)[:imageMaxBytes]
	ok := filepath.Join(env.Cwd, "at-limit.png")
	writeBytes(t, ok, atLimit)
	res := run(t, env, "Read", map[string]any{"file_path": ok})
	if res.IsError || len(res.Images) != 1 {
		t.Fatalf("at the limit: %+v", res.Text)
	}
	if n := len(res.Images[0].Data); n != 5242880 {
		t.Errorf("base64 of the largest image is %d bytes, want 5242880", n)
	}

	big := filepath.Join(env.Cwd, "too-big.png")
	writeBytes(t, big, append(atLimit, 0))
	res = run(t, env, "Read", map[string]any{"file_path": big})
	want := "Read: " + big + " is too large to send to the model (3932161 bytes; images are limited to 3932160 bytes, 5 MB once base64-encoded). Make a smaller copy inside the session's directories and Read that instead, for example with Bash: magick IN -resize '1568x1568>' -quality 85 OUT.jpg (ImageMagick; convert on version 6) or sips -Z 1568 -s format jpeg IN --out OUT.jpg (macOS)."
	if diff := cmp.Diff(Result{Text: want, IsError: true}, res); diff != "" {
		t.Errorf("too large (-want +got):\n%s", diff)
	}
}

func TestReadImageOutsideRoots(t *testing.T) {
	env := newEnv(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pic := filepath.Join(outside, "secret.png")
	writeBytes(t, pic, encodedPNG(t, 2, 2))
	link := filepath.Join(env.Cwd, "link.png")
	if err := os.Symlink(pic, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{pic, link} {
		res := run(t, env, "Read", map[string]any{"file_path": path})
		if !res.IsError || len(res.Images) != 0 || !strings.Contains(res.Text, "is outside the session's directories") {
			t.Errorf("Read %s = %+v, want it refused as outside the session's directories", path, res)
		}
	}
}

// Images come from the local disk even when the editor's text file system
// is in use.
func TestReadImageBypassesEditorFS(t *testing.T) {
	env := newEnv(t)
	fsys := &fakeFS{files: map[string]string{}}
	env.FS = fsys
	path := filepath.Join(env.Cwd, "pic.gif")
	data := encodedGIF(t, 2, 2)
	writeBytes(t, path, data)
	fsys.files[path] = "what the editor would say"
	res := run(t, env, "Read", map[string]any{"file_path": path})
	if res.IsError || len(res.Images) != 1 || res.Images[0].Data != base64.StdEncoding.EncodeToString(data) {
		t.Fatalf("Read = %+v", res)
	}
	if len(fsys.calls) != 0 {
		t.Errorf("the editor's file system was asked: %v", fsys.calls)
	}
}

// The session log persists Results: the field names are part of its
// format.
func TestResultImagesJSON(t *testing.T) {
	b, err := json.Marshal(Result{Text: "t", Images: []Image{{MediaType: "image/png", Data: "iVBORw0KGgo="}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"text":"t","images":[{"mediaType":"image/png","data":"iVBORw0KGgo="}]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// Header parsing never panics on a file cut anywhere.
func TestImageSizeTruncated(t *testing.T) {
	for _, data := range [][]byte{encodedPNG(t, 3, 2), encodedJPEG(t, 3, 2), jpegProgressive, encodedGIF(t, 3, 2), webpLossless(3, 2), webpExtended(3, 2), webpLossy(3, 2)} {
		for n := range len(data) {
			if mt := sniffImage(data[:n]); mt != "" {
				imageSize(mt, data[:n])
			}
		}
	}
}

func TestSendableImage(t *testing.T) {
	tests := []struct {
		name, mediaType, data string
		ok                    bool
	}{
		{"png", "image/png", "iVBORw0KGgo=", true},
		{"webp", "image/webp", "UklGRg==", true},
		{"svg is not taken by the APIs", "image/svg+xml", "PHN2Zy8+", false},
		{"no type", "", "iVBORw0KGgo=", false},
		{"not base64", "image/png", "not base64!", false},
		{"over the limit", "image/png", strings.Repeat("A", imageMaxBase64+4), false},
	}
	for _, tt := range tests {
		img, ok := SendableImage(tt.mediaType, tt.data)
		if ok != tt.ok || ok && (img.MediaType != tt.mediaType || img.Data != tt.data) {
			t.Errorf("%s: SendableImage = %+v, %v; want ok %v", tt.name, img, ok, tt.ok)
		}
	}
}
