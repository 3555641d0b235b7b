# Golden fixtures for internal/learn/svm: e1071::svm eps-regression.
#
# Run from this directory with
#   Rscript make_golden.R && sh make_libsvm.sh
# (R 4.x, e1071 1.7-13; libsvm-tools 3.24 for the second script). Per case
# it writes
#   <case>_train.csv   y, x1..xp
#   <case>_test.csv    x1..xp, then pred_<set> = predict(svm(...), test)
#   <case>_fit.csv     one row per parameter set: set, cost, gamma (0 =
#                      e1071's default 1/p), epsilon, tolerance,
#                      shrinking, scale (requested), scaled (whether e1071
#                      did scale), tot.nSV, rho
#   <case>_sv_<set>.csv  index (1-based training row), coef
# with 17 significant digits so that Go reads back the exact doubles.
suppressMessages(library(e1071))
stopifnot(packageVersion("e1071") == "1.7.13")

f17 <- function(m) apply(as.matrix(m), c(1, 2), function(v) sprintf("%.17g", v))
put <- function(m, file) {
  write.table(f17(m), file, sep = ",", quote = FALSE, row.names = FALSE,
              col.names = colnames(m))
}

# sets: list of lists(name, cost, gamma, epsilon, tolerance, shrinking,
# scale).
write_case <- function(name, xtr, ytr, xte, sets) {
  xtr <- as.matrix(xtr); xte <- as.matrix(xte)
  p <- ncol(xtr)
  colnames(xtr) <- colnames(xte) <- paste0("x", seq_len(p))
  put(cbind(y = ytr, xtr), paste0(name, "_train.csv"))
  te <- xte
  fit <- NULL
  for (s in sets) {
    g <- if (s$gamma == 0) 1 / p else s$gamma
    m <- suppressWarnings(svm(xtr, ytr, cost = s$cost, gamma = g,
                              epsilon = s$epsilon, tolerance = s$tolerance,
                              shrinking = s$shrinking, scale = s$scale))
    te <- cbind(te, predict(m, xte))
    colnames(te)[ncol(te)] <- paste0("pred_", s$name)
    fit <- rbind(fit, data.frame(set = s$name, cost = s$cost, gamma = s$gamma,
                                 epsilon = s$epsilon, tolerance = s$tolerance,
                                 shrinking = as.integer(s$shrinking),
                                 scale = as.integer(s$scale),
                                 scaled = as.integer(any(m$scaled)),
                                 nsv = m$tot.nSV, rho = sprintf("%.17g", m$rho)))
    sv <- cbind(index = m$index, coef = as.vector(m$coefs))
    put(sv, paste0(name, "_sv_", s$name, ".csv"))
  }
  put(te, paste0(name, "_test.csv"))
  write.csv(fit, paste0(name, "_fit.csv"), quote = FALSE, row.names = FALSE)
}

def <- list(name = "default", cost = 1, gamma = 0, epsilon = 0.1, tolerance = 0.001,
            shrinking = TRUE, scale = TRUE)
with_set <- function(name, ...) modifyList(def, list(name = name, ...))

# Correlated Gaussian covariates with mean 1 (the paper's Model 1 design).
gauss <- function(n, d, rho = 0.5) {
  S <- matrix(rho, d, d); diag(S) <- 1
  matrix(rnorm(n * d), n, d) %*% chol(S) + 1
}

set.seed(20240502)

# 1. Small generic problem, several parameter sets.
xtr <- gauss(300, 3); xte <- gauss(150, 3)
ytr <- xtr[, 1]^2 + rnorm(300, sd = 0.1)
write_case("gauss_p3", xtr, ytr, xte, list(
  def,
  with_set("c10", cost = 10, gamma = 0.5, epsilon = 0.05, tolerance = 1e-4),
  with_set("c0.3", cost = 0.3, epsilon = 0.3),
  with_set("c30eps0", cost = 30, epsilon = 0),
  with_set("noshrink", shrinking = FALSE)))

# 2. Paper-like: d = 9, 20% MCAR on x1..x3 mean-imputed, plus the three
#    mask columns (p = 12).
xtr <- gauss(500, 9); xte <- gauss(200, 9)
ytr <- xtr[, 1]^2 + rnorm(500, sd = 0.1)
mtr <- matrix(runif(500 * 3) < 0.2, 500, 3); mte <- matrix(runif(200 * 3) < 0.2, 200, 3)
for (j in 1:3) {
  mu <- mean(xtr[!mtr[, j], j])
  xtr[mtr[, j], j] <- mu; xte[mte[, j], j] <- mu
}
write_case("meanimp_p12", cbind(xtr, mtr * 1), ytr, cbind(xte, mte * 1), list(def))

# 3. Linear model with a constant column: e1071 then scales nothing.
xtr <- gauss(250, 5); xte <- gauss(100, 5)
ytr <- drop(xtr %*% c(1, 2, -1, 3, -0.5)) + rnorm(250, sd = 0.1)
xtr[, 4] <- 2; xte[, 4] <- 2 + (runif(100) < 0.1)
write_case("constcol_p5", xtr, ytr, xte, list(def))

# 4. Every column constant: all kernel values are 1.
xtr <- matrix(rep(c(1, -2, 0.5), each = 40), 40, 3)
write_case("allconst_p3", xtr, rnorm(40, mean = 3), xtr[1:5, ] + 0.25 * (1:5), list(def))

# 5. Out-of-range imputation (999999) in one column, Friedman-type target.
xtr <- matrix(runif(400 * 4), 400, 4); xte <- matrix(runif(150 * 4), 150, 4)
ytr <- 10 * sin(pi * xtr[, 1] * xtr[, 2]) + 20 * (xtr[, 3] - 0.5)^2 + 10 * xtr[, 4] + rnorm(400)
xtr[runif(400) < 0.25, 1] <- 999999; xte[runif(150) < 0.25, 1] <- 999999
write_case("oor_p4", xtr, ytr, xte, list(def))

# 6. Unscaled data (scale = FALSE): the same problem svm-train solves;
#    make_libsvm.sh runs libsvm-tools on it.
xtr <- gauss(300, 4); xte <- gauss(100, 4)
ytr <- sin(2 * xtr[, 1]) + xtr[, 2] + rnorm(300, sd = 0.2)
write_case("raw_p4", xtr, ytr, xte, list(with_set("noscale", scale = FALSE)))

# 7. Larger problem (n = 1000, p = 9): many shrinking rounds and cache
#    traffic with a small cache.
xtr <- gauss(1000, 9); xte <- gauss(100, 9)
ytr <- xtr[, 1]^2 + rnorm(1000, sd = 0.1)
write_case("gauss_p9_n1000", xtr, ytr, xte, list(def))
