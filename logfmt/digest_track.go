package logfmt

import "encoding/json"

// historyDigest follows the history a log rebuilds, each message in its
// request form, with one running hash, and settles each digest-form
// provider_request against it: replay (ReadRequests) and validation share
// it, so both judge a request the same way.
//
// A request's messages are the history as it stands when the list reaches
// the request's messageCount. trail has logged a step's new user message
// after the step's first request (the history_mutation waits for the
// answer, so a step killed in between leaves the log and the record
// alike), so a request whose count is ahead of the history waits for the
// next appends. It is settled incomplete when something else comes first
// (another request, a replace_all, a new session_init or re-sync, the end
// of the log): the messages it was sent were never logged, which is what a
// step killed mid-request leaves, and there is nothing to compare.
type historyDigest struct {
	h       MessagesHasher
	keep    bool              // keep msgs (ReadRequests)
	msgs    []json.RawMessage // the history in request form, when keep
	pending *digestCheck
	done    func(digestCheck)
}

// digestCheck is one digest-form request and, once settled, what the log
// says of it.
type digestCheck struct {
	Line, EventIndex int
	ExecutionID      string
	Round            string // the round as a JSON number
	Count            int    // messageCount
	SHA              string // messagesSha256
	req              *Request

	Have     int  // messages of the history when settled (Count when complete)
	Complete bool // the history reached Count (or was past it)
	Match    bool // the first Count messages hash to SHA
	Computed string
}

// add appends a message (as the log holds it, payloads resolved).
func (d *historyDigest) add(msg json.RawMessage) {
	if spaced(msg) {
		// The digest is over each message's compact JSON: a log another
		// tool re-wrote with spaces holds the same messages.
		msg = CompactJSON(msg)
	}
	rf := RequestForm(msg)
	d.h.Add(rf)
	if d.keep {
		d.msgs = append(d.msgs, rf)
	}
	if p := d.pending; p != nil && d.h.Len() == p.Count {
		d.pending = nil
		d.settle(p)
	}
}

// reset empties the history (a replace_all follows with its list).
func (d *historyDigest) reset() {
	d.close()
	d.h.Reset()
	d.msgs = nil
}

// close settles a waiting request as incomplete.
func (d *historyDigest) close() {
	if p := d.pending; p != nil {
		d.pending = nil
		p.Have = d.h.Len()
		d.done(*p)
	}
}

// request settles c now, or keeps it until the history reaches its count.
func (d *historyDigest) request(c digestCheck) {
	d.close()
	switch n := d.h.Len(); {
	case n < c.Count:
		d.pending = &c
	case n == c.Count:
		d.settle(&c)
	default:
		// The log's history is longer than the list sent: only a prefix
		// could have been the request.
		c.Have, c.Complete = n, true
		if d.keep {
			c.Computed = MessagesSHA256(d.msgs[:c.Count])
		}
		c.Match = c.Computed != "" && c.Computed == c.SHA
		d.done(c)
	}
}

func (d *historyDigest) settle(c *digestCheck) {
	c.Have, c.Complete = c.Count, true
	c.Computed = d.h.Sum()
	c.Match = c.Computed == c.SHA
	d.done(*c)
}

// list is the first n messages in request form (keep only).
func (d *historyDigest) list(n int) []json.RawMessage {
	n = min(n, len(d.msgs))
	return d.msgs[:n:n]
}
