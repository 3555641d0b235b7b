// Package tree grows least-squares regression trees with rpart's controls
// and every missing-value strategy of the paper (surrogate, MIA, block,
// probabilistic, majority), on presorted columns a random forest can reuse.
//
// # What matches rpart (method "anova", numeric predictors)
//
// Checked node by node against rpart 4.1.19 on the fixtures of
// testdata/make_golden.R:
//   - Candidate thresholds are midpoints between consecutive distinct
//     observed values; rows with x < threshold go to one child.
//   - Under the available-case strategies (all but MIA) a split is scored
//     on the rows observing its variable: the drop in
//     their sum of squares ("improve" is that drop over the node's whole
//     sum of squares, so a variable missing for a fraction q of the node
//     sees its gain shrunk by about 1 − q). minbucket counts those
//     observed rows; minsplit counts every row of the node. Ties go to the
//     lower column, then the lower threshold; improvements below 1e-10
//     times the largest seen are ignored, as in rpart's bsplit.
//   - Growth is depth first, the child with the lower mean first, with
//     rpart's cost-complexity bookkeeping (partition.c): a split is kept
//     only if its complexity exceeds cp × the root's deviance. maxdepth
//     bounds node depth. There is no cross-validation (xval = 0).
//   - Surrogates (usesurrogate = 2, surrogatestyle = 0): for every other
//     column the threshold and direction sending most primary-observed
//     rows the primary's way, with at least two such rows on each side and
//     a strict gain over the majority rule; agreement counted over all
//     primary-observed rows; ranked by agreement, the first maxsurrogate
//     with adjusted agreement > 0 kept. At training, rows missing the
//     primary and every surrogate go to the side with more primary-observed
//     rows, and stay in the node on a tie; at prediction they go to the
//     child with more training rows, and stop at the node on a tie.
//   - Under Strategy Surrogate rows whose every feature is NA are dropped
//     before fitting, as rpart's na.rpart does.
//
// # Where it deliberately differs from rpart
//
//   - Only numeric predictors; no categorical splits, competitor splits,
//     cross-validation or general case weights. FitSample's repeated rows
//     count once per repeat in every control (rpart counts rows).
//   - ±Inf in X is an error (rpart treats non-finite values as NA).
//   - The split point (a+b)/2 is replaced by a/2+b/2 when it overflows and
//     by b when rounding makes it equal a (rpart would misroute a).
//   - MaxDepth 0 means unlimited (rpart caps it at 30); MinNodeSize and
//     Mtry are ranger's controls, absent from rpart.
//   - GainPerObserved (optional) scores available-case splits per observed
//     row, the criterion the paper's proofs compare variables with.
//
// # The other strategies
//
// MIA, Block, Prob and Majority follow the paper's Algorithms (appendix
// "Decision trees"); they share rpart's controls and bookkeeping above.
// NoMissing rejects NA and is meant for imputed data.
package tree
