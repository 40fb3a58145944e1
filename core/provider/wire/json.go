package wire

import (
	"encoding/json"

	"trail/store"
)

// Marshal encodes v without HTML escaping, as the log does, so the request
// body logged is byte for byte the one sent.
func Marshal(v any) ([]byte, error) { return store.MarshalJSON(v) }

// Fields is a JSON object whose members keep their order: a provider's
// data for the record, built from a block as the API sent it.
type Fields []Field

// Field is one member of Fields.
type Field struct {
	Key   string
	Value any
}

// Set replaces key's value, or adds the member at the end.
func (f Fields) Set(key string, v any) Fields {
	for i := range f {
		if f[i].Key == key {
			f[i].Value = v
			return f
		}
	}
	return append(f, Field{Key: key, Value: v})
}

// MarshalJSON writes the members in order.
func (f Fields) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range f {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// ProviderData is a message's provider data (chat.Message.ProviderData):
// an object naming provider, then fields; nil when fields is empty
// (nothing to keep) or does not encode.
func ProviderData(provider string, fields Fields) json.RawMessage {
	if len(fields) == 0 {
		return nil
	}
	b, err := Marshal(append(Fields{{Key: "provider", Value: provider}}, fields...))
	if err != nil {
		return nil
	}
	return b
}
