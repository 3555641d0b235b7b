# Golden fixtures for internal/learn/knn: caret::knnreg predictions.
#
# Run from this directory with
#   Rscript make_golden.R
# (R 4.x, caret 6.0.93). It writes, per case, <case>_train.csv (y, x1..xp)
# and <case>_test.csv (x1..xp, then one column pred_k<k> per k with
# caret::knnreg's prediction). Numbers are written with 17 significant
# digits so that Go reads back the exact doubles R used.
suppressMessages(library(caret))
stopifnot(packageVersion("caret") == "6.0.93")

fmt <- function(m) {
  m <- as.matrix(m)
  apply(m, c(1, 2), function(v) sprintf("%.17g", v))
}

write_case <- function(name, xtr, ytr, xte, ks) {
  xtr <- as.matrix(xtr); xte <- as.matrix(xte)
  p <- ncol(xtr)
  colnames(xtr) <- colnames(xte) <- paste0("x", seq_len(p))
  tr <- cbind(y = ytr, xtr)
  write.table(fmt(tr), paste0(name, "_train.csv"), sep = ",",
              quote = FALSE, row.names = FALSE, col.names = colnames(tr))
  te <- xte
  for (k in ks) {
    fit <- knnreg(xtr, ytr, k = k)
    te <- cbind(te, predict(fit, xte))
    colnames(te)[ncol(te)] <- paste0("pred_k", k)
  }
  write.table(fmt(te), paste0(name, "_test.csv"), sep = ",",
              quote = FALSE, row.names = FALSE, col.names = colnames(te))
}

# Correlated Gaussian covariates with mean 1 (the paper's Model 1 design).
gauss <- function(n, d, rho = 0.5) {
  S <- matrix(rho, d, d); diag(S) <- 1
  matrix(rnorm(n * d), n, d) %*% chol(S) + 1
}

set.seed(20240501)

# 1. Generic continuous data, p = 4.
xtr <- gauss(300, 4); xte <- gauss(150, 4)
write_case("gauss_p4", xtr, xtr[, 1]^2 + rnorm(300, sd = 0.1), xte, c(1, 5, 9))

# 2. Paper-like: d = 9, 20% MCAR on x1..x3, mean-imputed, plus the three
#    mask columns (p = 12).
xtr <- gauss(400, 9); xte <- gauss(200, 9)
ytr <- xtr[, 1]^2 + rnorm(400, sd = 0.1)
mtr <- matrix(runif(400 * 3) < 0.2, 400, 3); mte <- matrix(runif(200 * 3) < 0.2, 200, 3)
for (j in 1:3) {
  mu <- mean(xtr[!mtr[, j], j])
  xtr[mtr[, j], j] <- mu; xte[mte[, j], j] <- mu
}
write_case("meanimp_p12", cbind(xtr, mtr * 1), ytr, cbind(xte, mte * 1), c(5))

# 3. Integer grid: many exact distance ties (caret averages all rows tied
#    with the k-th).
xtr <- matrix(sample(0:3, 200 * 2, replace = TRUE), 200, 2)
xte <- matrix(sample(0:4, 60 * 2, replace = TRUE), 60, 2) - 0.5 * (runif(120) < 0.3)
write_case("grid_ties", xtr, rnorm(200), xte, c(1, 3, 5, 10))

# 4. Near ties: grid points moved by up to 1e-7, so squared distances
#    differ by far less than caret's relative tolerance 1e-4.
xtr <- matrix(sample(0:3, 200 * 3, replace = TRUE), 200, 3) + runif(600, 0, 1e-7)
xte <- matrix(sample(0:3, 60 * 3, replace = TRUE), 60, 3) + 0.25
write_case("near_ties", xtr, rnorm(200), xte, c(1, 5))

# 5. One covariate, 40% mean-imputed (the paper's Proposition 1 setting):
#    large blocks of identical rows.
x <- runif(400); miss <- runif(400) < 0.4
xo <- x; xo[miss] <- mean(x[!miss])
xt <- runif(100); mt <- runif(100) < 0.4; xt[mt] <- mean(x[!miss])
write_case("prop1_p1", matrix(xo), x + rnorm(400, sd = 0.05), matrix(xt), c(5))

# 6. Out-of-range imputation: a column holding 999999 for missing entries.
xtr <- gauss(200, 3); xte <- gauss(80, 3)
ytr <- xtr[, 2] + rnorm(200, sd = 0.1)
xtr[runif(200) < 0.3, 1] <- 999999; xte[runif(80) < 0.3, 1] <- 999999
write_case("oor_p3", xtr, ytr, xte, c(5))
