#!/usr/bin/env Rscript
# Generates the partykit golden fixtures of ctree's classification mode
# under testdata/golden_class/, which class_golden_test.go compares
# FitClass against. Run from this directory:
#   Rscript make_class_golden.R
# Reference: R 4.2.2, partykit 1.2-16, libcoin 1.0-9, inum 1.0-4 (printed
# into golden_class/VERSIONS.txt). The Go tests read only the committed
# outputs; they never run R.
#
# The response is factor(y, levels = 0:(k - 1)), y the class codes, so
# that a level can exist without occurring (fixture "absent"; partykit's
# model frame drops it, and predict(type = "prob") has no column for it:
# the fixtures give it probability 0). As in
# make_golden.R every control sets majority = TRUE (deterministic NA
# routing: misslab's ctree/majority and ctree/surrogate pipelines), and
# the surrogate controls search surrogate cuts with minbucket = 1 (see
# make_golden.R's no_degenerate).
#
# Per fixture and control, <data>_<control>_*.csv hold
#   nodes:      every node by path ("r", then 0 = "x <= threshold", 1 =
#               the other child): split variable (0-based; -1 for a
#               leaf), threshold, majority side, size, class shares p0..;
#   crit:       every tested variable of every node: partykit's
#               statistic, adjusted p-value and criterion, and, from
#               libcoin directly on the node's rows observing the
#               variable, the unadjusted p-value p_raw and the rank df
#               of the covariance (the chi-square's degrees of freedom);
#   surrogates: the surrogate splits of every node;
#   pred:       predict(type = "prob") on the test rows, then on the
#               training rows.
suppressPackageStartupMessages({ library(partykit); library(MASS); library(libcoin) })

fmt <- function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))

write_num <- function(df, file) {
  out <- as.data.frame(lapply(df, function(col) if (is.numeric(col)) fmt(col) else col),
                       stringsAsFactors = FALSE)
  write.csv(out, file, row.names = FALSE, quote = FALSE)
}

mcar <- function(x, rate) { x[runif(length(x)) < rate] <- NA; x }

# Class codes 0..k-1 from scores: the largest of score + Gumbel noise
# (a multinomial logit draw).
draw_class <- function(S) {
  G <- -log(-log(matrix(runif(length(S)), nrow(S))))
  max.col(S + G, ties.method = "first") - 1
}

# ---- data sets --------------------------------------------------------
# bin: two classes, logit 2 x1 - x3 + x4 / 2, NA on x1, x2 and x4 (an
# integer covariate with ties).
gen_bin <- function(n) {
  x1 <- rnorm(n); x2 <- rnorm(n); x3 <- runif(n); x4 <- sample(1:5, n, TRUE)
  y <- draw_class(cbind(0, 2 * x1 - x3 + x4 / 2 - 1.5))
  list(X = cbind(mcar(x1, 0.2), mcar(x2, 0.1), x3, mcar(x4, 0.15)), y = y, k = 2)
}
# tri: three classes over five equicorrelated (0.5) Gaussians, NA 10-30%.
gen_tri <- function(n) {
  d <- 5; S <- matrix(0.5, d, d); diag(S) <- 1
  X <- mvrnorm(n, rep(0, d), S)
  y <- draw_class(cbind(0, 2 * X[, 1] - X[, 2], 1.5 * X[, 3]^2 - 1 + X[, 4]))
  X[, 1] <- mcar(X[, 1], 0.3); X[, 2] <- mcar(X[, 2], 0.2); X[, 5] <- mcar(X[, 5], 0.1)
  list(X = X, y = y, k = 3)
}
# trimask appends is.na(x1..x3) to tri (x3 is complete: a constant mask).
add_mask <- function(X) cbind(X, 1 * is.na(X[, 1:3]))
# absent: four levels, the last never drawn (a zero indicator column).
gen_absent <- function(n) {
  X <- matrix(rnorm(n * 4), n, 4)
  y <- draw_class(cbind(0, 2 * X[, 1], 2 * X[, 2]))
  X[, 1] <- mcar(X[, 1], 0.25); X[, 3] <- mcar(X[, 3], 0.25)
  list(X = X, y = y, k = 4)
}
# five: five classes (df up to 4), an informative integer covariate.
gen_five <- function(n) {
  x1 <- rnorm(n); x2 <- sample(0:9, n, TRUE); x3 <- runif(n); x4 <- rnorm(n)
  y <- draw_class(cbind(0, 2 * x1, x2 / 2, 3 * x3, -2 * x1))
  list(X = cbind(mcar(x1, 0.2), x2, mcar(x3, 0.15), x4), y = y, k = 5)
}
# strong: three well-separated classes on x1 and its near copy x2, so
# that p-values underflow and partykit breaks the tie by the statistics.
gen_strong <- function(n) {
  x1 <- rnorm(n); x2 <- x1 + rnorm(n, sd = 0.02); x3 <- rnorm(n)
  y <- as.numeric(cut(x1 + 0.1 * rnorm(n), c(-Inf, -0.5, 0.5, Inf))) - 1
  list(X = cbind(x1, mcar(x2, 0.03), x3), y = y, k = 3)
}
# ties: three classes on small integer covariates, 40% / 25% NA.
gen_ties <- function(n) {
  x1 <- sample(1:6, n, TRUE); x2 <- x1 + sample(-1:1, n, TRUE)
  x3 <- sample(1:10, n, TRUE); x4 <- round(runif(n), 1)
  y <- draw_class(cbind(0, x1 - 3, 2 * (x3 > 5)))
  list(X = cbind(mcar(x1, 0.4), mcar(x2, 0.25), x3, x4), y = y, k = 3)
}
# null: three classes independent of X.
gen_null <- function(n) {
  X <- matrix(rnorm(n * 4), n, 4); X[, 1] <- mcar(X[, 1], 0.3)
  list(X = X, y = sample(0:2, n, TRUE), k = 3)
}

no_degenerate <- function(ctl) { ctl$svsplitfun <- partykit:::.ctree_split(minbucket = 1L); ctl }
controls <- list(
  paper   = ctree_control(mincriterion = 0, minbucket = 30, majority = TRUE),
  default = ctree_control(majority = TRUE),
  surr    = no_degenerate(ctree_control(mincriterion = 0, minbucket = 30, maxsurrogate = 3, majority = TRUE)),
  surrdef = no_degenerate(ctree_control(maxsurrogate = 3, majority = TRUE))
)

paths <- function(node, p = "r") {
  out <- list(); out[[p]] <- node
  if (!is.terminal(node)) {
    k <- kids_node(node)
    out <- c(out, paths(k[[1]], paste0(p, "0")), paths(k[[2]], paste0(p, "1")))
  }
  out
}

# libcoin's unadjusted quadratic test of x against the influence matrix
# Y (partykit's: one column for two levels, k otherwise) on rows.
raw_test <- function(x, Y, rows) {
  rows <- rows[!is.na(x[rows])]
  lev <- LinStatExpCov(X = x[rows], Y = Y[rows, , drop = FALSE])
  mp <- .Call(libcoin:::R_MPinv_sym, lev$Covariance, 0L, sqrt(.Machine$double.eps))
  tst <- doTest(lev, teststat = "quadratic", lower = FALSE, log = FALSE)
  c(p_raw = tst$p.value, df = mp$rank)
}

# partykit's .y2infl after its model frame drops unused levels.
influence_matrix <- function(y) {
  y <- droplevels(y)
  Y <- model.matrix(~ y - 1)
  if (nlevels(y) > 2) Y else Y[, -1, drop = FALSE]
}

dump_tree <- function(ct, train, stem, nx) {
  leaf <- ct$fitted[["(fitted)"]]
  y <- train$y; k <- nlevels(y); Y <- influence_matrix(y)
  ps <- paths(node_party(ct))
  nodes <- data.frame(); crit <- data.frame(); surr <- data.frame()
  for (p in names(ps)) {
    nd <- ps[[p]]
    inn <- leaf %in% nodeids(ct, from = id_node(nd), terminal = TRUE)
    feat <- -1; thr <- NA; pl <- NA
    if (!is.terminal(nd)) {
      sp <- split_node(nd)
      feat <- varid_split(sp) - 2   # column 1 of the model frame is y
      thr <- breaks_split(sp); pl <- prob_split(sp)[1]
      stopifnot(is.null(index_split(sp)) || all(index_split(sp) == 1:2))
      sv <- surrogates_node(nd)
      for (r in seq_along(sv)) {
        s <- sv[[r]]
        surr <- rbind(surr, data.frame(path = p, rank = r, feature = varid_split(s) - 2,
                                       threshold = breaks_split(s),
                                       low_left = as.integer(index_split(s)[1] == 1)))
      }
    }
    shares <- as.numeric(table(y[inn])) / sum(inn)
    names(shares) <- paste0("p", 0:(k - 1))
    nodes <- rbind(nodes, data.frame(path = p, depth = nchar(p) - 1, feature = feat,
                                     threshold = thr, prob_left = pl, n = sum(inn), t(shares)))
    cr <- info_node(nd)$criterion
    if (!is.null(cr)) {
      for (v in colnames(cr)) {
        rt <- raw_test(train[[v]], Y, which(inn))
        crit <- rbind(crit, data.frame(path = p, feature = match(v, nx) - 1,
                                       statistic = cr["statistic", v], p_value = cr["p.value", v],
                                       criterion = cr["criterion", v],
                                       p_raw = rt[["p_raw"]], df = rt[["df"]]))
      }
    }
  }
  write_num(nodes, paste0(stem, "_nodes.csv"))
  write_num(crit, paste0(stem, "_crit.csv"))
  if (nrow(surr) == 0) surr <- data.frame(path = character(0), rank = integer(0),
      feature = integer(0), threshold = numeric(0), low_left = integer(0))
  write_num(surr, paste0(stem, "_surrogates.csv"))
}

run <- function(name, gen, n, ntest, seed, ctls, mask = FALSE) {
  set.seed(seed)
  tr <- gen(n); te <- gen(ntest)
  Xtr <- tr$X; Xte <- te$X
  if (mask) { Xtr <- add_mask(Xtr); Xte <- add_mask(Xte) }
  nx <- paste0("x", seq_len(ncol(Xtr)))
  colnames(Xtr) <- colnames(Xte) <- nx
  train <- data.frame(Xtr, y = tr$y); test <- data.frame(Xte)
  if (!mask) { # the masked variant is rebuilt in Go from the base fixture
    write_num(train, file.path("golden_class", paste0(name, "_train.csv")))
    write_num(test, file.path("golden_class", paste0(name, "_test.csv")))
  }
  train$y <- factor(train$y, levels = 0:(tr$k - 1))
  for (cn in ctls) {
    message(name, "/", cn)
    ct <- ctree(y ~ ., data = train, control = controls[[cn]])
    stem <- file.path("golden_class", paste0(name, "_", cn))
    dump_tree(ct, train, stem, nx)
    # predict() has a column per level present in training: widen to k.
    Pp <- rbind(predict(ct, newdata = test, type = "prob"),
                predict(ct, newdata = train[nx], type = "prob"))
    P <- matrix(0, nrow(Pp), tr$k, dimnames = list(NULL, paste0("p", 0:(tr$k - 1))))
    P[, as.integer(colnames(Pp)) + 1] <- Pp
    write_num(data.frame(set = c(rep("test", nrow(test)), rep("train", nrow(train))), P),
              paste0(stem, "_pred.csv"))
  }
}

dir.create("golden_class", showWarnings = FALSE)
all <- names(controls)
run("bin", gen_bin, 300, 100, 21, all)
run("tri", gen_tri, 600, 200, 22, all)
run("trimask", gen_tri, 600, 200, 22, c("paper", "default", "surr"), mask = TRUE)
run("absent", gen_absent, 400, 100, 23, c("paper", "default", "surr"))
run("five", gen_five, 500, 100, 24, all)
run("strong", gen_strong, 1000, 100, 25, c("paper", "default", "surr"))
run("ties", gen_ties, 300, 100, 26, all)
run("null", gen_null, 200, 50, 27, c("paper", "default"))

writeLines(c(R.version.string,
             paste("partykit", packageVersion("partykit")),
             paste("libcoin", packageVersion("libcoin")),
             paste("inum", packageVersion("inum"))),
           file.path("golden_class", "VERSIONS.txt"))
