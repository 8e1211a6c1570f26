// Package ladder verifies a tuned champion: a held-out, colour-swapped match against the
// baseline (Verify), and the verification ladder (Ladder: the tuning condition first, then
// a deeper search, a node count, a chess clock, a time per move and other opponents, each
// a Rung), each rung's verdict (holds, does not hold, not proven, not measured), the
// proof text exports carry and the key a stored ladder is found again by (Key).
package ladder
