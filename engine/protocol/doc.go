// Package protocol plays external engines — any program that speaks a protocol evotune
// knows — as engine.Players (External, ExternalSpec), and lists the protocols a game's
// engines can speak. Each protocol is its own package holding both its sides, the client
// that drives an engine and the server that lets evotune's engines play in the managers and
// contests these games already use, over standard input and output:
//
//   - gomocup: the Gomocup (Piskvork) protocol for Gomoku — START, RECTSTART, RESTART,
//     BEGIN, TURN, BOARD … DONE, INFO, SWAP2BOARD, TAKEBACK, ABOUT, END; coordinates are
//     x,y from 0 at the top-left.
//   - sau: the SAU / computer-olympiad text protocol for Connect6 — "name?", "new black",
//     "new white", "move XXYY" (each stone two letters A–S, column then row, row A at the
//     top; Black's one-stone first move as "move JJ" or "move JJ@@"), "end", "quit".
//   - botzone: Botzone's simple and JSON interactions and its keep-running mode, for the
//     Amazons and ConnectSix.
//   - uci: the Universal Chess Interface — uci, isready, ucinewgame, setoption, position,
//     go (nodes, depth, movetime, wtime/btime), stop, quit.
//
// Below them, package wire holds what they share: an engine's process and its line I/O
// for clients, the command reader and the searching session for servers. This package
// imports them and lists their dialects (dialect.go, Names); a new protocol is a package
// beside them and one line there. No package here names a game: a game offers a
// protocol by its capabilities (gomocup.Game, sau.Game, botzone.Board).
package protocol
