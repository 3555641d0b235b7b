# misslab learner "rpart": an rpart regression tree with surrogate splits,
# given the NA themselves (accepts_missing = true: "rpart/native").
#
# Its defaults are those of misslab's built-in tree/surrogate (the paper's
# trees, internal/learn/families.go), so that on the same data both give
# the same predictions: minbucket 30, minsplit 3 * minbucket, cp 0,
# maxdepth 30, maxsurrogate 5, usesurrogate 2, no cross-validation.
# maxcompete = 0 skips the competitor splits rpart would only report.
#
# Settings (a number each; anything else is an error naming it):
#   minbucket     fewest training rows in a leaf              default 30
#   minsplit      fewest rows to try a split; 0 = 3*minbucket default 0
#   cp            complexity parameter                        default 0
#   maxdepth      1..30, root = depth 0                       default 30
#   maxsurrogate  surrogate splits kept per node              default 5
#
# rpart is deterministic here (xval = 0): the seed is unused.
suppressPackageStartupMessages(library(rpart))
source("misslab_method.R") # the worker runs methods in the methods file's directory

defaults <- list(minbucket = 30, minsplit = 0, cp = 0, maxdepth = 30, maxsurrogate = 5)

fit <- function(x, y, seed, settings, threads) {
  s <- with_defaults(settings, defaults)
  if (s$minsplit == 0) s$minsplit <- 3 * s$minbucket
  ctl <- rpart.control(minsplit = s$minsplit, minbucket = s$minbucket, cp = s$cp,
                       maxdepth = s$maxdepth, maxsurrogate = s$maxsurrogate,
                       usesurrogate = 2, surrogatestyle = 0, maxcompete = 0, xval = 0)
  colnames(x) <- paste0("X", seq_len(ncol(x)))
  rpart(y ~ ., data = data.frame(y = y, x), method = "anova", control = ctl)
}

predict_tree <- function(model, xtest) {
  colnames(xtest) <- paste0("X", seq_len(ncol(xtest)))
  predict(model, newdata = data.frame(xtest))
}

run_learner(list(fit = fit, predict = predict_tree))
