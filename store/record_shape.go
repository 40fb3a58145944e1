package store

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The shape rule: a record that is valid JSON is still corrupt when a value
// trail reads has a type trail cannot use. Loading it anyway would resume a
// conversation the log then refuses (a message with role 7), or silently
// replace a value (usage totals of 1e400 reset to zero). The rule covers
// what trail reads and nothing more, so that every record Robota or trail
// writes passes, and fields trail does not know keep any value at all.
//
// Top level (each member where present; "null" means null is accepted, the
// usual way a JavaScript program writes an unset optional field):
//
//	id, cwd, createdAt, updatedAt               string
//	name, title, status, stopReason,
//	parentSessionId, systemPrompt,
//	permissionMode                              string or null
//	version, messageCount, providerCalls        count or null
//	usage                                       object or null; inputTokens, outputTokens: count
//	provider                                    object or null; name, model, baseUrl, script, cassette: string
//	sessionAllowedTools                         array of strings, or null
//	pendingToolCalls                            array of objects, or null
//	messages                                    array of messages
//	history                                     array of objects
//
// A message is an object with
//
//	role                         required: "system", "user", "assistant" or "tool"
//	content                      string, null, or an array of objects (content parts)
//	id, state, timestamp,
//	toolCallId, name             string
//	toolCalls                    array of objects, or null; each with id: string,
//	                             function: object with name: string and, when
//	                             present, arguments: string; type: string
//	metadata                     object or null; inputTokens, outputTokens and
//	                             usage.{inputTokens,outputTokens,totalTokens}: number
//
// A count is a whole number from 0 to 2^63-1 written without a fraction or
// exponent; a number is any JSON number that fits a float64 (1e400 does
// not: gjson reads it as +Inf, encoding/json refuses it). Duplicate keys are
// each checked, so no value a reader might take passes unchecked.

// shapeError is one value of the wrong shape, at an offset of the record.
type shapeError struct {
	off int
	msg string
}

func shapef(off int, format string, args ...any) *shapeError {
	return &shapeError{off: off, msg: fmt.Sprintf(format, args...)}
}

func (e *shapeError) corrupt(path string) error {
	return &CorruptError{Path: path, Offset: int64(e.off), Err: errors.New(e.msg)}
}

// loc names a value for an error message (messages[3].toolCalls[0].id).
// Its text is built only when there is an error, so checking a long
// conversation allocates nothing per message.
type loc struct {
	up    *loc
	key   string // a member's key (a constant from the rule), or "" for an element
	index int
}

func (l *loc) String() string {
	// Not recursive, and no pointer stored: escape analysis then keeps
	// every loc on the stack.
	depth := 0
	for p := l; p != nil; p = p.up {
		depth++
	}
	var b strings.Builder
	for d := depth - 1; d >= 0; d-- {
		p := l
		for range d {
			p = p.up
		}
		switch {
		case p.key == "":
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
		case b.Len() > 0:
			b.WriteString("." + p.key)
		default:
			b.WriteString(p.key)
		}
	}
	return b.String()
}

func (l *loc) at(key string) loc { return loc{up: l, key: key} }
func (l *loc) elem(i int) loc    { return loc{up: l, index: i} }

// A value's kinds, as a set, for "want" lists.
type kind uint8

const (
	kString kind = 1 << iota
	kNumber
	kObject
	kArray
	kBool
	kNull
)

// kindAt is the kind of the valid JSON value starting at data[i].
func kindAt(data []byte, i int) kind {
	switch data[i] {
	case '"':
		return kString
	case '{':
		return kObject
	case '[':
		return kArray
	case 't', 'f':
		return kBool
	case 'n':
		return kNull
	}
	return kNumber
}

func (k kind) String() string {
	var names []string
	for _, n := range []struct {
		k    kind
		name string
	}{{kString, "a string"}, {kNumber, "a number"}, {kObject, "an object"}, {kArray, "an array"}, {kBool, "a boolean"}, {kNull, "null"}} {
		if k&n.k != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

// expect checks that the value at data[off] is one of want.
func expect(data []byte, off int, where *loc, want kind) *shapeError {
	if got := kindAt(data, off); got&want == 0 {
		return shapef(off, "%s is %s, not %s", where.String(), got.String(), want.String())
	}
	return nil
}

// expectCount checks for a count, or null when nullOK.
func expectCount(data []byte, off int, where *loc, nullOK bool) *shapeError {
	want := kNumber
	if nullOK {
		want |= kNull
	}
	if err := expect(data, off, where, want); err != nil || data[off] == 'n' {
		return err
	}
	raw := data[off:endOfValue(data, off)]
	if !isCount(raw) {
		return shapef(off, "%s is %s, not a count (a whole number from 0 to 2^63-1)", where.String(), cutRaw(raw))
	}
	return nil
}

// isCount reports whether a number token is a whole number from 0 to
// 2^63-1, without a fraction or exponent.
func isCount(raw []byte) bool {
	if len(raw) == 0 || len(raw) > 19 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	if len(raw) < 19 {
		return true
	}
	return string(raw) <= "9223372036854775807"
}

// expectNumber checks for a JSON number that fits a float64.
func expectNumber(data []byte, off int, where *loc) *shapeError {
	if err := expect(data, off, where, kNumber); err != nil {
		return err
	}
	raw := data[off:endOfValue(data, off)]
	if !fitsFloat(raw) {
		return shapef(off, "%s is %s, out of the range of a number", where.String(), cutRaw(raw))
	}
	return nil
}

// fitsFloat reports whether a number token fits a float64. Only a number
// with an exponent or of more than 300 digits can overflow, so the common
// case costs no parse.
func fitsFloat(raw []byte) bool {
	if len(raw) < 300 && bytes.IndexAny(raw, "eE") < 0 {
		return true
	}
	_, err := strconv.ParseFloat(string(raw), 64)
	return err == nil
}

// cutRaw shows a raw value in a message: a number of ten thousand digits
// is cut like any quoted input.
func cutRaw(raw []byte) string {
	if len(raw) <= 40 {
		return string(raw)
	}
	return string(raw[:40]) + "…"
}

// checkTopMember checks one top-level member of a record (not messages or
// history, which decodeValid walks itself).
func checkTopMember(data []byte, key string, off int) *shapeError {
	where := loc{key: key}
	switch key {
	case "id", "cwd", "createdAt", "updatedAt":
		return expect(data, off, &where, kString)
	case "name", "title", "status", "stopReason", "parentSessionId", "systemPrompt", "permissionMode":
		return expect(data, off, &where, kString|kNull)
	case "version", "messageCount", "providerCalls":
		return expectCount(data, off, &where, true)
	case "usage":
		return checkMembers(data, off, &where, kObject|kNull, func(k []byte, voff int) *shapeError {
			switch string(k) {
			case "inputTokens", "outputTokens":
				w := where.at(pick(k, "inputTokens", "outputTokens"))
				return expectCount(data, voff, &w, false)
			}
			return nil
		})
	case "provider":
		return checkMembers(data, off, &where, kObject|kNull, func(k []byte, voff int) *shapeError {
			switch string(k) {
			case "name", "model", "baseUrl", "script", "cassette":
				w := where.at(pick(k, "name", "model", "baseUrl", "script", "cassette"))
				return expect(data, voff, &w, kString)
			}
			return nil
		})
	case "sessionAllowedTools":
		return checkElems(data, off, &where, kArray|kNull, func(i, eoff int) *shapeError {
			w := where.elem(i)
			return expect(data, eoff, &w, kString)
		})
	case "pendingToolCalls":
		return checkElems(data, off, &where, kArray|kNull, func(i, eoff int) *shapeError {
			w := where.elem(i)
			return expect(data, eoff, &w, kObject)
		})
	}
	return nil
}

// checkMembers checks that the value at off is one of want and, when it is
// an object, calls fn with each member's key (unescaped) and offset.
func checkMembers(data []byte, off int, where *loc, want kind, fn func(key []byte, voff int) *shapeError) *shapeError {
	if err := expect(data, off, where, want); err != nil || data[off] != '{' {
		return err
	}
	var serr *shapeError
	walkMembers(data, off, func(key []byte, voff int) bool {
		serr = fn(memberKey(key), voff)
		return serr == nil
	})
	return serr
}

// checkElems checks that the value at off is one of want and, when it is
// an array, calls fn for each element.
func checkElems(data []byte, off int, where *loc, want kind, fn func(i, eoff int) *shapeError) *shapeError {
	if err := expect(data, off, where, want); err != nil || data[off] != '[' {
		return err
	}
	var serr *shapeError
	i := 0
	walkArrayAt(data, off, func(eoff, _ int) bool {
		serr = fn(i, eoff)
		i++
		return serr == nil
	})
	return serr
}

// checkElement checks element i of the messages or history array.
func checkElement(data []byte, array string, off, i int) *shapeError {
	top := loc{key: array}
	at := top.elem(i)
	if array == "messages" {
		return checkMessage(data, off, &at)
	}
	return expect(data, off, &at, kObject)
}

// checkMessage checks the message at data[off].
func checkMessage(data []byte, off int, at *loc) *shapeError {
	hasRole := false
	serr := checkMembers(data, off, at, kObject, func(key []byte, voff int) *shapeError {
		switch string(key) {
		case "role":
			hasRole = true
			w := at.at("role")
			return checkRole(data, voff, &w)
		case "content":
			w := at.at("content")
			return checkElems(data, voff, &w, kString|kNull|kArray, func(j, eoff int) *shapeError {
				e := w.elem(j)
				return expect(data, eoff, &e, kObject)
			})
		case "id", "state", "timestamp", "toolCallId", "name":
			w := at.at(pick(key, "id", "state", "timestamp", "toolCallId", "name"))
			return expect(data, voff, &w, kString)
		case "toolCalls":
			w := at.at("toolCalls")
			return checkElems(data, voff, &w, kArray|kNull, func(j, eoff int) *shapeError {
				e := w.elem(j)
				return checkToolCall(data, eoff, &e)
			})
		case "metadata":
			w := at.at("metadata")
			return checkMetadata(data, voff, &w)
		}
		return nil
	})
	if serr == nil && !hasRole {
		serr = shapef(off, "%s has no role", at.String())
	}
	return serr
}

func checkRole(data []byte, off int, where *loc) *shapeError {
	if err := expect(data, off, where, kString); err != nil {
		return err
	}
	raw := data[off:endOfValue(data, off)]
	switch string(raw) {
	case `"system"`, `"user"`, `"assistant"`, `"tool"`:
		return nil
	}
	return shapef(off, "%s %s is not system, user, assistant or tool", where.String(), QuoteInput(unescapeKey(raw)))
}

// checkMetadata checks the token counts Message.Usage reads.
func checkMetadata(data []byte, off int, where *loc) *shapeError {
	return checkMembers(data, off, where, kObject|kNull, func(k []byte, moff int) *shapeError {
		switch string(k) {
		case "inputTokens", "outputTokens":
			w := where.at(pick(k, "inputTokens", "outputTokens"))
			return expectNumber(data, moff, &w)
		case "usage":
			u := where.at("usage")
			return checkMembers(data, moff, &u, kObject|kNull, func(k []byte, uoff int) *shapeError {
				switch string(k) {
				case "inputTokens", "outputTokens", "totalTokens":
					w := u.at(pick(k, "inputTokens", "outputTokens", "totalTokens"))
					return expectNumber(data, uoff, &w)
				}
				return nil
			})
		}
		return nil
	})
}

func checkToolCall(data []byte, off int, at *loc) *shapeError {
	hasID, hasFunction := false, false
	serr := checkMembers(data, off, at, kObject, func(key []byte, voff int) *shapeError {
		switch string(key) {
		case "id":
			hasID = true
			w := at.at("id")
			return expect(data, voff, &w, kString)
		case "type":
			w := at.at("type")
			return expect(data, voff, &w, kString)
		case "function":
			hasFunction = true
			w := at.at("function")
			hasName := false
			err := checkMembers(data, voff, &w, kObject, func(k []byte, foff int) *shapeError {
				switch string(k) {
				case "name":
					hasName = true
					n := w.at("name")
					return expect(data, foff, &n, kString)
				case "arguments":
					a := w.at("arguments")
					return expect(data, foff, &a, kString)
				}
				return nil
			})
			if err == nil && !hasName {
				err = shapef(voff, "%s has no name", w.String())
			}
			return err
		}
		return nil
	})
	switch {
	case serr != nil:
		return serr
	case !hasID:
		return shapef(off, "%s has no id", at.String())
	case !hasFunction:
		return shapef(off, "%s has no function", at.String())
	}
	return nil
}

// pick returns the one of names that key spells: the constant, so that a
// loc holds no string built from the record.
func pick(key []byte, names ...string) string {
	for _, n := range names {
		if string(key) == n {
			return n
		}
	}
	return string(key)
}

// memberKey is a key from its raw bytes between the quotes. Escapes are
// rare in keys; only then does it cost a decode, so that "r\u006fle" is
// checked as the role it is.
func memberKey(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	return []byte(unescapeKey(append(append([]byte{'"'}, raw...), '"')))
}

// CheckMessage applies the record's message rule to messages[i] outside a
// record: what a repair is about to save must load again.
func CheckMessage(raw []byte, i int) error {
	top := loc{key: "messages"}
	at := top.elem(i)
	if tooDeep(raw) >= 0 || !gjson.ValidBytes(raw) {
		return errors.New(at.String() + " is not valid JSON")
	}
	if serr := checkMessage(raw, skipSpace(raw, 0), &at); serr != nil {
		return errors.New(serr.msg)
	}
	return nil
}
