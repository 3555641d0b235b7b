#!/usr/bin/env Rscript
# Generates the rpart classification fixtures under testdata/golden_class/
# that class_golden_test.go compares ClassModel against (rpart's method
# "class": Gini splits, data priors, default loss). Run from this directory:
#   Rscript make_class_golden.R
# Reference: R 4.2.2, rpart 4.1.19 (printed into golden_class/VERSIONS.txt).
# The Go tests read only the committed outputs; they never run R.
suppressPackageStartupMessages({ library(rpart); library(MASS) })

fmt <- function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))

write_num <- function(df, file) {
  out <- as.data.frame(lapply(df, function(col) if (is.numeric(col)) fmt(col) else col),
                       stringsAsFactors = FALSE)
  write.csv(out, file, row.names = FALSE, quote = FALSE)
}

mcar <- function(x, rate) { x[runif(length(x)) < rate] <- NA; x }

# Class codes 0..k-1 from scores (one column per class) plus Gumbel noise:
# a multinomial logit draw.
draw_class <- function(S) max.col(S - log(-log(matrix(runif(length(S)), nrow(S)))),
                                  ties.method = "first") - 1L

# ---- data sets --------------------------------------------------------
# bsmall: binary, n = 40: an integer grid column with NA, a column
# rounded to halves (ties), a uniform one. The paper's controls leave it a
# single leaf; the deep controls split it to the minimum bucket.
gen_bsmall <- function(n) {
  x1 <- sample(1:5, n, TRUE); x2 <- round(2 * rnorm(n)) / 2; x3 <- runif(n)
  y <- as.integer(runif(n) < plogis(1.5 * (x1 - 3) + x2))
  list(X = cbind(mcar(x1, 0.2), mcar(x2, 0.1), x3), y = y, k = 2L)
}
# bfig3: Figure 3's design made binary: d = 9 equicorrelated (0.5)
# Gaussians with mean 1, y = 1{X1^2 + X2^2 + X3^2 + noise > 4}, 20% MCAR
# on x1..x3 (surrogates carry the NA rows).
gen_bfig3 <- function(n) {
  d <- 9; S <- matrix(0.5, d, d); diag(S) <- 1
  X <- mvrnorm(n, rep(1, d), S)
  y <- as.integer(X[, 1]^2 + X[, 2]^2 + X[, 3]^2 + rnorm(n, sd = 0.5) > 4)
  for (j in 1:3) X[, j] <- mcar(X[, j], 0.2)
  list(X = X, y = y, k = 2L)
}
# m3grid: three classes, n = 1000, integer-valued columns (grid, ties),
# one rounded Gaussian, NA on x1 and x2; x2 is a noisy copy of x1.
gen_m3grid <- function(n) {
  x1 <- sample(1:8, n, TRUE); x2 <- pmin(8, pmax(1, x1 + sample(-1:1, n, TRUE)))
  x3 <- sample(1:8, n, TRUE); x4 <- sample(0:1, n, TRUE); x5 <- round(rnorm(n), 1)
  S <- cbind(0, 0.8 * (x1 - 4.5), 0.6 * (x3 - 4.5) + x4 + x5)
  list(X = cbind(mcar(x1, 0.25), mcar(x2, 0.15), x3, x4, x5), y = draw_class(S), k = 3L)
}
# m4ties: four classes, n = 300, every column on a half-unit grid (heavy
# ties), correlated columns, 30% NA on x1..x3.
gen_m4ties <- function(n) {
  z <- rnorm(n); g <- function(v) pmin(3, pmax(0, round(2 * v) / 2))
  x1 <- g(1.5 + z); x2 <- g(1.5 + z + rnorm(n, sd = 0.5)); x3 <- g(1.5 + rnorm(n))
  x4 <- g(1.5 + 0.7 * z + rnorm(n, sd = 0.7))
  S <- cbind(0, 1.5 * (x1 - 1.5), 1.5 * (x3 - 1.5), -1.5 * (x1 - 1.5) - (x3 - 1.5))
  list(X = cbind(mcar(x1, 0.3), mcar(x2, 0.3), mcar(x3, 0.3), x4), y = draw_class(S), k = 4L)
}
# m4apr: four classes with counts 50/90/100/60 at n = 300, for which
# rpart's altered priors are not all equal (1 - 2^-52 for three classes,
# 1 - 1.5 * 2^-52 for one), so its weight sums depend on the order of tied
# rows (its quicksort's) and decide between splits of equal Gini. Integer
# columns 0..3 (heavy ties) with 20% NA; x1 carries the signal. Its seed
# is one where fully grown trees ("full" below) differ between rpart's
# order and a stable sort (TestClassTieOrder checks this).
gen_m4apr <- function(n) {
  y <- sample(rep(0:3, round(n * c(50, 90, 100, 60) / 300)))
  x1 <- y %/% 2 + sample(0:2, n, TRUE); x2 <- sample(0:3, n, TRUE)
  x3 <- sample(0:3, n, TRUE); x4 <- sample(0:3, n, TRUE)
  list(X = cbind(mcar(x1, 0.2), mcar(x2, 0.2), mcar(x3, 0.2), mcar(x4, 0.2)), y = y, k = 4L)
}
# absent: four class codes, but code 1 never occurs (rpart keeps the
# empty level with prior 0 and probability 0); NA on x1.
gen_absent <- function(n) {
  x1 <- rnorm(n); x2 <- x1 + rnorm(n, sd = 0.7); x3 <- runif(n)
  S <- cbind(0, -Inf, 2 * x1, 3 * (x3 - 0.5))
  list(X = cbind(mcar(x1, 0.2), x2, x3), y = draw_class(S), k = 4L)
}
# halves: binary; the root's primary-observed rows split 20/20, so rpart
# has no majority side: training rows missing x1 and x2 stay in the root
# (x3 is observed only where x1 is missing, so it is no surrogate), and so
# do such test rows (they get the root's probabilities).
gen_halves <- function(n) {
  k <- n - 8
  x1 <- c(seq_len(k), rep(NA, 8)); x2 <- rnorm(n)
  y <- c(as.integer(seq_len(k) > k / 2), rep(1L, 8))
  y[c(3, k - 2)] <- 1L - y[c(3, k - 2)]
  x2[n - 1:2] <- NA
  x3 <- ifelse(is.na(x1), rnorm(n), NA)
  list(X = cbind(x1, x2, x3), y = y, k = 2L)
}

# Each set has its own seed, so that one can be chosen without moving
# the others.
sets <- list(
  bsmall = list(gen = gen_bsmall, n = 40,   ntest = 30,  seed = 1),
  bfig3  = list(gen = gen_bfig3,  n = 1000, ntest = 500, seed = 2),
  m3grid = list(gen = gen_m3grid, n = 1000, ntest = 400, seed = 3),
  m4ties = list(gen = gen_m4ties, n = 300,  ntest = 200, seed = 4),
  m4apr  = list(gen = gen_m4apr,  n = 300,  ntest = 200, seed = 22, full = TRUE),
  absent = list(gen = gen_absent, n = 200,  ntest = 100, seed = 6),
  halves = list(gen = gen_halves, n = 48,   ntest = 24,  seed = 7)
)

controls <- list(
  paper  = rpart.control(minsplit = 90, minbucket = 30, cp = 0, xval = 0,
                         maxsurrogate = 5, usesurrogate = 2),
  rpart  = rpart.control(xval = 0),
  # deep growth with cost-complexity collapsing at work
  cp     = rpart.control(minsplit = 10, minbucket = 3, cp = 0.005, xval = 0),
  # cp = 0 bounded by depth: splits that do not lower the misclassified
  # count are collapsed even so
  depth  = rpart.control(minsplit = 6, minbucket = 2, cp = 0, maxdepth = 4, xval = 0)
)
# fully grown, for the sets marked full: many near-ties between splits
full <- rpart.control(minsplit = 2, minbucket = 1, cp = 0, xval = 0)

# ---- canonical description of a fitted tree ---------------------------
# A node's path is "r" for the root, then one digit per level: 0 for the
# child receiving x < threshold, 1 for the other. Surrogate direction
# lowleft = 1 when x < threshold goes to the primary's "0" child. yval is
# the class code (0-based), n1.. the class counts, p1.. rpart's yprob
# (the columns predict(type = "prob") returns).
describe <- function(fit, xnames) {
  fr <- fit$frame; sp <- fit$splits
  ids <- as.integer(rownames(fr)); leaf <- fr$var == "<leaf>"
  nsp <- ifelse(leaf, 0L, 1L + fr$ncompete + fr$nsurrogate)
  start <- cumsum(c(0L, nsp))[seq_along(nsp)]
  nc <- (ncol(fr$yval2) - 2L) / 2L
  path <- character(0); path["1"] <- "r"
  nodes <- list(); surr <- list()
  for (k in seq_along(ids)) {
    id <- ids[k]; p <- path[[as.character(id)]]
    row <- data.frame(path = p, var = 0L, threshold = NA_real_, n = fr$n[k],
                      yval = fr$yval[k] - 1L, dev = fr$dev[k],
                      complexity = fr$complexity[k], improve = NA_real_)
    for (j in seq_len(nc)) {
      row[[paste0("n", j)]] <- fr$yval2[k, 1L + j]
      row[[paste0("p", j)]] <- fr$yval2[k, 1L + nc + j]
    }
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

# rpart's altered priors (gini.c's aprior) for data priors and the
# default loss, in its order of operations: 1 exactly unless rounding
# says otherwise. Recorded so that the Go test can check that some
# fixture exercises the inexact case.
aprior <- function(y, k) {
  cnt <- tabulate(y + 1L, max(y) + 1L); nc <- length(cnt); p <- cnt / sum(cnt)
  temp <- 0; a <- numeric(nc)
  for (i in 1:nc) for (j in 1:nc) {
    l <- if (i == j) 0 else 1; temp <- temp + l * p[i]; a[i] <- a[i] + l * p[i]
  }
  ifelse(cnt > 0, a / (temp * p), a)
}

dir.create("golden_class", showWarnings = FALSE)
info <- character(0)
for (name in names(sets)) {
  st <- sets[[name]]
  set.seed(st$seed)
  tr <- st$gen(st$n); te <- st$gen(st$ntest)
  d <- ncol(tr$X); xnames <- paste0("x", 1:d)
  train <- data.frame(y = tr$y, tr$X); names(train) <- c("y", xnames)
  test <- data.frame(te$X); names(test) <- xnames
  write_num(train, file.path("golden_class", paste0(name, "_train.csv")))
  write_num(test, file.path("golden_class", paste0(name, "_test.csv")))
  # Fit on the values read back from the CSV, exactly what Go will see.
  train <- read.csv(file.path("golden_class", paste0(name, "_train.csv")))
  test <- read.csv(file.path("golden_class", paste0(name, "_test.csv")))
  train$y <- factor(train$y, levels = 0:(tr$k - 1L))
  ap <- aprior(as.integer(as.character(train$y)), tr$k)
  info <- c(info, sprintf("%s k=%d aprior-1=%s", name, tr$k,
                          paste(sprintf("%.3g", ap - 1), collapse = ",")))
  ctl <- if (isTRUE(st$full)) c(controls, list(full = full)) else controls
  for (cn in names(ctl)) {
    fit <- rpart(y ~ ., data = train, method = "class", control = ctl[[cn]])
    desc <- describe(fit, xnames)
    stem <- file.path("golden_class", paste0(name, "_", cn))
    write_num(desc$nodes, paste0(stem, "_nodes.csv"))
    write_num(desc$surr, paste0(stem, "_surrogates.csv"))
    pt <- predict(fit, newdata = test, type = "prob")
    ph <- predict(fit, newdata = train, type = "prob")[seq_len(nrow(test)), , drop = FALSE]
    colnames(pt) <- paste0("p", seq_len(ncol(pt))); colnames(ph) <- paste0("train_p", seq_len(ncol(ph)))
    write_num(data.frame(pt, ph), paste0(stem, "_pred.csv"))
    info <- c(info, sprintf("  %s: %d nodes", cn, nrow(fit$frame)))
  }
}
writeLines(c(R.version.string, paste("rpart", packageVersion("rpart"))),
           file.path("golden_class", "VERSIONS.txt"))
writeLines(info, file.path("golden_class", "SUMMARY.txt"))
cat(info, sep = "\n")
