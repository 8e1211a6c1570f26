package engine_test

import (
	"fmt"
	"testing"

	"evotune/engine"
)

// FuzzParseResign: any text is read or refused without a panic; what is read meets the
// rule's bounds and reads back the same from its canonical form.
func FuzzParseResign(f *testing.F) {
	for _, s := range []string{"movecount=3,score=600", "movecount=3,score=600,twosided=true", "movecount=0,score=600",
		"score=600", "movecount=3,score=-1", "movecount=3;score=600", "movecount=3,score=600,twosided=maybe", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a engine.Adjudication
		if err := a.ParseResign(s); err != nil {
			return
		}
		if a.ResignMoves < 1 || a.ResignScore < 1 {
			t.Fatalf("ParseResign(%q) accepted movecount %d, score %d", s, a.ResignMoves, a.ResignScore)
		}
		var b engine.Adjudication
		canon := fmt.Sprintf("movecount=%d,score=%d,twosided=%t", a.ResignMoves, a.ResignScore, a.ResignTwoSided)
		if err := b.ParseResign(canon); err != nil || b != a {
			t.Fatalf("ParseResign(%q) = %+v, but its canonical form %q reads %+v, %v", s, a, canon, b, err)
		}
	})
}

// FuzzParseDraw: as FuzzParseResign, for the draw rule.
func FuzzParseDraw(f *testing.F) {
	for _, s := range []string{"movenumber=34,movecount=8,score=20", "movecount=8,score=0", "movenumber=-1,movecount=8,score=20",
		"movecount=0,score=20", "movenumber=34,movecount=8,score=20,extra=1", "movecount=8,score=1e3", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a engine.Adjudication
		if err := a.ParseDraw(s); err != nil {
			return
		}
		if a.DrawMoves < 1 || a.DrawScore < 0 || a.DrawMoveNumber < 0 {
			t.Fatalf("ParseDraw(%q) accepted movenumber %d, movecount %d, score %d", s, a.DrawMoveNumber, a.DrawMoves, a.DrawScore)
		}
		var b engine.Adjudication
		canon := fmt.Sprintf("movenumber=%d,movecount=%d,score=%d", a.DrawMoveNumber, a.DrawMoves, a.DrawScore)
		if err := b.ParseDraw(canon); err != nil || b != a {
			t.Fatalf("ParseDraw(%q) = %+v, but its canonical form %q reads %+v, %v", s, a, canon, b, err)
		}
	})
}
