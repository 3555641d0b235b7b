#!/usr/bin/env Rscript
# Benchmark reference for BenchmarkFitClass (bench_test.go): times
# partykit::ctree with a binary factor response + predict(type = "prob")
# with the paper's controls (mincriterion = 0, minbucket = 30, NA rows to
# the majority child) on n_train = n_test = 1000 and 10000 rows, d = 10.
# Run from this directory: Rscript bench_class_partykit.R
#
# The rows are drawn by the Park-Miller "minimal standard" generator
# (s <- 48271 s mod 2^31 - 1, u = s / (2^31 - 1)), exact in doubles, so
# that classBenchData in bench_test.go draws bit-identical rows without a
# committed data file: per row, x_j = u1 + u2 + u3 + u4 - 2 for j = 1..10,
# then the class 1{x1 + x2 x3 + (u - 0.5) > 0}, then NA in x1, x2, x3
# each where a fresh u < 0.2. The training rows come first, then the
# test rows, from seed n.
#
# Timings go to bench_class_partykit_timing.txt: per n, medians over reps
# runs of the elapsed time and of the CPU time (user + system; R is
# single-threaded), the number of leaves and the sum of the predicted
# probabilities of class 1 (so that the Go benchmark can check that it
# fits the same tree).
suppressPackageStartupMessages(library(partykit))

draw <- function(rows, seed) {
  m <- 2147483647; s <- seed
  u <- numeric(rows * 44)
  for (i in seq_along(u)) { s <- (s * 48271) %% m; u[i] <- s / m }
  X <- matrix(NA_real_, rows, 10); y <- integer(rows); k <- 0
  nx <- function() { k <<- k + 1; u[k] }
  for (i in 1:rows) {
    for (j in 1:10) X[i, j] <- nx() + nx() + nx() + nx() - 2
    y[i] <- as.integer(X[i, 1] + X[i, 2] * X[i, 3] + (nx() - 0.5) > 0)
    for (j in 1:3) if (nx() < 0.2) X[i, j] <- NA
  }
  colnames(X) <- paste0("x", 1:10)
  data.frame(X, y = factor(y, levels = 0:1))
}

ctl <- ctree_control(mincriterion = 0, minbucket = 30, majority = TRUE)
out <- c(R.version.string, paste("partykit", packageVersion("partykit")))
for (n in c(1000, 10000)) {
  d <- draw(2 * n, n)
  train <- d[1:n, ]; test <- d[n + 1:n, 1:10]
  reps <- if (n == 1000) 20 else 5
  t <- replicate(reps, system.time({
    ct <- ctree(y ~ ., data = train, control = ctl)
    p <- predict(ct, newdata = test, type = "prob")
  })[c("elapsed", "user.self", "sys.self")])
  ct <- ctree(y ~ ., data = train, control = ctl)
  p <- predict(ct, newdata = test, type = "prob")
  out <- c(out, sprintf("n=%d ctree+predict(prob) median elapsed %.4f s, cpu %.4f s; %d leaves, sum p1 %.17g",
                        n, median(t["elapsed", ]), median(t["user.self", ] + t["sys.self", ]),
                        width(ct), sum(p[, 2])))
}
out <- c(out, sprintf("load average at the end: %s", paste(readLines("/proc/loadavg"), collapse = " ")))
writeLines(out, "bench_class_partykit_timing.txt")
