package openai

import (
	"net/http"
	"strconv"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire"
)

// early reads the chunks a stream begins with, before any content. Some
// servers report a failure there with status 200, where they would
// otherwise have answered its status: Azure's GPT-5.2 deployments stream
// one chunk {"error":{"type":"server_error","code":"rate_limit_exceeded"}}
// in place of a 429 (epam/ai-dial-adapter-openai #348); LiteLLM and
// OpenRouter put the upstream's status in the error's code ("429", 502).
// Such a chunk fails the attempt as its status would, retried when that
// status is (wire.Client.Early). Chunks that carry nothing yet (the
// role, Azure's prompt_filter_results) are held and looked past; an
// error that retrying cannot cure (a key, a request) goes on to the
// stream reader, which reports it as it always did.
func early(ev wire.Event) (hold bool, status int) {
	if !gjson.ValidBytes(ev.Data) {
		return false, 0
	}
	c := gjson.ParseBytes(ev.Data)
	e := c.Get("error")
	switch {
	case ev.Name == "error":
		e = c // llama.cpp's error: line holds the error itself
	case e.IsObject():
	case c.Get("object").Str == "error":
		e = c // vLLM
	default:
		if empty(c) {
			return true, 0
		}
		return false, 0
	}
	if s := retriedStatus(e); s != 0 {
		return false, s
	}
	return false, 0
}

// retriedStatus is the status an error object stands for when that status
// is retried, else 0: a numeric code or status (or one written as a
// string), else the kind its code or type names.
func retriedStatus(e gjson.Result) int {
	for _, k := range []string{"code", "status"} {
		if n, err := strconv.Atoi(e.Get(k).String()); err == nil && n >= 400 && n <= 599 {
			if wire.RetryableStatus(n) {
				return n
			}
			return 0
		}
	}
	for _, k := range []string{"code", "type"} {
		if e.Get(k).Type != gjson.String {
			continue // a number that is no status says nothing here
		}
		switch e.Get(k).String() {
		case "rate_limit_exceeded", "rate_limit_error":
			return http.StatusTooManyRequests
		case "server_error", "api_error", "internal_error":
			return http.StatusInternalServerError
		case "overloaded", "overloaded_error", "server_overloaded":
			return http.StatusServiceUnavailable
		case "":
			continue
		}
		return 0 // the first kind named decides
	}
	return 0
}

// empty reports whether a chunk carries nothing of the answer yet: no
// text, reasoning, refusal, tool call or finish reason.
func empty(c gjson.Result) bool {
	for _, ch := range c.Get("choices").Array() {
		d := ch.Get("delta")
		for _, k := range []string{"content", "reasoning_content", "reasoning", "refusal"} {
			if d.Get(k).String() != "" {
				return false
			}
		}
		if d.Get("tool_calls").Exists() || d.Get("function_call").Exists() || ch.Get("finish_reason").String() != "" {
			return false
		}
	}
	return !c.Get("usage").IsObject()
}
