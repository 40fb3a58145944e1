package cassette

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
)

// Two runs of the same script never send byte-identical requests: message
// ids and timestamps are new, the usage metadata of an answer is what the
// provider counted, and the system prompt names the working directory, the
// day and the platform. So a request matches its recording when the
// digests are equal, or else when the messages agree on what the model
// reads: role, content, state, tool calls, tool call id, name, provider
// data and any other key, with the recorded working directory read as the
// new one and the system prompt's Date and Platform lines left out.

// ignored reports whether a message key is one that differs between runs
// by nature.
func ignored(key string) bool {
	return key == "id" || key == "timestamp" || key == "metadata"
}

// mismatch says where want (recorded) and got (sent now) first differ, as
// `message 5 (tool) content differs: "…" vs "…"`; "" when they agree.
func mismatch(want, got []json.RawMessage, wantCwd, gotCwd string) string {
	for i := range min(len(want), len(got)) {
		w, g := gjson.ParseBytes(want[i]), gjson.ParseBytes(got[i])
		role := g.Get("role").String()
		for _, k := range keysOf(w, g) {
			wv, gv := w.Get(gjson.Escape(k)), g.Get(gjson.Escape(k))
			ws, gs, same := compare(k, role, wv, gv, wantCwd, gotCwd)
			if same {
				continue
			}
			a, b := shortPair(wv, gv, ws, gs)
			return fmt.Sprintf("message %d (%s) %s differs: %s vs %s", i, cmpRole(w, g), k, a, b)
		}
	}
	switch {
	case len(want) > len(got):
		return fmt.Sprintf("%d messages recorded, %d sent: message %d (%s) is missing", len(want), len(got), len(got), gjson.GetBytes(want[len(got)], "role").String())
	case len(got) > len(want):
		return fmt.Sprintf("%d messages recorded, %d sent: message %d (%s) is new", len(want), len(got), len(want), gjson.GetBytes(got[len(want)], "role").String())
	}
	return ""
}

// keysOf lists the keys of both objects, the recorded message's first, in
// their order, without the ignored ones.
func keysOf(w, g gjson.Result) []string {
	var keys []string
	add := func(k, _ gjson.Result) bool {
		if s := k.String(); !ignored(s) && !slices.Contains(keys, s) {
			keys = append(keys, s)
		}
		return true
	}
	w.ForEach(add)
	g.ForEach(add)
	return keys
}

func cmpRole(w, g gjson.Result) string {
	if r := g.Get("role").String(); r != "" {
		return r
	}
	return w.Get("role").String()
}

// compare compares one key of a recorded and a new message, and returns
// the two as the diff shows them: a content string as compared (the
// recorded working directory read as the new one), anything else as JSON.
func compare(key, role string, w, g gjson.Result, wantCwd, gotCwd string) (ws, gs string, same bool) {
	ws, gs = text(w), text(g)
	if w.Raw == g.Raw {
		return ws, gs, true
	}
	if w.Exists() != g.Exists() || key != "content" || w.Type != gjson.String || g.Type != gjson.String {
		return ws, gs, false
	}
	if wantCwd != "" && gotCwd != "" && wantCwd != gotCwd {
		ws = strings.ReplaceAll(ws, wantCwd, gotCwd)
	}
	if role == "system" && dropRunLines(ws) == dropRunLines(gs) {
		return ws, gs, true
	}
	return ws, gs, ws == gs
}

// dropRunLines leaves out the lines of trail's default system prompt that
// describe the run rather than the task (system_prompt.go).
func dropRunLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.HasPrefix(l, "Date: ") || strings.HasPrefix(l, "Platform: ") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// toolNames reads the names of a logged tools array; nil when the log
// holds none (a side call, or a log that never logged its schemas).
func toolNames(tools json.RawMessage) []string {
	r := gjson.ParseBytes(tools)
	if !r.IsArray() {
		return nil
	}
	names := []string{}
	r.ForEach(func(_, t gjson.Result) bool {
		names = append(names, t.Get("name").String())
		return true
	})
	return names
}

// toolsMismatch compares the tools a request offers with the recorded
// ones by name: a model offered other tools may answer otherwise, while a
// tool's description changing between trail versions does not make the
// recording wrong. "" when they agree or the recording does not say.
func toolsMismatch(want []string, got []chat.ToolSchema) string {
	if want == nil {
		return ""
	}
	names := make([]string, len(got))
	for i, t := range got {
		names[i] = t.Name
	}
	if slices.Equal(want, names) {
		return ""
	}
	return fmt.Sprintf("tools differ: recorded [%s], sent [%s]", strings.Join(want, " "), strings.Join(names, " "))
}

// shortPair renders two differing values for the one-line diff. Strings
// are shown from a little before their first differing character, cut to
// 40 characters with … where they were cut, so two long tool results that
// differ at the end show the end; other values as JSON, the same way.
func shortPair(w, g gjson.Result, ws, gs string) (string, string) {
	wr, gr := []rune(ws), []rune(gs)
	d := 0
	for d < len(wr) && d < len(gr) && wr[d] == gr[d] {
		d++
	}
	from := max(0, d-10)
	return cut(w, ws, from), cut(g, gs, from)
}

func text(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.String()
	}
	return v.Raw
}

func cut(v gjson.Result, s string, from int) string {
	if !v.Exists() {
		return "(none)"
	}
	r := []rune(s)
	from = min(from, len(r))
	out := string(r[from:min(len(r), from+40)])
	if from > 0 {
		out = "…" + out
	}
	if from+40 < len(r) {
		out += "…"
	}
	if v.Type != gjson.String {
		return out
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(out)
	return strings.TrimSuffix(b.String(), "\n")
}
