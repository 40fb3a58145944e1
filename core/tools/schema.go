package tools

import (
	"encoding/json"
	"sync"

	"trail/core/chat"
	"trail/logfmt"
)

// param is one property of a tool's JSON schema, in the order the model sees it.
type param struct {
	name, typ, desc string
	required        bool
	enum            []string
}

// schema builds Robota's zod-derived JSON schema: {type: "object",
// properties, required}, each property {type, description} (+enum).
//
// A tool's schema is the same for the whole process, and a step asks for
// it several times (the tool names, the request, its digest, the log), so
// each is built once: building them was a fifth of a one-shot's
// allocations.
func schema(name, desc string, params ...param) chat.ToolSchema {
	if s, ok := schemas.Load(name); ok {
		return s.(chat.ToolSchema)
	}
	s := buildSchema(name, desc, params)
	schemas.Store(name, s)
	return s
}

var schemas sync.Map // tool name -> chat.ToolSchema

func buildSchema(name, desc string, params []param) chat.ToolSchema {
	props := make(logfmt.Object, 0, len(params))
	required := []string{}
	for _, p := range params {
		prop := logfmt.Object{logfmt.F("type", p.typ)}
		if len(p.enum) > 0 {
			prop = append(prop, logfmt.F("enum", p.enum))
		}
		prop = append(prop, logfmt.F("description", p.desc))
		props = append(props, logfmt.F(p.name, prop))
		if p.required {
			required = append(required, p.name)
		}
	}
	raw, err := logfmt.Marshal(logfmt.Object{
		logfmt.F("type", "object"),
		logfmt.F("properties", props),
		logfmt.F("required", required),
	})
	if err != nil {
		// Only literal strings go in; encoding cannot fail.
		raw = []byte(`{"type":"object","properties":{}}`)
	}
	return chat.ToolSchema{Name: name, Description: desc, Parameters: json.RawMessage(raw)}
}
