package core

// stream_options.include_usage asks an OpenAI-compatible server for token
// counts; some servers refuse the field (a 400 or 422 naming it). The
// openai provider then sends the request again without it
// (Response.StreamOptionsRejected), and the session remembers that, in
// the record's providerOptions, for the base URL that refused: later
// steps leave the field out from the start. The settings' streamOptions
// false leaves it out everywhere.

import (
	"encoding/json"
)

const fieldProviderOptions = "providerOptions"

// providerOptions is the record's providerOptions field.
type providerOptions struct {
	BaseURL       string `json:"baseUrl,omitempty"`
	StreamOptions *bool  `json:"streamOptions,omitempty"`
}

// streamOptionsOff reports whether requests leave stream_options out.
func (s *session) streamOptionsOff() bool {
	if s.opts.Settings.StreamOptionsOff {
		return true
	}
	if !s.streamOptsLoaded {
		s.streamOptsLoaded = true
		var po providerOptions
		if raw, ok := s.rec.Fields.Get(fieldProviderOptions); ok && json.Unmarshal(raw, &po) == nil {
			s.noStreamOptions = po.StreamOptions != nil && !*po.StreamOptions && po.BaseURL == s.pcfg.Ref().BaseURL
		}
	}
	return s.noStreamOptions
}

// rememberNoStreamOptions records that the server refused stream_options.
func (s *session) rememberNoStreamOptions() {
	if s.noStreamOptions {
		return
	}
	s.noStreamOptions = true
	off := false
	_ = s.rec.Fields.Set(fieldProviderOptions, providerOptions{BaseURL: s.pcfg.Ref().BaseURL, StreamOptions: &off})
	s.obs.Event(StepEvent{Kind: EvNotice, Text: s.pcfg.Name + ": the server refuses stream_options; sent without it (no token counts), " +
		"and this session leaves it out from now on"})
}
