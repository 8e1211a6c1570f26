package runview

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxShown is how many characters of one stored string (a run name, an error) a table
// shows; longer ones end in "…" (the database keeps them whole; --json prints them whole).
const MaxShown = 60

// Safe returns s as a terminal may show it: every control character (C0 with newline and
// tab, DEL, C1), every format character (bidirectional overrides and isolates such as
// U+202E, zero-width characters), line and paragraph separators and invalid UTF-8 are
// written as Go escapes (\x1b, \n, \u202e), so text from a database or an engine someone
// else wrote can neither move the cursor, recolour, retitle the terminal, break a table's
// rows nor reorder what is shown. Printable text, with its non-ASCII letters, is kept.
func Safe(s string) string {
	return escapeTerm(s, false)
}

// SafeCell is Safe(s) cut to MaxShown characters for a table cell.
func SafeCell(s string) string {
	if utf8.RuneCountInString(s) > MaxShown {
		r := []rune(s)
		s = string(r[:MaxShown-1]) + "…"
	}
	return Safe(s)
}

// SafeText is Safe for multi-line text (an error with an engine's transcript): newlines
// and tabs are kept, everything else Safe escapes is escaped.
func SafeText(s string) string {
	return escapeTerm(s, true)
}

func escapeTerm(s string, keepLines bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune: C1 controls, format characters (Cf: bidi controls, zero-width characters)
// and the line and paragraph separators.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// TermWriter passes text through SafeText: what a command prints for a person (tables,
// lineage trees) cannot carry a terminal escape whatever the database holds. Writes may
// split a character; the incomplete tail waits for the next write.
type TermWriter struct {
	w    io.Writer
	tail []byte
}

// NewTermWriter is a TermWriter writing to w.
func NewTermWriter(w io.Writer) *TermWriter { return &TermWriter{w: w} }

// Write writes p through SafeText.
func (t *TermWriter) Write(p []byte) (int, error) {
	buf := append(t.tail, p...)
	cut := len(buf)
	// Keep an incomplete UTF-8 sequence at the end for the next write.
	for k := 1; k <= utf8.UTFMax && k <= len(buf); k++ {
		if utf8.RuneStart(buf[len(buf)-k]) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				cut = len(buf) - k
			}
			break
		}
	}
	t.tail = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(t.w, SafeText(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// SafeJSON is encoded JSON s with every format character, C1 control and line or
// paragraph separator written as a \uXXXX escape (such characters can only occur inside
// JSON strings, where the escape means the same value).
func SafeJSON(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case unsafeRune(r) && r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
