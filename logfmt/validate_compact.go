package logfmt

import "github.com/tidwall/gjson"

// A compaction replaces the conversation: trail logs context_compact and
// then a replace_all with the new list (summary included), so replay
// rebuilds what the model sees. Robota logs only context_compact, whose
// summary it keeps in its record alone: past that line the context cannot
// be rebuilt from the log. Validation says so with a warning, unless a
// later re-sync (a replace_all with reason "resync", which a step writes
// when the log and the record disagree) logs the record's list and makes
// the context known again.

// CodeCompactionSummaryMissing is the warning for a compaction whose new
// list the log does not hold.
const CodeCompactionSummaryMissing = "LOG_COMPACTION_SUMMARY_MISSING"

// compactions is the validator's view of compactions.
type compactions struct {
	pending  Line    // a context_compact no replace_all has followed yet (Num 0: none)
	unsynced []Issue // summary-missing compactions no re-sync has covered
}

// compactLine notes a context_compact line.
func (v *validator) compactLine(l Line) {
	if v.compact.pending.Num > 0 {
		v.summaryMissing()
	}
	v.compact.pending = Line{Num: l.Num, Index: l.Index}
}

// compactMutation follows a history_mutation: a replace_all closes the
// compaction before it (a re-sync also every earlier one), anything else
// finds its summary missing.
func (v *validator) compactMutation(l Line, e *entry) {
	if !stringIs(e.mutation, "replace_all") {
		if v.compact.pending.Num > 0 {
			v.summaryMissing()
		}
		return
	}
	v.compact.pending = Line{}
	if gjson.GetBytes(l.Bytes, "reason").Str == ReasonResync {
		v.compact.unsynced = nil
	}
}

func (v *validator) summaryMissing() {
	c := v.compact.pending
	v.compact.pending = Line{}
	v.position = -1 // where the next message lands is unknown
	v.compact.unsynced = append(v.compact.unsynced, Issue{
		Code: CodeCompactionSummaryMissing, Severity: SeverityWarning, Line: c.Num, EventIndex: c.Index,
		Message: "The conversation was compacted here but no replace_all logs the new list (Robota keeps its summary only in the record): the context cannot be rebuilt past this line.",
	})
}

// endCompactions reports what no re-sync covered.
func (v *validator) endCompactions() {
	if v.compact.pending.Num > 0 {
		v.summaryMissing()
	}
	for _, is := range v.compact.unsynced {
		v.add(is)
	}
	v.compact.unsynced = nil
}
