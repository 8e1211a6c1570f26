package ga

// Selection under noise:
//
//   - Racing by successive halving (Jamieson & Talwalkar 2016; the elitist races of irace,
//     López-Ibáñez et al. 2016): every individual of a generation plays Games games; the
//     better half by score plays Games more on new openings, the better half of those
//     again, RaceRounds times. Rank orders by the last round reached, then by score over
//     all the generation's games (the same openings and references for everyone who
//     reached that round, so their scores are comparable).
//   - Hall of fame: the race winner becomes the reigning champion only with statistical
//     evidence against the current one. Both play the paper's weights on AdmitGames/2 fresh
//     opening pairs (the same pairs for both: common random numbers), and the winner is
//     admitted when the mean per-pair score difference exceeds 0 by AdmitZ standard
//     errors (a paired test). The fresh openings keep the race's winner's curse out.
//   - Each member's Elo against the paper's weights is measured directly, from the games
//     it plays against them after its admission: with every later test it reigns in, it
//     plays AdmitGames/2 more pairs on openings of their own (DefenceRound), never the
//     paired games that decide the test nor the test that admitted it. Selection and
//     estimation on separate samples: a champion keeps reigning while its paired scores
//     happen to be high, so crediting those games would make a long reign a lucky streak.
//     (The run that prompted this claimed +81.6 ± 24.1 and measured +45.1 ± 18.8 on 1 000
//     fresh games, but +65.2 ± 6.8 on 8 000: the opening sample, not the bias, made most
//     of that gap; the separation stays because it is the sound design.) The exported and
//     verified champion is the member with the best lower confidence bound Elo − z·SE on
//     those games, where z makes the bounds of all m members hold at once (Bonferroni:
//     two-sided 95% family-wise, never below AdmitZ). Picking the best of many noisy
//     estimates favours the lucky one (a run of 62 members picked one claiming +318 that
//     played +226 in 1 000 fresh games); simultaneous intervals keep the champion's true
//     Elo inside its reported interval whichever member is picked. A member with no games
//     since admission cannot be it ("nothing becomes champion on fewer games than the
//     incumbent").
