#!/usr/bin/env Rscript
# Reference timing for BenchmarkClassSVM (class_bench_test.go): e1071's
# svm() C-classification with its defaults and probability = TRUE
# (fitted = FALSE: misslab does not compute the training fit) on the
# training set the benchmark wrote to dir (train.csv: y in 0/1 and
# x1..x9), then predict(…, probability = TRUE) on test.csv (x1..x9).
# Prints the CPU time (user + system) per fit + predict, the mean over
# reps runs timed as one batch after one warm-up run, and the number of
# support vectors:
#   Rscript bench_class_e1071.R dir [reps]
suppressPackageStartupMessages(library(e1071))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
reps <- if (length(args) >= 2) as.integer(args[2]) else 5
train <- read.csv(file.path(dir, "train.csv"))
test <- as.matrix(read.csv(file.path(dir, "test.csv")))
x <- as.matrix(train[, -1])
y <- factor(train$y, levels = 0:1)
run <- function() {
  fit <- svm(x, y, probability = TRUE, fitted = FALSE)
  predict(fit, test, probability = TRUE)
  fit
}
set.seed(1)
fit <- run()
invisible(gc(FALSE))
t0 <- proc.time()
for (i in seq_len(reps)) run()
t1 <- proc.time() - t0
cat(R.version.string, ", e1071 ", as.character(packageVersion("e1071")), "\n", sep = "")
cat(sprintf("n=%d: e1071 svm probability + predict: %.3f ms cpu (user+sys, mean of %d), %.3f ms elapsed; %d SV\n",
            nrow(train), 1000 * (t1[["user.self"]] + t1[["sys.self"]]) / reps, reps,
            1000 * t1[["elapsed"]] / reps, fit$tot.nSV))
