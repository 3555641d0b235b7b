#!/usr/bin/env Rscript
# Reference timing for class_bench_test.go: rpart's method "class" (Gini,
# data priors, 0-1 loss) with the paper's controls (minbucket 30,
# minsplit 90, cp 0, xval 0, five surrogates) fitting the training set
# and predicting class probabilities (type = "prob") of the test set that
# the benchmark wrote to dir (train.csv: y in 0/1 and x1..x9; test.csv:
# x1..x9; NA for missing). Prints the CPU time (user + system) per fit +
# predict, the mean over reps runs timed as one batch after 3 warm-up
# runs, and the fitted tree's number of leaves:
#   Rscript bench_class_rpart.R dir [reps]
suppressPackageStartupMessages(library(rpart))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
reps <- if (length(args) >= 2) as.integer(args[2]) else 20
train <- read.csv(file.path(dir, "train.csv"))
test <- read.csv(file.path(dir, "test.csv"))
train$y <- factor(train$y, levels = 0:1)
ctl <- rpart.control(minsplit = 90, minbucket = 30, cp = 0, xval = 0,
                     maxsurrogate = 5, usesurrogate = 2)
run <- function() {
  fit <- rpart(y ~ ., data = train, method = "class", control = ctl)
  predict(fit, newdata = test, type = "prob")
  fit
}
for (i in 1:3) fit <- run()
invisible(gc(FALSE))
t0 <- proc.time()
for (i in seq_len(reps)) run()
t1 <- proc.time() - t0
cat(R.version.string, ", rpart ", as.character(packageVersion("rpart")), "\n", sep = "")
cat(sprintf("n=%d: rpart class + predict prob: %.3f ms cpu (user+sys, mean of %d), %.3f ms elapsed; %d leaves\n",
            nrow(train), 1000 * (t1[["user.self"]] + t1[["sys.self"]]) / reps, reps,
            1000 * t1[["elapsed"]] / reps, sum(fit$frame$var == "<leaf>")))
