# Reference timing for BenchmarkLogistic: glm(family = binomial) +
# predict(type = "response") on the rows the benchmark writes (binary
# class on the paper's Model 1 design, d = 9, n_train = n_test).
# Reports CPU time (user + system) per fit + predict, median and minimum
# over the repetitions, in milliseconds; each repetition runs enough
# fits to last about 0.2 s, so that proc.time's resolution does not
# matter:
#   Rscript bench_glm.R <dir with train.csv, test.csv> [reps]
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
reps <- if (length(args) > 1) as.integer(args[2]) else 5
tr <- read.csv(file.path(dir, "train.csv"))
te <- read.csv(file.path(dir, "test.csv"))[, -1]

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

fit <- glm(y ~ ., family = binomial, data = tr)
cat(sprintf("n=%d : glm iterations %d, converged %s\n", nrow(tr), fit$iter, fit$converged))
cat(sprintf("n=%d : glm(binomial) + predict: %s\n", nrow(tr),
            timeit(function() predict(glm(y ~ ., family = binomial, data = tr), te, type = "response"))))
X <- cbind(1, as.matrix(tr[, -1])); Xt <- cbind(1, as.matrix(te))
cat(sprintf("n=%d : glm.fit + linkinv (no formula): %s\n", nrow(tr),
            timeit(function() binomial()$linkinv(drop(Xt %*% glm.fit(X, tr$y, family = binomial())$coefficients)))))
