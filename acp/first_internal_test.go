package acp

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sourcegraph/jsonrpc2"
)

// editorsInitialize are initialize requests as editors send them: the
// plain shape, which the first answer decodes without reflection.
var editorsInitialize = []string{
	// Zed
	`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"_meta":{"terminal_output":true,"terminal-auth":true}},"clientInfo":{"name":"zed","title":"Zed","version":"0.212.4"}}}`,
	// the TypeScript SDK's ClientSideConnection
	`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}}`,
	// the benchmark driver and the snapshot harness
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false},"protocolVersion":1}}`,
	` {"method":"initialize","params":{"protocolVersion":1,"_meta":{"a":[1,2.5,"x",null,{"b":false}],"a":{}}},"id":"first"} `,
}

func TestPlainInitializeTakesEditorsShapes(t *testing.T) {
	for _, line := range editorsInitialize {
		if _, _, ok := plainInitialize([]byte(line)); !ok {
			t.Errorf("left to the general path: %s", line)
		}
	}
}

// FuzzFirstInitialize: whenever the token decoder takes a line, the
// connection's decoding (jsonrpc2's Request, then decodeParams) takes it
// as an initialize request with the same id and params, and so does
// initializeRequest when it takes the line.
func FuzzFirstInitialize(f *testing.F) {
	for _, s := range append(editorsInitialize, fuzzSeeds...) {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"fs":{"writeTextFile":true}}}}`,
		`{"id":1,"method":"initialize","params":{"protocolVersion":1.0}}`,
		`{"id":1,"method":"initialize","params":{"protocolVersion":99999999999999999999}}`,
		`{"id":18446744073709551616,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"id":1,"method":"initialize","params":{"ProtocolVersion":1}}`,
		`{"id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"\u00e9\ud83d\ude00","version":"\xff"}}}`,
		`{"id":1,"method":"initialize","params":{"protocolVersion":1,"_meta":{"n":1e400}}}`,
		`{"id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"terminal":null}}}`,
		`{"id":1,"method":"initialize","params":{"protocolVersion":1}} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		id, p, ok := plainInitialize(line)
		if !ok {
			return
		}
		var conn jsonrpc2.Request
		if err := json.Unmarshal(line, &conn); err != nil || conn.Notif || conn.Method != MethodInitialize {
			t.Fatalf("the token decoder took a line the connection does not take as initialize (%v): %q", err, line)
		}
		if len(conn.ExtraFields) > 0 {
			t.Fatalf("the connection sees extra fields %v: %q", conn.ExtraFields, line)
		}
		var q InitializeRequest
		if err := decodeParams(&conn, &q, "protocolVersion"); err != nil {
			t.Fatalf("the token decoder took params the connection refuses (%v): %q", err, line)
		}
		if id != conn.ID {
			t.Fatalf("id %+v, the connection's %+v: %q", id, conn.ID, line)
		}
		if diff := cmp.Diff(&q, p); diff != "" {
			t.Fatalf("params differ (-connection +tokens): %s\n%q", diff, line)
		}
		if req, ok := initializeRequest(line); ok && req.ID != id {
			t.Fatalf("initializeRequest's id %+v, want %+v: %q", req.ID, id, line)
		}
	})
}

// TestInitializeResponseJSON: MarshalJSON writes what encoding/json's
// reflection writes, for responses with every field set at random (a
// field added to the types and not to MarshalJSON fails here).
func TestInitializeResponseJSON(t *testing.T) {
	type reflected InitializeResponse
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var r InitializeResponse
		fillRandom(rng, reflect.ValueOf(&r).Elem())
		got, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(reflected(r))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("case %d:\nMarshalJSON %s\nreflection  %s", i, got, want)
		}
		if via, _ := json.Marshal(&r); string(via) != string(want) {
			t.Fatalf("case %d: json.Marshal of the response %s, want %s", i, via, want)
		}
	}
}

var randomStrings = []string{"", "cordis", "env:ANTHROPIC_API_KEY", "Set ANTHROPIC_API_KEY", "a<b", "a>b", "a&b", `q"uote`, `back\slash`, "tab\there", "é", "\u2028", "😀", "\xff", "~ !#$%'()*+,-./:;=?@[]^_`{|}"}

func fillRandom(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	case reflect.Int, reflect.Int64:
		v.SetInt(rng.Int64N(2001) - 1000)
	case reflect.String:
		v.SetString(randomStrings[rng.IntN(len(randomStrings))])
	case reflect.Pointer:
		if rng.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fillRandom(rng, v.Elem())
		}
	case reflect.Slice:
		switch n := rng.IntN(4); n {
		case 0: // nil
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range s.Len() {
				fillRandom(rng, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Map:
		if rng.IntN(2) == 1 {
			m := reflect.MakeMap(v.Type())
			m.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf(any(randomStrings[rng.IntN(len(randomStrings))])))
			v.Set(m)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillRandom(rng, v.Field(i))
		}
	default:
		panic("fillRandom: add kind " + v.Kind().String())
	}
}
