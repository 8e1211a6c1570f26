package connect6

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkNinthMove reproduces Fig. 3 of 000_9752b1518ee42188.txt §4.2.1: width 10, the
// 9th move of BenchGame, local and global scans at depth 3, 4 and 5.
func BenchmarkNinthMove(b *testing.B) {
	for _, scan := range []Scan{LocalScan, GlobalScan} {
		for depth := 3; depth <= 5; depth++ {
			b.Run(fmt.Sprintf("%v/depth%d", scan, depth), func(b *testing.B) {
				for b.Loop() {
					if _, err := BenchNinthMove(context.Background(), scan, depth, 10); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
