# Golden fixture for ranger_test.go: test R² of ranger 0.14.1 with its
# regression defaults (500 trees, mtry = floor(sqrt(9)) = 3,
# min.node.size = 5, bootstrap of n rows with replacement, variance
# splitting, unlimited depth), num.threads = 1, on the paper's Model 1
# (X ~ N(1, Sigma), Sigma = 0.5 11' + 0.5 I, d = 9,
# Y = X1^2 + X2^2 + X3^2 + N(0, 0.1^2)), for 50 seeds, in two cases:
#   mean:     20% MCAR on X1..X3, imputed by the training means
#   complete: the same rows without missing values
#   grid:     the complete rows with every feature floored to a multiple
#             of 1/2 (test values then sit on split values: ranger sends
#             x <= threshold left)
# R² = 1 - MSE / Var(Y) with the true Var(Y) = 33.01; nodes is the mean
# number of nodes (splits and leaves) per tree.
#
# The data sets come from the Go generator, so that the Go test fits its
# forest on exactly the rows ranger saw (a paired comparison):
#   go test ./internal/learn/forest -args -dump /tmp/forestdata
#   Rscript internal/learn/forest/testdata/make_golden.R /tmp/forestdata \
#     > internal/learn/forest/testdata/ranger_r2.csv
suppressPackageStartupMessages(library(ranger))
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args) >= 1) args[1] else "/tmp/forestdata"
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)))
source(file.path(here, "quad.R"))

seeds <- 1000:1049
cat(sprintf("# ranger %s, %s; seeds %d..%d\n", packageVersion("ranger"),
            R.version.string, min(seeds), max(seeds)))
cat("seed,case,ntrain,ntest,r2,nodes\n")
for (s in seeds) {
  d <- read_quad(dir, s)
  for (case in c("mean", "complete", "grid")) {
    tr <- d[[case]]$train
    te <- d[[case]]$test
    fit <- ranger(Y ~ ., data = tr, num.threads = 1, seed = s)
    stopifnot(fit$num.trees == 500, fit$mtry == 3, fit$min.node.size == 5)
    pred <- predict(fit, data = te, num.threads = 1)$predictions
    r2 <- 1 - mean((pred - te$Y)^2) / 33.01
    nodes <- mean(sapply(fit$forest$split.varIDs, length))
    cat(sprintf("%d,%s,%d,%d,%.6f,%.3f\n", s, case, nrow(tr), nrow(te), r2, nodes))
  }
}
