#!/usr/bin/env Rscript
# Generates the partykit golden fixtures under testdata/golden/ that
# golden_test.go compares the Go ctree against. Run from this directory:
#   Rscript make_golden.R
# Reference: R 4.2.2, partykit 1.2-16, libcoin 1.0-9, inum 1.0-4 (printed
# into golden/VERSIONS.txt). The Go tests read only the committed outputs;
# they never run R.
#
# Every control sets majority = TRUE so that NA routing is deterministic
# (partykit's default, majority = FALSE, sends NA rows left or right at
# random with the observed proportions, at fit and at predict time, which
# no fixture can pin down). The paper's runs used party::ctree, whose NA
# routing without surrogates is this majority rule.
suppressPackageStartupMessages({ library(partykit); library(MASS) })

fmt <- function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))

write_num <- function(df, file) {
  out <- as.data.frame(lapply(df, function(col) if (is.numeric(col)) fmt(col) else col),
                       stringsAsFactors = FALSE)
  write.csv(out, file, row.names = FALSE, quote = FALSE)
}

mcar <- function(x, rate) { x[runif(length(x)) < rate] <- NA; x }

# ---- data sets --------------------------------------------------------
# small: n = 100, three covariates, x1 informative with 20% NA.
gen_small <- function(n) {
  x1 <- rnorm(n); x2 <- rnorm(n); x3 <- runif(n)
  y <- 2 * x1 + x3 + rnorm(n, sd = 0.5)
  list(X = cbind(mcar(x1, 0.2), mcar(x2, 0.1), x3), y = y)
}
# mixed: equicorrelated (0.5) Gaussians, nonlinear signal, 0-40% NA.
gen_mixed <- function(n) {
  d <- 6; S <- matrix(0.5, d, d); diag(S) <- 1
  X <- mvrnorm(n, rep(0, d), S)
  y <- X[, 1]^2 + 2 * X[, 2] - X[, 3] + 0.5 * X[, 4] * X[, 5] + rnorm(n, sd = 0.3)
  X[, 1] <- mcar(X[, 1], 0.4); X[, 2] <- mcar(X[, 2], 0.3)
  X[, 3] <- mcar(X[, 3], 0.2); X[, 6] <- mcar(X[, 6], 0.1)
  list(X = X, y = y)
}
# exp1: the paper's quadratic model (d = 9, rho = 0.5, mu = 1, sd 0.1)
# with 20% MCAR on x1..x3; exp1mask appends the three mask columns.
gen_exp1 <- function(n) {
  d <- 9; S <- matrix(0.5, d, d); diag(S) <- 1
  X <- mvrnorm(n, rep(1, d), S)
  y <- X[, 1]^2 + X[, 2]^2 + X[, 3]^2 + rnorm(n, sd = 0.1)
  for (j in 1:3) X[, j] <- mcar(X[, j], 0.2)
  list(X = X, y = y)
}
add_mask <- function(X) cbind(X, 1 * is.na(X[, 1:3]))
# ties: small integer covariates (many tied values), 40% / 25% NA.
gen_ties <- function(n) {
  x1 <- sample(1:6, n, TRUE); x2 <- x1 + sample(-1:1, n, TRUE)
  x3 <- sample(1:10, n, TRUE); x4 <- round(runif(n), 1)
  y <- x1 + 2 * (x3 > 5) + rnorm(n, sd = 0.5)
  list(X = cbind(mcar(x1, 0.4), mcar(x2, 0.25), x3, x4), y = y)
}
# null: Y independent of X, 30% NA on x1 and x2.
gen_null <- function(n) {
  X <- matrix(rnorm(n * 5), n, 5)
  X[, 1] <- mcar(X[, 1], 0.3); X[, 2] <- mcar(X[, 2], 0.3)
  list(X = X, y = rnorm(n))
}
# strong: x1, x2 nearly collinear and both very predictive, so their
# adjusted p-values underflow far below 1e-154 and partykit breaks the
# tie on log(1 - p) by the rank of the test statistics.
gen_strong <- function(n) {
  x1 <- rnorm(n); x2 <- x1 + rnorm(n, sd = 0.02); x3 <- rnorm(n)
  y <- x1 + 0.5 * x3 + rnorm(n, sd = 0.2)
  list(X = cbind(x1, mcar(x2, 0.03), x3), y = y)
}
# const: a constant column, a column observed on one row only and one
# observed on 8 rows, next to an informative one. (An all-NA column makes
# partykit's inum() fail, so that case is tested in Go only.)
gen_const <- function(n) {
  x1 <- rnorm(n); x4 <- rep(NA_real_, n); x4[sample(n, 8)] <- rnorm(8)
  x3 <- rep(NA_real_, n); x3[sample(n, 1)] <- 1
  y <- x1 + rnorm(n, sd = 0.5)
  list(X = cbind(x1, rep(2.5, n), x3, x4), y = y)
}

# Surrogate cut search: partykit searches surrogate cuts with minbucket =
# 0, which admits the degenerate cut "x <= max(x)" (every row on one
# side). Its covariance is zero up to rounding, and libcoin's eigen-based
# pseudo-inverse of that 2 x 2 matrix then sometimes yields an infinite
# statistic (when (W/(W-1))*W - W^2/(W-1) rounds below 0), so that the
# degenerate cut becomes the surrogate. The "surr" and "surrdef" controls
# therefore use minbucket = 1 for the surrogate cut search, which admits
# exactly the same cuts minus the degenerate one; "surrstock" keeps
# partykit's stock search, for the test that pins down the difference.
no_degenerate <- function(ctl) { ctl$svsplitfun <- partykit:::.ctree_split(minbucket = 1L); ctl }
# spike: y jumps on the 8 largest observed x1 (10% NA): with n = 1000 the
# cut that isolates them leaves 8 rows on one side, allowed by minbucket 7
# but not by minprob 0.01 (ceiling(1000 * 0.01) = 10).
gen_spike <- function(n) {
  x1 <- mcar(rnorm(n), 0.1); x2 <- rnorm(n); x3 <- runif(n)
  top <- sort(x1, decreasing = TRUE)[8]
  y <- 4 * (!is.na(x1) & x1 >= top) + rnorm(n, sd = 0.3)
  list(X = cbind(x1, x2, x3), y = y)
}

controls <- list(
  paper     = ctree_control(mincriterion = 0, minbucket = 30, majority = TRUE),
  default   = ctree_control(majority = TRUE),
  surr      = no_degenerate(ctree_control(mincriterion = 0, minbucket = 30, maxsurrogate = 3, majority = TRUE)),
  surrdef   = no_degenerate(ctree_control(maxsurrogate = 3, majority = TRUE)),
  surrstock = ctree_control(mincriterion = 0, minbucket = 30, maxsurrogate = 3, majority = TRUE)
)

paths <- function(node, p = "r") {
  out <- list(); out[[p]] <- node
  if (!is.terminal(node)) {
    k <- kids_node(node)
    out <- c(out, paths(k[[1]], paste0(p, "0")), paths(k[[2]], paste0(p, "1")))
  }
  out
}

dump_tree <- function(ct, train, stem, nx) {
  leaf <- ct$fitted[["(fitted)"]]
  y <- train$y
  ps <- paths(node_party(ct))
  nodes <- data.frame(); crit <- data.frame(); surr <- data.frame()
  for (p in names(ps)) {
    nd <- ps[[p]]
    ids <- nodeids(ct, from = id_node(nd), terminal = TRUE)
    inn <- leaf %in% ids
    feat <- -1; thr <- NA; pl <- NA
    if (!is.terminal(nd)) {
      sp <- split_node(nd)
      feat <- varid_split(sp) - 2   # column 1 of the model frame is y
      thr <- breaks_split(sp)
      pl <- prob_split(sp)[1]
      stopifnot(is.null(index_split(sp)) || all(index_split(sp) == 1:2))
      sv <- surrogates_node(nd)
      for (k in seq_along(sv)) {
        s <- sv[[k]]
        surr <- rbind(surr, data.frame(path = p, rank = k, feature = varid_split(s) - 2,
                                       threshold = breaks_split(s),
                                       low_left = as.integer(index_split(s)[1] == 1)))
      }
    }
    nodes <- rbind(nodes, data.frame(path = p, depth = nchar(p) - 1, feature = feat,
                                     threshold = thr, prob_left = pl, n = sum(inn),
                                     value = mean(y[inn])))
    cr <- info_node(nd)$criterion
    if (!is.null(cr)) {
      for (v in colnames(cr)) {
        st <- cr["statistic", v]
        crit <- rbind(crit, data.frame(path = p, feature = match(v, nx) - 1,
                                       statistic = st, p_value = cr["p.value", v],
                                       criterion = cr["criterion", v],
                                       p_raw = pchisq(st, 1, lower.tail = FALSE)))
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
  if (!mask) { # the masked variant is exp1 plus is.na(x1..x3), rebuilt in Go
    write_num(train, file.path("golden", paste0(name, "_train.csv")))
    write_num(test, file.path("golden", paste0(name, "_test.csv")))
  }
  for (cn in ctls) {
    ct <- ctree(y ~ ., data = train, control = controls[[cn]])
    stem <- file.path("golden", paste0(name, "_", cn))
    dump_tree(ct, train, stem, nx)
    write_num(data.frame(set = c(rep("test", nrow(test)), rep("train", nrow(train))),
                         pred = c(predict(ct, newdata = test), predict(ct, newdata = train[nx]))),
              paste0(stem, "_pred.csv"))
  }
}

dir.create("golden", showWarnings = FALSE)
all <- c("paper", "default", "surr", "surrdef", "surrstock")
run("small", gen_small, 100, 50, 11, all)
run("mixed", gen_mixed, 500, 200, 12, all)
run("exp1", gen_exp1, 1000, 300, 13, all)
run("exp1mask", gen_exp1, 1000, 300, 13, c("paper", "default", "surr", "surrstock"), mask = TRUE)
run("ties", gen_ties, 300, 100, 14, all)
run("null", gen_null, 200, 50, 15, c("paper", "default"))
run("strong", gen_strong, 1000, 100, 16, c("paper", "default", "surr", "surrstock"))
run("const", gen_const, 120, 30, 17, c("paper", "default", "surr"))
run("spike", gen_spike, 1000, 100, 18, c("default"))

writeLines(c(R.version.string,
             paste("partykit", packageVersion("partykit")),
             paste("libcoin", packageVersion("libcoin")),
             paste("inum", packageVersion("inum"))),
           file.path("golden", "VERSIONS.txt"))
