#!/usr/bin/env Rscript
# Generates the rpart golden fixtures under testdata/golden/ that
# golden_test.go compares the Go tree against. Run from this directory:
#   Rscript make_golden.R
# Reference: R 4.2.2, rpart 4.1.19 (printed into golden/VERSIONS.txt).
# The Go tests read only the committed outputs; they never run R.
suppressPackageStartupMessages({ library(rpart); library(MASS) })

fmt <- function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))

write_num <- function(df, file) {
  out <- as.data.frame(lapply(df, function(col) if (is.numeric(col)) fmt(col) else col),
                       stringsAsFactors = FALSE)
  write.csv(out, file, row.names = FALSE, quote = FALSE)
}

mcar <- function(x, rate) { x[runif(length(x)) < rate] <- NA; x }

# ---- data sets --------------------------------------------------------
# corr: correlated Gaussian covariates (equicorrelation 0.6), NA on four
# columns, so surrogates carry the NA rows.
gen_corr <- function(n) {
  d <- 6; S <- matrix(0.6, d, d); diag(S) <- 1
  X <- mvrnorm(n, rep(0, d), S)
  y <- X[, 1]^2 + 2 * X[, 2] - X[, 3] + 0.5 * X[, 4] * X[, 5] + rnorm(n, sd = 0.3)
  X[, 1] <- mcar(X[, 1], 0.3); X[, 2] <- mcar(X[, 2], 0.3)
  X[, 3] <- mcar(X[, 3], 0.2); X[, 6] <- mcar(X[, 6], 0.1)
  list(X = X, y = y)
}
# censor: x1 censored above its 70% quantile (MNAR), x2 a noisy copy of
# x1 (the natural surrogate), x3 rounded to one decimal (ties).
gen_censor <- function(n) {
  x1 <- rnorm(n); x2 <- x1 + rnorm(n, sd = 0.5); x3 <- round(rnorm(n), 1); x4 <- runif(n)
  y <- 2 * x1 + x4 + rnorm(n, sd = 0.5)
  x1[x1 > quantile(x1, 0.7)] <- NA
  list(X = cbind(x1, mcar(x2, 0.2), mcar(x3, 0.1), x4), y = y)
}
# ties: small integer covariates, 40% NA on x1 and 25% on x2.
gen_ties <- function(n) {
  x1 <- sample(1:6, n, TRUE); x2 <- x1 + sample(-1:1, n, TRUE); x3 <- sample(1:10, n, TRUE)
  y <- x1 + 2 * (x3 > 5) + rnorm(n, sd = 0.5)
  list(X = cbind(mcar(x1, 0.4), mcar(x2, 0.25), x3), y = y)
}
# exp1: the paper's Experiment 1 (quadratic model, d = 9, rho = 0.5,
# mu = 1) with 20% MCAR on x1..x3.
gen_exp1 <- function(n) {
  d <- 9; S <- matrix(0.5, d, d); diag(S) <- 1
  X <- mvrnorm(n, rep(1, d), S)
  y <- X[, 1]^2 + X[, 2]^2 + X[, 3]^2 + rnorm(n, sd = 0.1)
  for (j in 1:3) X[, j] <- mcar(X[, j], 0.2)
  list(X = X, y = y)
}

# sparse: 40% MCAR on every column, weakly related columns: many rows
# miss the primary and every surrogate (majority rule), some rows miss
# everything (dropped by na.rpart at training, majority at prediction).
gen_sparse <- function(n) {
  x1 <- rnorm(n); x2 <- 0.5 * x1 + rnorm(n); x3 <- runif(n)
  y <- x1 + 2 * x3 + rnorm(n, sd = 0.3)
  list(X = cbind(mcar(x1, 0.4), mcar(x2, 0.4), mcar(x3, 0.4)), y = y)
}

# halves: the root's primary-observed rows split 20/20, so rpart has no
# majority side: training rows missing x1 and x2 (x3 is observed only
# where x1 is missing, so it cannot be a surrogate) stay in the root, and
# so do such test rows (they get the root's mean).
gen_halves <- function(n) {
  k <- n - 8
  x1 <- c(seq_len(k), rep(NA, 8)); x2 <- rnorm(n)
  y <- 5 * (x1 > k / 2) + rnorm(n, sd = 0.1)
  y[is.na(x1)] <- 2.5 + rnorm(8, sd = 0.1)
  x2[n - 1:2] <- NA
  x3 <- ifelse(is.na(x1), rnorm(n), NA)
  list(X = cbind(x1, x2, x3), y = y)
}

sets <- list(
  corr   = list(gen = gen_corr,   n = 500,  ntest = 300),
  censor = list(gen = gen_censor, n = 300,  ntest = 200),
  ties   = list(gen = gen_ties,   n = 200,  ntest = 150),
  exp1   = list(gen = gen_exp1,   n = 1000, ntest = 500),
  sparse = list(gen = gen_sparse, n = 400,  ntest = 300),
  halves = list(gen = gen_halves, n = 48,   ntest = 24)
)

controls <- list(
  paper  = rpart.control(minsplit = 90, minbucket = 30, cp = 0, xval = 0,
                         maxsurrogate = 5, usesurrogate = 2),
  rpart  = rpart.control(xval = 0),
  # deep growth with cost-complexity collapsing at work
  cp     = rpart.control(minsplit = 10, minbucket = 3, cp = 0.005, xval = 0)
)

# ---- canonical description of a fitted tree ---------------------------
# A node's path is "r" for the root, then one digit per level: 0 for the
# child receiving x < threshold, 1 for the other. Surrogate direction
# lowleft = 1 when x < threshold goes to the primary's "0" child.
describe <- function(fit, xnames) {
  fr <- fit$frame; sp <- fit$splits
  ids <- as.integer(rownames(fr)); leaf <- fr$var == "<leaf>"
  nsp <- ifelse(leaf, 0L, 1L + fr$ncompete + fr$nsurrogate)
  start <- cumsum(c(0L, nsp))[seq_along(nsp)]
  path <- character(0); path["1"] <- "r"
  nodes <- list(); surr <- list()
  for (k in seq_along(ids)) {
    id <- ids[k]; p <- path[[as.character(id)]]
    row <- data.frame(path = p, var = 0L, threshold = NA_real_, n = fr$n[k],
                      yval = fr$yval[k], dev = fr$dev[k],
                      complexity = fr$complexity[k], improve = NA_real_)
    if (!leaf[k]) {
      pr <- start[k] + 1L; dir <- sp[pr, "ncat"]
      lt <- if (dir == -1) 2L * id else 2L * id + 1L
      path[as.character(lt)] <- paste0(p, "0")
      path[as.character(4L * id + 1L - lt)] <- paste0(p, "1")
      row$var <- match(rownames(sp)[pr], xnames)
      row$threshold <- sp[pr, "index"]; row$improve <- sp[pr, "improve"]
      if (fr$nsurrogate[k] > 0) for (s in seq_len(fr$nsurrogate[k])) {
        sr <- pr + fr$ncompete[k] + s
        surr[[length(surr) + 1L]] <- data.frame(path = p, rank = s,
          var = match(rownames(sp)[sr], xnames), threshold = sp[sr, "index"],
          lowleft = as.integer(sp[sr, "ncat"] == dir),
          agree = sp[sr, "improve"], adj = sp[sr, "adj"])
      }
    }
    nodes[[k]] <- row
  }
  list(nodes = do.call(rbind, nodes),
       surr = if (length(surr)) do.call(rbind, surr) else
         data.frame(path = character(0), rank = integer(0), var = integer(0),
                    threshold = numeric(0), lowleft = integer(0),
                    agree = numeric(0), adj = numeric(0)))
}

set.seed(20240611)
dir.create("golden", showWarnings = FALSE)
for (name in names(sets)) {
  st <- sets[[name]]
  tr <- st$gen(st$n); te <- st$gen(st$ntest)
  d <- ncol(tr$X); xnames <- paste0("x", 1:d)
  train <- data.frame(y = tr$y, tr$X); names(train) <- c("y", xnames)
  test <- data.frame(te$X); names(test) <- xnames
  write_num(train, file.path("golden", paste0(name, "_train.csv")))
  write_num(test, file.path("golden", paste0(name, "_test.csv")))
  # Fit on the values read back from the CSV, exactly what Go will see.
  train <- read.csv(file.path("golden", paste0(name, "_train.csv")))
  test <- read.csv(file.path("golden", paste0(name, "_test.csv")))
  for (cn in names(controls)) {
    fit <- rpart(y ~ ., data = train, method = "anova", control = controls[[cn]])
    desc <- describe(fit, xnames)
    stem <- file.path("golden", paste0(name, "_", cn))
    write_num(desc$nodes, paste0(stem, "_nodes.csv"))
    write_num(desc$surr, paste0(stem, "_surrogates.csv"))
    write_num(data.frame(pred = predict(fit, newdata = test),
                         train_pred = predict(fit, newdata = train)[seq_len(nrow(test))]),
              paste0(stem, "_pred.csv"))
  }
}
writeLines(c(R.version.string, paste("rpart", packageVersion("rpart"))),
           file.path("golden", "VERSIONS.txt"))
