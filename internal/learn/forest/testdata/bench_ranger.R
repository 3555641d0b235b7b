# Times ranger 0.14.1 (num.threads = 1, regression defaults) fitting and
# predicting the benchmark data set of bench_test.go: n_train = n_test =
# 1000, d = 9, 20% MCAR on X1..X3, mean-imputed with the training means.
# ranger 0.14 has no native NA handling, so its counterpart of the MIA
# benchmark is MIA as out-of-range duplication (d = 12, mtry 3); the
# complete data are timed too.
#
# The data come from the Go generator (so both sides see the same rows):
#   go test ./internal/learn/forest -args -dump /tmp/forestdata
#   Rscript internal/learn/forest/testdata/bench_ranger.R /tmp/forestdata \
#     > internal/learn/forest/testdata/bench_ranger_timing.txt
suppressPackageStartupMessages(library(ranger))
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args) >= 1) args[1] else "/tmp/forestdata"
reps <- if (length(args) >= 2) as.integer(args[2]) else 20

source(file.path(dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE))), "quad.R"))
d <- read_quad(dir, 1)

time_one <- function(train, test, reps) {
  cpu <- numeric(reps)
  ela <- numeric(reps)
  r2 <- numeric(reps)
  for (k in seq_len(reps)) {
    t0 <- proc.time()
    fit <- ranger(Y ~ ., data = train, num.threads = 1, seed = k)
    pred <- predict(fit, data = test, num.threads = 1)$predictions
    t1 <- proc.time() - t0
    cpu[k] <- t1[["user.self"]] + t1[["sys.self"]]
    ela[k] <- t1[["elapsed"]]
    r2[k] <- 1 - mean((pred - test$Y)^2) / 33.01
  }
  sprintf("cpu %.1f ms/run (user+sys, %d runs), elapsed median %.1f ms, min %.1f ms; mean test R2 %.4f",
          1000 * mean(cpu), reps, 1000 * median(ela), 1000 * min(ela), mean(r2))
}

cat(R.version.string, "\n", sep = "")
cat("ranger ", as.character(packageVersion("ranger")), "\n", sep = "")
cat("date ", format(Sys.Date()), "\n", sep = "")
cat("mean-imputed: ", time_one(d$mean$train, d$mean$test, reps), "\n", sep = "")
cat("mia-inf (d = 12): ", time_one(d$miainf$train, d$miainf$test, reps), "\n", sep = "")
cat("complete: ", time_one(d$complete$train, d$complete$test, reps), "\n", sep = "")
