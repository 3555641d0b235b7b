# Reference timing for BenchmarkKNN3: caret::knn3(k = 5) +
# predict(type = "prob") on the rows the benchmark writes (binary class
# on the paper's Model 1 design, d = 9, n_train = n_test). Reports CPU
# time (user + system) per fit + predict, median and minimum over the
# repetitions, in milliseconds; each repetition runs enough fits to last
# about 0.2 s:
#   Rscript bench_knn3.R <dir with train.csv, test.csv> [reps]
suppressMessages(library(caret))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
reps <- if (length(args) > 1) as.integer(args[2]) else 5
tr <- read.csv(file.path(dir, "train.csv"))
te <- as.matrix(read.csv(file.path(dir, "test.csv"))[, -1])
x <- as.matrix(tr[, -1]); y <- factor(tr$y, levels = 0:1)

batch <- function(f, inner) {
  gc(FALSE)
  s <- proc.time()
  for (i in seq_len(inner)) f()
  e <- proc.time() - s
  (e[["user.self"]] + e[["sys.self"]]) / inner
}
timeit <- function(f) {
  inner <- max(1, ceiling(0.2 / max(batch(f, 1), 1e-4)))
  t <- replicate(reps, batch(f, inner))
  sprintf("median %.3f ms, min %.3f ms", 1000 * median(t), 1000 * min(t))
}

cat(sprintf("n=%d : caret::knn3(k = 5) + predict(prob): %s\n", nrow(tr),
            timeit(function() predict(knn3(x, y, k = 5), te, type = "prob"))))
