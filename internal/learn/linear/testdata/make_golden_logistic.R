# Golden fixtures for internal/learn/linear's Logistic: class
# probabilities of glm(family = binomial) (two classes) and
# nnet::multinom (three or more), with their defaults.
#
# Run from this directory with
#   Rscript make_golden_logistic.R
# (R 4.2, nnet 7.3). It writes, per case,
#   logit_<case>_train.csv  y, x1..xp (y the class code 0..k-1)
#   logit_<case>_test.csv   x1..xp, then prob_c0..prob_c<k-1>; binomial
#                           cases also eta, the linear predictor
#   logit_<case>_fit.csv    one row: k, iter (glm's IRLS iterations; NA
#                           for multinom), converged (glm's converged,
#                           or multinom's convergence == 0), value (glm's
#                           deviance, or multinom's value: the
#                           negative log-likelihood)
# For two classes prob_c1 is predict(type = "response") and prob_c0 is
# binomial()$linkinv(-eta), the probability glm gives the other class
# (not 1 - prob_c1, which loses the digits of probabilities near 1).
# Numbers are written with 17 significant digits.
suppressMessages(library(nnet))
stopifnot(packageVersion("nnet") >= "7.3.18")

fmt <- function(m) {
  m <- as.matrix(m)
  apply(m, c(1, 2), function(v) if (is.na(v)) "NA" else sprintf("%.17g", v))
}

write_csv <- function(m, file) {
  write.table(fmt(m), file, sep = ",", quote = FALSE, row.names = FALSE,
              col.names = colnames(m))
}

write_case <- function(name, xtr, ytr, xte, nclass) {
  xtr <- as.matrix(xtr); xte <- as.matrix(xte)
  p <- ncol(xtr)
  colnames(xtr) <- colnames(xte) <- paste0("x", seq_len(p))
  write_csv(cbind(y = ytr, xtr), paste0("logit_", name, "_train.csv"))
  dtr <- data.frame(y = factor(ytr, levels = 0:(nclass - 1)), xtr)
  dte <- data.frame(xte)
  if (nclass == 2) {
    fit <- withCallingHandlers(glm(y ~ ., family = binomial, data = dtr),
      warning = function(w) { message(name, ": ", conditionMessage(w)); invokeRestart("muffleWarning") })
    eta <- suppressWarnings(predict(fit, dte, type = "link"))
    prob <- cbind(binomial()$linkinv(-eta), suppressWarnings(predict(fit, dte, type = "response")))
    te <- cbind(xte, eta = eta)
    meta <- c(k = 2, iter = fit$iter, converged = fit$converged, value = fit$deviance)
  } else {
    fit <- withCallingHandlers(multinom(y ~ ., data = dtr, trace = FALSE),
      warning = function(w) { message(name, ": ", conditionMessage(w)); invokeRestart("muffleWarning") })
    pr <- predict(fit, dte, type = "probs")
    prob <- matrix(0, nrow(xte), nclass) # classes absent from training: 0
    prob[, match(colnames(pr), levels(dtr$y))] <- pr
    te <- xte
    meta <- c(k = nclass, iter = NA, converged = fit$convergence == 0, value = fit$value)
  }
  colnames(prob) <- paste0("prob_c", 0:(nclass - 1))
  write_csv(cbind(te, prob), paste0("logit_", name, "_test.csv"))
  write_csv(t(meta), paste0("logit_", name, "_fit.csv"))
}

# Correlated Gaussian covariates with mean 1 (the paper's Model 1 design).
gauss <- function(n, d, rho = 0.5) {
  S <- matrix(rho, d, d); diag(S) <- 1
  matrix(rnorm(n * d), n, d) %*% chol(S) + 1
}

# The paper's design with 20% MCAR on x1..x3, mean-imputed, plus the
# three mask columns (p = 12).
meanimp <- function(ntr, nte) {
  xtr <- gauss(ntr, 9); xte <- gauss(nte, 9)
  mtr <- matrix(runif(ntr * 3) < 0.2, ntr, 3); mte <- matrix(runif(nte * 3) < 0.2, nte, 3)
  score <- xtr[, 1]^2 - 2 + 0.5 * xtr[, 2]
  for (j in 1:3) {
    mu <- mean(xtr[!mtr[, j], j])
    xtr[mtr[, j], j] <- mu; xte[mte[, j], j] <- mu
  }
  list(xtr = cbind(xtr, mtr * 1), xte = cbind(xte, mte * 1), score = score)
}

# Class codes 0..nclass-1 from the quantiles of a score.
cut_classes <- function(score, nclass) {
  br <- quantile(score, seq(0, 1, length.out = nclass + 1))
  as.integer(cut(score, br, include.lowest = TRUE)) - 1L
}

set.seed(20250526)

# Binomial (glm).
# 1. Small, well conditioned.
xtr <- gauss(60, 3); xte <- gauss(40, 3)
write_case("bin_small", xtr, rbinom(60, 1, plogis(0.5 + xtr[, 1] - xtr[, 2])), xte, 2)

# 2. ~1000 rows of the paper's design, mean-imputed with masks (p = 12).
d <- meanimp(1000, 500)
write_case("bin_meanimp_p12", d$xtr, rbinom(1000, 1, plogis(d$score)), d$xte, 2)

# 3. Perfectly separable: glm warns that fitted probabilities are
#    numerically 0 or 1 and stops at its convergence rule (the deviance
#    tends to 0) with large coefficients.
xtr <- gauss(40, 2); xte <- gauss(30, 2)
write_case("bin_separable", xtr, as.integer(xtr[, 1] + xtr[, 2] > 2), xte, 2)

# 4. Rank deficient: x3 = x1 + x2 and an all-zero column (an unused mask);
#    glm's pivoting QR drops both (NA coefficients).
xtr <- gauss(80, 2); xte <- gauss(40, 2)
xtr <- cbind(xtr, xtr[, 1] + xtr[, 2], 0); xte <- cbind(xte, xte[, 1] + xte[, 2], 0)
write_case("bin_collinear", xtr, rbinom(80, 1, plogis(xtr[, 1] - 1)), xte, 2)

# 5. Out-of-range imputation: 999999 for missing entries of x1.
xtr <- gauss(200, 3); xte <- gauss(80, 3)
ytr <- rbinom(200, 1, plogis(xtr[, 2] - 1))
xtr[runif(200) < 0.3, 1] <- 999999; xte[runif(80) < 0.3, 1] <- 999999
write_case("bin_oor", xtr, ytr, xte, 2)

# Multinomial (multinom).
# 6. Small, three classes.
xtr <- gauss(90, 3); xte <- gauss(50, 3)
write_case("multi3_small", xtr, cut_classes(xtr[, 1] - xtr[, 3] + rnorm(90), 3), xte, 3)

# 7. ~1000 rows of the paper's design, four classes (p = 12).
d <- meanimp(1000, 500)
write_case("multi4_meanimp_p12", d$xtr, cut_classes(d$score + rnorm(1000, sd = 0.5), 4), d$xte, 4)

# 8. Separable classes: multinom stops at maxit = 100 or its relative
#    tolerance with large weights.
xtr <- gauss(60, 2); xte <- gauss(40, 2)
write_case("multi3_separable", xtr, cut_classes(xtr[, 1], 3), xte, 3)

# 9. Badly scaled: 999999 for missing entries of x1 (BFGS on unscaled
#    inputs typically ends at maxit).
xtr <- gauss(200, 3); xte <- gauss(80, 3)
ytr <- cut_classes(xtr[, 2] + rnorm(200), 3)
xtr[runif(200) < 0.3, 1] <- 999999; xte[runif(80) < 0.3, 1] <- 999999
write_case("multi3_oor", xtr, ytr, xte, 3)

# 10. Four classes of which one (code 2) is absent from the training
#     rows: multinom drops the empty group; its probability is 0.
xtr <- gauss(120, 3); xte <- gauss(40, 3)
ytr <- c(0L, 1L, 3L)[cut_classes(xtr[, 1] + rnorm(120, sd = 0.5), 3) + 1]
write_case("multi4_absent", xtr, ytr, xte, 4)
