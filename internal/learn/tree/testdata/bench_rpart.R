#!/usr/bin/env Rscript
# Writes the benchmark data set shared with bench_test.go (bench_train.csv,
# bench_test.csv: the paper's Model 1, d = 9, rho = 0.5, mu = 1, 20% MCAR
# on x1..x3, n = 1000 each) and times rpart on it on this machine:
# mean CPU and elapsed time over 200 runs of rpart(fit) + predict(test),
# with the paper's controls (surrogates), without surrogates, and with
# rpart's defaults. Run from this directory: Rscript bench_rpart.R
suppressPackageStartupMessages({ library(rpart); library(MASS) })
fmt <- function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))
gen <- function(n) {
  d <- 9; S <- matrix(0.5, d, d); diag(S) <- 1
  X <- mvrnorm(n, rep(1, d), S)
  y <- X[, 1]^2 + X[, 2]^2 + X[, 3]^2 + rnorm(n, sd = 0.1)
  for (j in 1:3) X[, j][runif(n) < 0.2] <- NA
  df <- data.frame(y = y, X); names(df) <- c("y", paste0("x", 1:d)); df
}
set.seed(7)
for (f in c("bench_train.csv", "bench_test.csv")) {
  df <- gen(1000)
  write.csv(as.data.frame(lapply(df, fmt)), f, row.names = FALSE, quote = FALSE)
}
train <- read.csv("bench_train.csv"); test <- read.csv("bench_test.csv")[, -1]
ctl <- list(
  paper_surrogate = rpart.control(minsplit = 90, minbucket = 30, cp = 0, xval = 0,
                                  maxsurrogate = 5, usesurrogate = 2),
  paper_nosurrogate = rpart.control(minsplit = 90, minbucket = 30, cp = 0, xval = 0,
                                    maxsurrogate = 0, usesurrogate = 2, maxcompete = 0),
  defaults = rpart.control(xval = 0))
lines <- c(R.version.string, paste("rpart", packageVersion("rpart")),
           paste("date", format(Sys.time(), "%Y-%m-%d")))
cpu <- function(t) t[["user.self"]] + t[["sys.self"]]
for (nm in names(ctl)) {
  run <- function() predict(rpart(y ~ ., data = train, control = ctl[[nm]]), newdata = test)
  for (i in 1:5) run() # warm up
  c0 <- proc.time()
  for (i in 1:200) run()
  c1 <- proc.time()
  fit <- rpart(y ~ ., data = train, control = ctl[[nm]])
  lines <- c(lines, sprintf(
    "%s: %.3f ms cpu (user+sys), %.3f ms elapsed per fit+predict (mean of 200); %d leaves",
    nm, 1000 * (cpu(c1) - cpu(c0)) / 200, 1000 * (c1[["elapsed"]] - c0[["elapsed"]]) / 200,
    sum(fit$frame$var == "<leaf>")))
}
writeLines(lines, "bench_rpart_timing.txt")
cat(lines, sep = "\n")
