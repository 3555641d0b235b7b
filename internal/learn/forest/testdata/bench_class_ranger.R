# Times ranger 0.14.1 as a probability forest (ranger(x, y = factor(y),
# probability = TRUE), its defaults: 500 trees, mtry = floor(sqrt(9)) = 3,
# min.node.size = 10; num.threads = 1), fitted with x and y directly (not
# through the formula interface) and predicting the test rows, on the data
# BenchmarkClassForest writes (bench_class_test.go): train.csv and test.csv
# in dir, columns X1..X9 and y.
#   Rscript bench_class_ranger.R DIR REPS
# prints the mean CPU time (user + system) of fit + predict per run.
suppressPackageStartupMessages(library(ranger))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
reps <- if (length(args) >= 2) as.integer(args[2]) else 5

tr <- read.csv(file.path(dir, "train.csv"))
te <- read.csv(file.path(dir, "test.csv"))
xs <- paste0("X", 1:9)
x <- tr[, xs]
y <- factor(tr$y)
xt <- te[, xs]

cpu <- numeric(reps)
for (k in seq_len(reps)) {
  t0 <- proc.time()
  fit <- ranger(x = x, y = y, probability = TRUE, num.threads = 1, seed = k)
  p <- predict(fit, data = xt, num.threads = 1)$predictions
  t1 <- proc.time() - t0
  cpu[k] <- t1[["user.self"]] + t1[["sys.self"]]
}
stopifnot(fit$min.node.size == 10, fit$mtry == 3, fit$num.trees == 500)
cat(sprintf("ranger %s probability fit + predict: cpu %.1f ms/run (user+sys, %d runs), n_train %d\n",
            packageVersion("ranger"), 1000 * mean(cpu), reps, nrow(tr)))
