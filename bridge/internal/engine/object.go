package engine

import (
	"bytes"
	"encoding/json"
)

// Object is a JSON object that keeps its keys in the order they were set,
// so that a hook's input is byte-for-byte stable and in the order its
// dialect documents. The zero value is an empty object.
type Object struct {
	// EscapeHTML escapes <, > and & in strings as encoding/json does by
	// default (the Claude bridge's input always has); without it a hook
	// that compares a command like `a && b` literally sees it as written.
	EscapeHTML bool
	fields     []objectField
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
	enc.SetEscapeHTML(o.EscapeHTML)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
