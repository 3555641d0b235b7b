// Package tree grows least-squares regression trees (Fit) and Gini
// classification trees (FitClass) with rpart's controls and every
// missing-value strategy of the paper (surrogate, MIA, block,
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
// # Classification (FitClass: rpart method "class")
//
// Checked node by node, bit for bit, against rpart 4.1.19 with its default
// parms (split "gini", priors the training class proportions, 0-1 loss)
// on the fixtures of testdata/make_class_golden.R (2 to 4 classes, NA,
// ties, grid-valued columns, an absent class, n from 40 to 1000): split
// variables and thresholds, class counts, classes, dev, improve, cp,
// surrogates, and predict(type = "prob") on held-out rows.
//   - Everything above (thresholds, minbucket on observed rows, ties,
//     iscale, depth-first growth, cost complexity, surrogates and their
//     routing, na.rpart) holds, with these in place of least squares:
//   - A split minimises rpart's w_L·I(L) + w_R·I(R), I the Gini index of
//     the class shares under the altered priors (aprior: 1 up to rounding
//     here) and w a group's aprior weight; improve is the drop from the
//     node's w·I, unscaled. The child with the lower mean class code
//     (under those shares) is rpart's left son, grown first.
//   - A node's class is the one of least expected loss, ties to the lower
//     code; its risk (dev) is that loss: the count of the other classes.
//     cp is relative to the root's risk, so with cp = 0 a split whose
//     subtree misclassifies as many rows as its node is collapsed, as in
//     rpart.
//   - Probabilities are rpart's yprob: counts n_j times π_j / N_j (prior
//     over training count), over their sum, which R's rowSums forms in
//     x87 extended precision; FitClass does the same (an R whose long
//     double is plain double or quad precision may differ in the last bit).
//   - Every sum is formed in rpart's order. Where the altered priors of
//     two classes differ in their last bits, the weight sums depend on the
//     order of tied rows, so columns are presorted in rpart's quicksort
//     order (rpartOrder) rather than stably.
//   - rpart sizes its tables by the largest class code present; codes up
//     to k−1 that never occur get probability 0 (rpart's predict fails
//     when the largest level is absent, and rpart fails outright when only
//     the first class occurs; FitClass returns a single sure leaf).
//
// MIA, Block, Prob and Majority score class splits with the same w·I
// criterion (Block: NA to the side leaving the smaller total score).
// Priors, loss matrices, the information index and case weights are not
// offered.
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
//   - MaxSurrogate 0 sends training rows missing the split variable to the
//     larger side; rpart (which then never sets its majority side) leaves
//     them in the parent. Prediction agrees.
//   - GainPerObserved (optional) scores available-case splits per observed
//     row, the criterion the paper's proofs compare variables with.
//
// # The other strategies
//
// MIA, Block, Prob and Majority follow the paper's Algorithms (appendix
// "Decision trees"); they share rpart's controls and bookkeeping above.
// NoMissing rejects NA and is meant for imputed data.
package tree
