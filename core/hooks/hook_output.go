package hooks

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"trail/core/permission"
	"trail/core/settings"
)

// answerJSON is a hook's JSON stdout (Claude Code's shape). Every field is
// optional; unknown fields are ignored.
type answerJSON struct {
	Continue           *bool         `json:"continue"`
	StopReason         string        `json:"stopReason"`
	Decision           string        `json:"decision"`
	Reason             string        `json:"reason"`
	SystemMessage      string        `json:"systemMessage"`
	SuppressOutput     bool          `json:"suppressOutput"`
	HookSpecificOutput *specificJSON `json:"hookSpecificOutput"`
}

type specificJSON struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
}

// parseAnswer reads stdout as hook JSON when it is a JSON object.
// isJSON is false for plain text (used as context as it is); err is set for
// text that looks like JSON but is not the hook shape.
func parseAnswer(stdout []byte) (out *answerJSON, isJSON bool, err error) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false, nil
	}
	var h answerJSON
	if err := json.Unmarshal(trimmed, &h); err != nil {
		return nil, false, err
	}
	return &h, true, nil
}

// DecisionDefer is PreToolUse's fourth answer (Claude Code's print mode):
// the call does not run, and the step stops with it pending.
const DecisionDefer = "defer"

// permissionPriority orders PreToolUse decisions when several hooks answer:
// deny beats defer beats ask beats allow (Claude Code's order).
func permissionPriority(d string) int {
	switch d {
	case permission.DecisionDeny:
		return 4
	case DecisionDefer:
		return 3
	case permission.DecisionAsk:
		return 2
	case permission.DecisionAllow:
		return 1
	}
	return 0
}

// invalid names the first value of an answer outside Claude Code's schema
// for event, "" when all are known. Values are case-sensitive there too:
// "Deny" is not "deny".
func (h *answerJSON) invalid(event string) string {
	switch h.Decision {
	case "", "block":
	case "approve":
		if event != PreToolUse {
			return `decision "approve", which only a PreToolUse hook can give`
		}
	default:
		return fmt.Sprintf("decision %q, which is not \"block\"", h.Decision)
	}
	hs := h.HookSpecificOutput
	if hs != nil && hs.HookEventName != "" && hs.HookEventName != event {
		// Claude Code discards it ("Hook returned incorrect event name"):
		// a helper written for one event must not approve calls of another.
		return fmt.Sprintf("hookSpecificOutput for %q, not %q", hs.HookEventName, event)
	}
	if hs == nil || event != PreToolUse {
		return ""
	}
	if d := hs.PermissionDecision; d != "" && permissionPriority(d) == 0 {
		return fmt.Sprintf("permissionDecision %q, which is not allow, deny, ask or defer", d)
	}
	if in := bytes.TrimSpace(hs.UpdatedInput); len(in) > 0 && !bytes.Equal(in, []byte("null")) && in[0] != '{' {
		return "an updatedInput that is not an object"
	}
	return ""
}

// capTexts passes every text of an answer that reaches the model or the
// screen through limit.
func (h *answerJSON) capTexts(limit func(string) string) {
	h.Reason, h.StopReason, h.SystemMessage = limit(h.Reason), limit(h.StopReason), limit(h.SystemMessage)
	if hs := h.HookSpecificOutput; hs != nil {
		hs.PermissionDecisionReason = limit(hs.PermissionDecisionReason)
		hs.AdditionalContext = limit(hs.AdditionalContext)
	}
}

// maxHookText is how much text one hook may hand the model, in
// characters (Claude Code's cap on hook output injected into context).
const maxHookText = 10_000

// capChars keeps the first max characters of s and counts the rest.
func capChars(s string, max int) (string, int) {
	if len(s) <= max {
		return s, 0 // fewer bytes than max: fewer characters too
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], utf8.RuneCountInString(s[i:])
		}
		n++
	}
	return s, 0
}

// answerError says in JSON's words why an answer did not decode.
func answerError(stdout []byte, err error) string {
	return settings.DescribeJSONError(bytes.TrimSpace(stdout), err).Error()
}

// Outcome is what the hooks of one event decided together.
type Outcome struct {
	Ran int // hooks run
	// Blocked: a hook exited 2, answered decision "block" or continue false.
	// For PreToolUse the call is not run; for UserPromptSubmit the prompt is
	// refused; for Stop the model is asked to go on; for PostToolUse the
	// reason is handed to the model.
	Blocked bool
	Reason  string
	// Stop: a hook answered continue false; the step ends after the current round.
	Stop       bool
	StopReason string
	// Permission is the PreToolUse decision (allow, deny, ask, defer) or "".
	Permission       string
	PermissionReason string
	// UpdatedInput replaces a PreToolUse call's arguments when set.
	UpdatedInput json.RawMessage
	// Context is every hookSpecificOutput.additionalContext: it reaches the
	// model (before the prompt, beside a tool result, after a Stop).
	Context []string
	// Plain is the plain-text stdout of hooks that exited 0. Only
	// UserPromptSubmit and SessionStart hand it to the model; for the other
	// events it is not context (Claude Code keeps it in its debug log).
	Plain []string
}

// apply folds one hook's exit 0 JSON answer into the outcome. It reports
// whether this hook blocked (for the log and to stop running further hooks).
func (o *Outcome) apply(event string, h *answerJSON) bool {
	blocked := false
	if h.Continue != nil && !*h.Continue {
		o.Stop, o.StopReason = true, h.StopReason
		o.Blocked, blocked = true, true
		if o.Reason == "" {
			o.Reason = cmp.Or(strings.TrimSpace(h.StopReason), strings.TrimSpace(h.Reason), "continue: false")
		}
	}
	switch h.Decision {
	case "block":
		o.Blocked, blocked = true, true
		if o.Reason == "" {
			o.Reason = cmp.Or(strings.TrimSpace(h.Reason), "decision: block")
		}
	case "approve":
		// The older PreToolUse spelling of permissionDecision "allow".
		o.setPermission(permission.DecisionAllow, h.Reason)
	}
	if hs := h.HookSpecificOutput; hs != nil {
		if event == "PreToolUse" {
			if d := hs.PermissionDecision; d == permission.DecisionAllow || d == permission.DecisionDeny || d == permission.DecisionAsk || d == DecisionDefer {
				o.setPermission(d, hs.PermissionDecisionReason)
				if d == permission.DecisionDeny {
					blocked = true
				}
			}
			if len(hs.UpdatedInput) > 0 && bytes.HasPrefix(bytes.TrimSpace(hs.UpdatedInput), []byte("{")) {
				o.UpdatedInput = hs.UpdatedInput
			}
		}
		if hs.AdditionalContext != "" {
			o.Context = append(o.Context, hs.AdditionalContext)
		}
	}
	return blocked
}

func (o *Outcome) setPermission(d, reason string) {
	if permissionPriority(d) > permissionPriority(o.Permission) {
		o.Permission, o.PermissionReason = d, reason
	}
}
