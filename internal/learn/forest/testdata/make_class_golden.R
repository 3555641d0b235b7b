# Golden fixtures for ranger_class_test.go: ranger 0.14.1 probability
# forests (ranger(x, y = factor(y), probability = TRUE), its defaults:
# 500 trees, mtry = floor(sqrt(9)) = 3, min.node.size = 10, bootstrap of n
# rows with replacement, Gini splitting), num.threads = 1, called with x
# and y (not the formula interface), on classification data drawn by the
# Go generator (classdata_test.go: the paper's Model 1 covariates, d = 9,
# classes cutting X1^2 + X2^2 + X3^2 + standard logistic noise; complete
# data, since ranger 0.14 accepts no NA) in three cases:
#   binary:      2 classes (cut at 4.5, about the median)
#   multi3:      3 classes (cuts at 2.7 and 6.9, about the terciles)
#   binary-grid: binary with every feature floored to a multiple of 1/2
#
# Two files:
#   ranger_class_probs.csv: data seed 2000, n_train = 500, n_test = 250;
#     for each test row and class, the mean and the standard deviation of
#     ranger's predicted probability over 20 forests (set.seed(1..20),
#     each forest's seed drawn by ranger): the mean is a 10 000-tree
#     forest, the sd the Monte-Carlo spread of one 500-tree forest.
#     loo_mad (in the comment line of each case) is the mean absolute
#     difference of each forest to the mean of the other 19, averaged
#     over the 20.
#   ranger_class_scores.csv: data seeds 3000..3029, n_train = 300,
#     n_test = 500; over 5 forests (set.seed(1..5)) the mean and sd of
#     the test log-loss (probabilities clipped to [1e-15, 1 - 1e-15]),
#     the Brier score (binary: (p1 - y)^2; multiclass: sum over classes),
#     the AUC
#     (binary: Mann-Whitney, ties 1/2; multiclass: one-vs-rest macro mean)
#     and the mean number of nodes per tree.
#
# The data sets come from the Go generator, so that the Go test fits its
# forests on exactly the rows ranger saw:
#   go test ./internal/learn/forest -args -dump /tmp/forestdata
#   Rscript internal/learn/forest/testdata/make_class_golden.R /tmp/forestdata \
#     internal/learn/forest/testdata
suppressPackageStartupMessages(library(ranger))
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args) >= 1) args[1] else "/tmp/forestdata"
out <- if (length(args) >= 2) args[2] else "."

cases <- c(binary = 2, multi3 = 3, `binary-grid` = 2)

read_case <- function(case, split, seed) {
  read.csv(file.path(dir, sprintf("%s_%s_%d.csv", case, split, seed)))
}

# fit_prob fits one probability forest and returns the test probabilities
# (columns: classes 0..k-1) and the mean number of nodes per tree. The
# forest's seed is drawn by ranger itself (seed = NULL) after set.seed(s):
# ranger seeds tree i of a forest with seed s by (i + 1) * s, so forests
# of seeds 1, 2, ... share trees (seed 2's tree 0 is seed 1's tree 1) and
# their spread would understate the Monte-Carlo error.
fit_prob <- function(tr, te, k, s) {
  x <- tr[, paste0("X", 1:9)]
  set.seed(s)
  fit <- ranger(x = x, y = factor(tr$y, levels = 0:(k - 1)), probability = TRUE,
                num.threads = 1)
  stopifnot(fit$num.trees == 500, fit$mtry == 3, fit$min.node.size == 10, fit$replace)
  p <- predict(fit, data = te[, paste0("X", 1:9)], num.threads = 1)$predictions
  list(p = p[, as.character(0:(k - 1)), drop = FALSE],
       nodes = mean(sapply(fit$forest$split.varIDs, length)))
}

auc_mw <- function(score, pos) {
  r <- rank(score)
  n1 <- sum(pos)
  n0 <- length(pos) - n1
  (sum(r[pos]) - n1 * (n1 + 1) / 2) / (n1 * n0)
}

scores <- function(p, y, k) {
  py <- p[cbind(seq_along(y), y + 1)]
  ll <- -mean(log(pmin(pmax(py, 1e-15), 1 - 1e-15)))
  onehot <- outer(y, 0:(k - 1), "==") * 1
  if (k == 2) {
    brier <- mean((p[, 2] - y)^2)
    auc <- auc_mw(p[, 2], y == 1)
  } else {
    brier <- mean(rowSums((p - onehot)^2))
    auc <- mean(sapply(0:(k - 1), function(j) auc_mw(p[, j + 1], y == j)))
  }
  c(logloss = ll, brier = brier, auc = auc)
}

header <- sprintf("# ranger %s, %s", packageVersion("ranger"), R.version.string)

# Probabilities: one data set per case, 20 forests.
con <- file(file.path(out, "ranger_class_probs.csv"), "w")
writeLines(c(paste0(header, "; data seed 2000, n_train 500, n_test 250, forests after set.seed(1..20)"),
             "case,row,class,mean,sd"), con)
for (case in names(cases)) {
  k <- cases[[case]]
  tr <- read_case(case, "train", 2000)
  te <- read_case(case, "test", 2000)
  stopifnot(nrow(tr) == 500, nrow(te) == 250)
  ps <- lapply(1:20, function(s) fit_prob(tr, te, k, s)$p)
  arr <- simplify2array(ps)            # rows x classes x forests
  m <- apply(arr, c(1, 2), mean)
  s <- apply(arr, c(1, 2), sd)
  loo <- mean(sapply(1:20, function(f) {
    rest <- apply(arr[, , -f, drop = FALSE], c(1, 2), mean)
    mean(abs(arr[, , f] - rest))
  }))
  writeLines(sprintf("# %s loo_mad %.6g", case, loo), con)
  for (i in seq_len(nrow(m))) {
    for (j in seq_len(k)) {
      writeLines(sprintf("%s,%d,%d,%.10g,%.6g", case, i - 1, j - 1, m[i, j], s[i, j]), con)
    }
  }
}
close(con)

# Scores: 30 data sets per case, 5 forests each.
con <- file(file.path(out, "ranger_class_scores.csv"), "w")
writeLines(c(paste0(header, "; n_train 300, n_test 500, forests after set.seed(1..5)"),
             "case,seed,logloss,logloss_sd,brier,brier_sd,auc,auc_sd,nodes,nodes_sd"), con)
for (case in names(cases)) {
  k <- cases[[case]]
  for (seed in 3000:3029) {
    tr <- read_case(case, "train", seed)
    te <- read_case(case, "test", seed)
    stopifnot(nrow(tr) == 300, nrow(te) == 500)
    res <- sapply(1:5, function(s) {
      f <- fit_prob(tr, te, k, s)
      c(scores(f$p, te$y, k), nodes = f$nodes)
    })
    m <- rowMeans(res)
    s <- apply(res, 1, sd)
    writeLines(sprintf("%s,%d,%.8f,%.6g,%.8f,%.6g,%.8f,%.6g,%.4f,%.5g", case, seed,
                       m[["logloss"]], s[["logloss"]], m[["brier"]], s[["brier"]],
                       m[["auc"]], s[["auc"]], m[["nodes"]], s[["nodes"]]), con)
  }
}
close(con)
