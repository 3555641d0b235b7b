# Golden fixtures for internal/learn/knn's Classifier: caret::knn3 class
# probabilities.
#
# Run from this directory with
#   Rscript make_golden_knn3.R
# (R 4.x, caret 6.0.93). It writes, per case, knn3_<case>_train.csv
# (y, x1..xp; y the class code 0..k-1) and knn3_<case>_test.csv (x1..xp,
# then one column prob_k<K>_c<c> per neighbour count K and class c with
# predict(knn3(x, y, k = K), xte, type = "prob")). Numbers are written
# with 17 significant digits so that Go reads back the exact doubles R
# used.
suppressMessages(library(caret))
stopifnot(packageVersion("caret") == "6.0.93")

fmt <- function(m) {
  m <- as.matrix(m)
  apply(m, c(1, 2), function(v) sprintf("%.17g", v))
}

write_case <- function(name, xtr, ytr, xte, ks, nclass) {
  xtr <- as.matrix(xtr); xte <- as.matrix(xte)
  stopifnot(all(0:(nclass - 1) %in% ytr)) # knn3 needs every class present
  p <- ncol(xtr)
  colnames(xtr) <- colnames(xte) <- paste0("x", seq_len(p))
  tr <- cbind(y = ytr, xtr)
  write.table(fmt(tr), paste0("knn3_", name, "_train.csv"), sep = ",",
              quote = FALSE, row.names = FALSE, col.names = colnames(tr))
  yf <- factor(ytr, levels = 0:(nclass - 1))
  te <- xte
  for (k in ks) {
    prob <- predict(knn3(xtr, yf, k = k), xte, type = "prob")
    stopifnot(identical(colnames(prob), levels(yf)))
    colnames(prob) <- paste0("prob_k", k, "_c", 0:(nclass - 1))
    te <- cbind(te, prob)
  }
  write.table(fmt(te), paste0("knn3_", name, "_test.csv"), sep = ",",
              quote = FALSE, row.names = FALSE, col.names = colnames(te))
}

# Correlated Gaussian covariates with mean 1 (the paper's Model 1 design).
gauss <- function(n, d, rho = 0.5) {
  S <- matrix(rho, d, d); diag(S) <- 1
  matrix(rnorm(n * d), n, d) %*% chol(S) + 1
}

# Class codes 0..nclass-1 from the quantiles of a noisy score.
cut_classes <- function(score, nclass) {
  br <- quantile(score, seq(0, 1, length.out = nclass + 1))
  as.integer(cut(score, br, include.lowest = TRUE)) - 1L
}

set.seed(20250525)

# 1. Three classes, continuous data, p = 4.
xtr <- gauss(300, 4); xte <- gauss(150, 4)
ytr <- cut_classes(xtr[, 1]^2 + xtr[, 2] + rnorm(300, sd = 0.5), 3)
write_case("gauss3_p4", xtr, ytr, xte, c(1, 5, 9), 3)

# 2. Binary, integer grid: many exact distance ties (knn3 lets every row
#    tied with the k-th vote).
xtr <- matrix(sample(0:3, 200 * 2, replace = TRUE), 200, 2)
xte <- matrix(sample(0:4, 60 * 2, replace = TRUE), 60, 2) - 0.5 * (runif(120) < 0.3)
ytr <- as.integer(xtr[, 1] + xtr[, 2] + rnorm(200) > 3)
write_case("grid2", xtr, ytr, xte, c(1, 3, 5, 10), 2)

# 3. Four classes on a 3-d integer grid.
xtr <- matrix(sample(0:3, 250 * 3, replace = TRUE), 250, 3)
xte <- matrix(sample(0:3, 80 * 3, replace = TRUE), 80, 3) + 0.5 * (runif(240) < 0.3)
ytr <- sample(0:3, 250, replace = TRUE)
write_case("grid4", xtr, ytr, xte, c(1, 5, 10), 4)

# 4. Near ties: grid points moved by up to 1e-7, so squared distances
#    differ by far less than knn3's relative tolerance 1e-4.
xtr <- matrix(sample(0:3, 200 * 3, replace = TRUE), 200, 3) + runif(600, 0, 1e-7)
xte <- matrix(sample(0:3, 60 * 3, replace = TRUE), 60, 3) + 0.25
ytr <- sample(0:2, 200, replace = TRUE)
write_case("near3", xtr, ytr, xte, c(1, 5), 3)

# 5. Paper-like, ~1000 rows: d = 9, 20% MCAR on x1..x3, mean-imputed,
#    four classes from the quantiles of X1^2 + noise.
xtr <- gauss(1000, 9); xte <- gauss(400, 9)
ytr <- cut_classes(xtr[, 1]^2 + rnorm(1000, sd = 0.3), 4)
mtr <- matrix(runif(1000 * 3) < 0.2, 1000, 3); mte <- matrix(runif(400 * 3) < 0.2, 400, 3)
for (j in 1:3) {
  mu <- mean(xtr[!mtr[, j], j])
  xtr[mtr[, j], j] <- mu; xte[mte[, j], j] <- mu
}
write_case("meanimp4_p9", xtr, ytr, xte, c(5, 9), 4)

# 6. One covariate, 40% mean-imputed: large blocks of identical rows, so
#    dozens of rows tie with the k-th.
x <- runif(400); miss <- runif(400) < 0.4
xo <- x; xo[miss] <- mean(x[!miss])
xt <- runif(100); mt <- runif(100) < 0.4; xt[mt] <- mean(x[!miss])
ytr <- as.integer(x + rnorm(400, sd = 0.2) > 0.5)
write_case("prop1_bin", matrix(xo), ytr, matrix(xt), c(1, 5), 2)
