package chat

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Robota's messages may carry "parts" beside content (TUniversalMessagePart
// in its agent-core messages.ts): the text and images of a user turn, or
// of a tool's result (a screenshot). trail keeps them as they are in the
// record; the providers send the images (Robota's own converters do).
const (
	PartText        = "text"
	PartImageInline = "image_inline" // mimeType + base64 data
	PartImageURI    = "image_uri"    // uri (+ mimeType)
)

// Part is one entry of a message's parts.
type Part struct {
	Type     string
	Text     string
	MimeType string
	Data     string // base64, for image_inline
	URI      string
}

// IsImage reports whether the part is an image trail can send.
func (p Part) IsImage() bool {
	return p.Type == PartImageInline && p.MimeType != "" && p.Data != "" || p.Type == PartImageURI && p.URI != ""
}

// ImageParts returns the message's parts when at least one is an image a
// provider can be sent, nil otherwise (then content alone says it all).
// Parts of other kinds (Robota's audio) are left out.
func (m Message) ImageParts() []Part {
	raw, ok := m.extra("parts")
	if !ok {
		return nil
	}
	list := gjson.ParseBytes(raw)
	if !list.IsArray() {
		return nil
	}
	var out []Part
	images := false
	list.ForEach(func(_, v gjson.Result) bool {
		p := Part{Type: v.Get("type").String(), Text: v.Get("text").String(), MimeType: v.Get("mimeType").String(),
			Data: v.Get("data").String(), URI: v.Get("uri").String()}
		switch {
		case p.Type == PartText:
			out = append(out, p)
		case p.IsImage():
			out = append(out, p)
			images = true
		}
		return true
	})
	if !images {
		return nil
	}
	return out
}

// Sent is what of parts a provider sends, in order: content first when no
// part holds text (a tool's JSON result beside its screenshot), then the
// parts with text and the images. Empty text is left out (the APIs refuse
// it).
func Sent(parts []Part, content string) []Part {
	var out []Part
	hasText := false
	for _, p := range parts {
		hasText = hasText || p.Type == PartText && strings.TrimSpace(p.Text) != ""
	}
	if !hasText && strings.TrimSpace(content) != "" {
		out = append(out, Part{Type: PartText, Text: content})
	}
	for _, p := range parts {
		if p.IsImage() || p.Type == PartText && strings.TrimSpace(p.Text) != "" {
			out = append(out, p)
		}
	}
	return out
}
