#!/usr/bin/env Rscript
# Benchmark reference for bench_test.go: draws the benchmark data (the
# paper's quadratic model, d = 9, rho = 0.5, mu = 1, noise sd 0.1, 20%
# MCAR on x1..x3; n_train = n_test = 1000), writes bench_train.csv and
# bench_test.csv, and times partykit::ctree + predict with the paper's
# controls (mincriterion = 0, minbucket = 30, NA to the majority child) on
# the 9 covariates and on the 9 covariates plus the 3 mask indicators.
# Run from this directory: Rscript bench_partykit.R
# Timings go to bench_partykit_timing.txt: medians over 20 runs of the
# elapsed time and of the CPU time (user + system; R is single-threaded),
# the latter being robust to other load on the machine.
suppressPackageStartupMessages({ library(partykit); library(MASS) })
set.seed(2024)
gen <- function(n) {
  d <- 9; S <- matrix(0.5, d, d); diag(S) <- 1
  X <- mvrnorm(n, rep(1, d), S)
  y <- X[, 1]^2 + X[, 2]^2 + X[, 3]^2 + rnorm(n, sd = 0.1)
  for (j in 1:3) X[runif(n) < 0.2, j] <- NA
  colnames(X) <- paste0("x", 1:d)
  data.frame(X, y = y)
}
train <- gen(1000); test <- gen(1000)
fmt <- function(df) as.data.frame(lapply(df, function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))))
write.csv(fmt(train), "bench_train.csv", row.names = FALSE, quote = FALSE)
write.csv(fmt(test), "bench_test.csv", row.names = FALSE, quote = FALSE)

mask <- function(df) { for (j in 1:3) df[[paste0("m", j)]] <- as.numeric(is.na(df[[j]])); df }
ctl <- ctree_control(mincriterion = 0, minbucket = 30, majority = TRUE)
time_it <- function(tr, te) {
  t <- replicate(20, system.time({
    ct <- ctree(y ~ ., data = tr, control = ctl)
    p <- predict(ct, newdata = te)
  })[c("elapsed", "user.self", "sys.self")])
  c(elapsed = median(t["elapsed", ]), cpu = median(t["user.self", ] + t["sys.self", ]))
}
t9 <- time_it(train, test[1:9])
t12 <- time_it(mask(train), mask(test)[-10])
ct <- ctree(y ~ ., data = train, control = ctl)
writeLines(c(R.version.string, paste("partykit", packageVersion("partykit")),
             sprintf("d=9  ctree+predict median elapsed %.4f s, cpu %.4f s (%d leaves)", t9[1], t9[2], width(ct)),
             sprintf("d=12 ctree+predict median elapsed %.4f s, cpu %.4f s", t12[1], t12[2]),
             sprintf("load average at the end: %s", paste(readLines("/proc/loadavg"), collapse = " "))),
           "bench_partykit_timing.txt")
