package gomoku

import "sync"

// Pattern indexes the 13 shapes of Table 1 of 001_4cd63e63655ef194.txt (§1.3).
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
	// ext[0] and ext[L+1] are the blocked ends.
	var ext [maxSize + 2]byte
	ext[0], ext[L+1] = '#', '#'
	for i := 0; i < L; i++ {
		ext[i+1] = '?'
		if mask&(1<<i) != 0 {
			ext[i+1] = 'A'
		}
	}
	var used [maxSize + 2]bool
	for pat := range templates {
		for _, t := range templates[pat] {
		slide:
			for s := 0; s+len(t) <= L+2; s++ {
				for j := 0; j < len(t); j++ {
					e := ext[s+j]
					switch t[j] {
					case 'A':
						if e != 'A' || used[s+j] {
							continue slide
						}
					case '?', '#':
						if e != t[j] {
							continue slide
						}
					}
				}
				c[pat]++
				for j := 0; j < len(t); j++ {
					if t[j] == 'A' {
						used[s+j] = true
					}
				}
			}
		}
	}
	return c
}

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
		for l := 5; l <= maxTable; l++ {
			segTable[l] = make([]Counts, 1<<l)
			for m := range segTable[l] {
				segTable[l][m] = MatchSegment(l, uint32(m))
			}
		}
	})
	return segTable[L][mask]
}
