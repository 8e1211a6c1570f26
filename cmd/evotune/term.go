package main

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxShown is how many characters of one stored string (a run name, an error) a table
// shows; longer ones end in "…" (the database keeps them whole; --json prints them whole).
const maxShown = 60

// safe returns s as a terminal may show it: every control character (C0 with newline and
// tab, DEL, C1), every format character (bidirectional overrides and isolates such as
// U+202E, zero-width characters), line and paragraph separators and invalid UTF-8 are
// written as Go escapes (\x1b, \n, \u202e), so text from a database or an engine someone
// else wrote can neither move the cursor, recolour, retitle the terminal, break a table's
// rows nor reorder what is shown. Printable text, with its non-ASCII letters, is kept.
func safe(s string) string {
	return escapeTerm(s, false)
}

// safeCell is safe(s) cut to maxShown characters for a table cell.
func safeCell(s string) string {
	if utf8.RuneCountInString(s) > maxShown {
		r := []rune(s)
		s = string(r[:maxShown-1]) + "…"
	}
	return safe(s)
}

// safeText is safe for multi-line text (an error with an engine's transcript): newlines
// and tabs are kept, everything else safe escapes is escaped.
func safeText(s string) string {
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

// termWriter passes text through safeText: what a command prints for a person (tables,
// lineage trees) cannot carry a terminal escape whatever the database holds. Writes may
// split a character; the incomplete tail waits for the next write.
type termWriter struct {
	w    io.Writer
	tail []byte
}

func newTermWriter(w io.Writer) *termWriter { return &termWriter{w: w} }

func (t *termWriter) Write(p []byte) (int, error) {
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
	if _, err := io.WriteString(t.w, safeText(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}
