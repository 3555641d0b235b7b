# Reference timings for BenchmarkFitPredict{,Mask} (svm) and the knn
# package's benchmarks: e1071::svm + predict and caret::knnreg + predict
# on data of the same design (n_train = n_test = 1000, d = 9 Gaussian
# with mean 1 and equicorrelation 0.5, y = X1² + N(0, 0.1²), 20% MCAR on
# X1..X3 then mean-imputed; "mask" appends the three indicators).
# Reports CPU time (user + system) per fit + predict, median and minimum
# over the repetitions, in milliseconds:
#   Rscript bench_e1071.R [reps]
suppressMessages({ library(e1071); library(caret) })
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 20
set.seed(7)
gen <- function(n, d = 9, rho = 0.5) {
  S <- matrix(rho, d, d); diag(S) <- 1
  X <- matrix(rnorm(n * d), n, d) %*% chol(S) + 1
  list(X = X, y = X[, 1]^2 + rnorm(n, sd = 0.1),
       M = matrix(runif(n * 3) < 0.2, n, 3))
}
tr <- gen(1000); te <- gen(1000)
mu <- sapply(1:3, function(j) mean(tr$X[!tr$M[, j], j]))
for (j in 1:3) { tr$X[tr$M[, j], j] <- mu[j]; te$X[te$M[, j], j] <- mu[j] }
cpu <- function(f) {
  t <- replicate(reps, { gc(FALSE); s <- proc.time(); f(); e <- proc.time() - s; e[["user.self"]] + e[["sys.self"]] })
  sprintf("median %.1f ms, min %.1f ms", 1000 * median(t), 1000 * min(t))
}
for (mask in c(FALSE, TRUE)) {
  a <- if (mask) cbind(tr$X, tr$M * 1) else tr$X
  b <- if (mask) cbind(te$X, te$M * 1) else te$X
  tag <- if (mask) "d=9+3 mask" else "d=9"
  m <- svm(a, tr$y)
  cat(tag, ": e1071 nSV =", m$tot.nSV, "\n")
  cat(tag, ": e1071::svm (defaults, fitted = TRUE) + predict:", cpu(function() predict(svm(a, tr$y), b)), "\n")
  cat(tag, ": e1071::svm (fitted = FALSE) + predict:        ", cpu(function() predict(svm(a, tr$y, fitted = FALSE), b)), "\n")
  cat(tag, ": caret::knnreg(k = 5) + predict:                ", cpu(function() predict(knnreg(a, tr$y, k = 5), b)), "\n")
}
