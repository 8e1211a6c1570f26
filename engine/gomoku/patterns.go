package gomoku

import (
	"runtime"
	"sync"
)

// Pattern indexes the 13 shapes of Table 1 of 001_4cd63e63655ef194.txt (§1.1).
type Pattern int

// The 13 patterns, in matching priority order.
const (
	LiveFour Pattern = iota
	DeadFourA
	DeadFourB
	DeadFourC
	LiveThree
	DeadThreeA
	DeadThreeB
	DeadThreeC
	DeadThreeD
	LiveTwo
	DeadTwoA
	DeadTwoB
	DeadTwoC
	// NumPatterns is the number of patterns.
	NumPatterns = 13
)

// PatternNames are the JSON and gene names of the patterns, in Pattern order.
var PatternNames = [NumPatterns]string{
	"live_four", "dead_four_a", "dead_four_b", "dead_four_c",
	"live_three", "dead_three_a", "dead_three_b", "dead_three_c", "dead_three_d",
	"live_two", "dead_two_a", "dead_two_b", "dead_two_c",
}

// templates are the shapes each pattern matches, written with A = own stone, ? = empty
// point, # = blocked (an opponent stone or the board edge). Table 1 draws each shape once;
// "dead" shapes are blocked on the side not drawn, so both orientations are listed. Where
// the paper's drawing is wider than needed to tell live from dead (??AAA??, ???AA???), the
// template keeps only what makes the shape live: a live three is three in a row that can
// still become an open four (?AAA?? or ??AAA?), a live two two in a row with room to
// become a live three.
var templates = [NumPatterns][]string{
	LiveFour:   {"?AAAA?"},
	DeadFourA:  {"#AAAA?", "?AAAA#"},
	DeadFourB:  {"AAA?A", "A?AAA"},
	DeadFourC:  {"AA?AA"},
	LiveThree:  {"?AAA??", "??AAA?"},
	DeadThreeA: {"#AAA??", "??AAA#", "#?AAA?#"},
	DeadThreeB: {"?A?AA?", "?AA?A?"},
	DeadThreeC: {"A??AA", "AA??A"},
	DeadThreeD: {"A?A?A"},
	LiveTwo:    {"??AA??", "?AA???", "???AA?"},
	DeadTwoA:   {"#AA???", "???AA#"},
	DeadTwoB:   {"?A?A??", "??A?A?"},
	DeadTwoC:   {"?A??A?"},
}

// Counts are how many times each pattern occurs.
type Counts [NumPatterns]uint8

// MatchSegment counts the patterns of one colour in one segment: a maximal run of L points
// of a line that holds no opponent stone, so that both of its ends are blocked (by an
// opponent stone or the edge). mask has bit i set when point i of the segment holds an own
// stone. The rules, the exact definition the evaluation uses:
//
//  1. A segment shorter than 5 can never hold five and counts nothing.
//  2. Patterns are tried in priority order (LiveFour … DeadTwoC); for each, its templates
//     in the order listed, each slid from the segment's left end to its right end.
//  3. A template matches where every A is an own stone not yet used by an earlier match,
//     every ? an empty point and every # the blocked end just outside the segment.
//  4. A match counts once and uses its own stones; empty points may be shared. So a stone
//     belongs to at most one pattern per direction, the highest-priority one (a live four
//     is not also counted as a live three), and overlapping shapes of equal rank count
//     once per set of stones.
func MatchSegment(L int, mask uint32) Counts {
	var c Counts
	if L < 5 || mask == 0 {
		return c
	}
	// Extended segment: bit 0 and bit L+1 are the blocked ends, bits 1..L the points.
	own := uint64(mask) << 1
	empty := ^own & (uint64(1)<<(L+1) - 2)
	ends := uint64(1) | uint64(1)<<(L+1)
	var used uint64
	for pat := range compiled {
		for _, t := range compiled[pat] {
			for s := 0; s+t.n <= L+2; s++ {
				if (own>>s)&t.own == t.own && (used>>s)&t.own == 0 &&
					(empty>>s)&t.empty == t.empty && (ends>>s)&t.ends == t.ends {
					c[pat]++
					used |= t.own << s
				}
			}
		}
	}
	return c
}

// template is a shape compiled to bitmasks over its n points (bit j = point j).
type template struct {
	n                int
	own, empty, ends uint64
}

var compiled = func() (out [NumPatterns][]template) {
	for pat, ts := range templates {
		for _, t := range ts {
			ct := template{n: len(t)}
			for j := 0; j < len(t); j++ {
				switch t[j] {
				case 'A':
					ct.own |= 1 << j
				case '?':
					ct.empty |= 1 << j
				case '#':
					ct.ends |= 1 << j
				}
			}
			out[pat] = append(out[pat], ct)
		}
	}
	return out
}()

// maxTable is the longest segment whose counts are tabulated (15: every line of the
// standard board); longer segments (boards above 15) are matched directly.
const maxTable = 15

var (
	segOnce  sync.Once
	segTable [maxTable + 1][]Counts
)

// segmentCounts returns MatchSegment(L, mask), from the table when L ≤ 15.
func segmentCounts(L int, mask uint32) Counts {
	if L > maxTable {
		return MatchSegment(L, mask)
	}
	segOnce.Do(func() {
		// Built once per process, in parallel chunks: it is serial start-up time otherwise.
		var wg sync.WaitGroup
		chunks := make(chan [3]int, 64)
		for w := 0; w < runtime.NumCPU(); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for c := range chunks {
					for m := c[1]; m < c[2]; m++ {
						segTable[c[0]][m] = MatchSegment(c[0], uint32(m))
					}
				}
			}()
		}
		for l := 5; l <= maxTable; l++ {
			segTable[l] = make([]Counts, 1<<l)
			for lo := 0; lo < 1<<l; lo += 2048 {
				chunks <- [3]int{l, lo, min(lo+2048, 1<<l)}
			}
		}
		close(chunks)
		wg.Wait()
	})
	return segTable[L][mask]
}
