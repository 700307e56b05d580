package engine

import (
	"bytes"
	"encoding/json"
)

// Object is a JSON object that keeps its keys in the order they were set,
// so that a hook's input is byte-for-byte stable and in the order its
// dialect documents. The zero value is an empty object.
//
// Strings are written as both dialects' own tools write them (Node's
// JSON.stringify, Rust's serde_json): <, > and & stay as they are, so a
// hook that looks for `a && b` in its raw input finds it.
type Object struct {
	fields []objectField
}

type objectField struct {
	key string
	val any
}

// Set appends key with its value: a json.RawMessage as it is (empty is
// null), anything else as encoding/json marshals it (null when it cannot).
func (o *Object) Set(key string, val any) { o.fields = append(o.fields, objectField{key, val}) }

// JSON is the object's encoding.
func (o *Object) JSON() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o.fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(o.encode(f.key))
		b.WriteByte(':')
		b.Write(o.encode(f.val))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (o *Object) encode(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		if len(raw) == 0 {
			return []byte("null")
		}
		return raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
