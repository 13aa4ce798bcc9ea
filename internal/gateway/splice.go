package gateway

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Answers repeat what the client sent, and an order's template_config may
// be a megabyte. protojson checks and copies a string rune by rune (a sixth
// of a 1.1 MB order's POST); a URL-encoded design needs no escaping at
// all. So long strings that need none are taken out of the message before
// it is marshalled, each replaced by a placeholder, and written into the
// output as they are; the JSON is the same.

// spliceMin is the shortest string worth splicing: below it protojson's
// own loop costs less than the clone and the placeholder.
const spliceMin = 16 << 10

// placeholderPrefix starts every placeholder: random per process, so that
// no client string can be one.
var placeholderPrefix = func() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "platen-splice-" + hex.EncodeToString(b[:]) + "-"
}()

// splice is a long string taken out of a message: its placeholder and the
// string itself.
type splice struct {
	placeholder, value string
}

// marshalSpliced marshals msg with marshal, its long plain strings
// spliced in rather than escaped. It reports ok false, having done nothing
// but look at the strings' lengths, when msg has no such string.
func marshalSpliced(msg proto.Message, marshal func(any) ([]byte, error)) ([]byte, bool, error) {
	if !hasLong(msg.ProtoReflect()) {
		return nil, false, nil
	}
	// The caller's message is left alone: a clone shares its strings'
	// bytes, so the clone costs little.
	clone := proto.Clone(msg)
	taken := takeLongPlain(clone.ProtoReflect())
	if len(taken) == 0 {
		return nil, false, nil
	}
	out, err := marshal(clone)
	if err != nil {
		return nil, true, err
	}
	return spliceIn(out, taken), true, nil
}

// hasLong reports whether m holds a string of spliceMin bytes or more.
func hasLong(m protoreflect.Message) bool {
	found := false
	walkStrings(m, func(s string, _ func(string)) bool {
		found = len(s) >= spliceMin
		return !found
	})
	return found
}

// takeLongPlain replaces each long plain string of m by a placeholder,
// and returns them.
func takeLongPlain(m protoreflect.Message) []splice {
	var taken []splice
	walkStrings(m, func(s string, set func(string)) bool {
		if isLongPlain(s) {
			p := placeholderPrefix + strconv.Itoa(len(taken))
			taken = append(taken, splice{placeholder: p, value: s})
			set(p)
		}
		return true
	})
	return taken
}

// walkStrings calls f with every string field and list element of m and
// the messages below it, and a setter for it, until f returns false.
func walkStrings(m protoreflect.Message, f func(s string, set func(string)) bool) bool {
	more := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.StringKind:
			list := v.List()
			for i := 0; i < list.Len() && more; i++ {
				more = f(list.Get(i).String(), func(s string) { list.Set(i, protoreflect.ValueOfString(s)) })
			}
		case fd.IsList() && fd.Message() != nil:
			list := v.List()
			for i := 0; i < list.Len() && more; i++ {
				more = walkStrings(list.Get(i).Message(), f)
			}
		case fd.IsMap():
			// Maps hold no long strings in Platen's answers.
		case fd.Kind() == protoreflect.StringKind:
			more = f(v.String(), func(s string) { m.Set(fd, protoreflect.ValueOfString(s)) })
		case fd.Message() != nil:
			more = walkStrings(v.Message(), f)
		}
		return more
	})
	return more
}

// isLongPlain reports whether s is long and JSON holds it as it is: every
// byte printable ASCII, no quote, no backslash. protojson would write it
// unchanged.
func isLongPlain(s string) bool { return len(s) >= spliceMin && plain(s) }

// plain reports whether every byte of s is printable ASCII other than '"'
// and '\\'.
func plain(s string) bool {
	i := 0
	// Sixteen bytes a round, one branch: the test is most of the time a
	// spliced answer takes.
	for ; i+16 <= len(s); i += 16 {
		a := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		b := uint64(s[i+8]) | uint64(s[i+9])<<8 | uint64(s[i+10])<<16 | uint64(s[i+11])<<24 |
			uint64(s[i+12])<<32 | uint64(s[i+13])<<40 | uint64(s[i+14])<<48 | uint64(s[i+15])<<56
		if unplain(a)|unplain(b) != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// unplain has a byte's high bit set where a byte of w is below 0x20,
// above 0x7e, '"' or '\\' (the SWAR tests of "Bit Twiddling Hacks": a
// byte below n sets its high bit in x - n*0x01…; a zero byte of x ^ c is a
// byte equal to c). Borrows may mark bytes after a marked one too, which
// does not change whether any is marked.
func unplain(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := (w - 0x20*ones) &^ w // a byte < 0x20
	high := w + 0x01*ones | w     // a byte ≥ 0x7f
	q := w ^ '"'*ones             // a zero byte where '"'
	bs := w ^ '\\'*ones           // a zero byte where '\\'
	quote, backslash := (q-ones)&^q, (bs-ones)&^bs
	return (below | high | quote | backslash) & highs
}

// spliceIn writes each taken string where its placeholder is in out;
// the placeholders may come in any order.
func spliceIn(out []byte, taken []splice) []byte {
	type at struct {
		pos int
		s   splice
	}
	found := make([]at, 0, len(taken))
	size := len(out)
	for _, s := range taken {
		found = append(found, at{pos: bytes.Index(out, []byte(s.placeholder)), s: s})
		size += len(s.value) - len(s.placeholder)
	}
	slices.SortFunc(found, func(a, b at) int { return a.pos - b.pos })
	res := make([]byte, 0, size)
	last := 0
	for _, f := range found {
		res = append(append(res, out[last:f.pos]...), f.s.value...)
		last = f.pos + len(f.s.placeholder)
	}
	return append(res, out[last:]...)
}
