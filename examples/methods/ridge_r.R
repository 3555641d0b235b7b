# misslab learner "ridge_r": a ridge-penalised linear model in base R that
# both regresses and classifies (tasks = ["regression", "classification"]
# in its methods file): least squares for a numeric target, multinomial
# logistic regression (softmax, k classes; two classes are the binomial
# logit) for class codes. One process serves both ops.
#
# It takes the NA itself (accepts_missing = true): each column's NA are
# replaced by its training mean (0 for a column with none observed) and a
# 0/1 indicator column per incomplete training column is appended; the
# columns are standardised on the training set; the intercept is not
# penalised. So "ridge_r/native" is mean imputation with the mask.
#
# Settings (a number each; anything else is an error naming it):
#   lambda   ridge penalty on the standardised coefficients   default 1
#   maxit    BFGS iterations of the logistic fit              default 500
#
# Deterministic (optim's BFGS from zero): the seed is unused.
source("misslab_classify.R") # sources misslab_method.R too

defaults <- list(lambda = 1, maxit = 500)

# features fits the design's preprocessing on the training covariates x.
features <- function(x) {
  mu <- colMeans(x, na.rm = TRUE); mu[!is.finite(mu)] <- 0
  f <- list(mu = mu, inc = which(colSums(is.na(x)) > 0))
  d <- design(f, x)
  f$center <- colMeans(d); f$scale <- apply(d, 2, sd); f$scale[!(f$scale > 0)] <- 1
  f
}

# design returns the standardised design of x (f$center unset: raw).
design <- function(f, x) {
  m <- is.na(x)
  for (j in seq_len(ncol(x))) x[m[, j], j] <- f$mu[j]
  d <- cbind(x, 1 * m[, f$inc, drop = FALSE])
  if (is.null(f$center)) d else scale(d, center = f$center, scale = f$scale)
}

fit_reg <- function(x, y, seed, settings, threads) {
  s <- with_defaults(settings, defaults)
  f <- features(x); d <- design(f, x)
  beta <- solve(crossprod(d) + s$lambda * diag(ncol(d)), crossprod(d, y - mean(y)))
  list(f = f, b0 = mean(y), beta = beta)
}

predict_reg <- function(model, xtest) model$b0 + drop(design(model$f, xtest) %*% model$beta)

softmax <- function(eta) {
  e <- exp(eta - apply(eta, 1, max))
  e / rowSums(e)
}

fit_class <- function(x, y, k, seed, settings, threads) {
  s <- with_defaults(settings, defaults)
  f <- features(x); z <- cbind(1, design(f, x))
  yy <- diag(k)[y + 1L, , drop = FALSE] # one-hot: class j in column j + 1
  pen <- rep(c(0, rep(1, ncol(z) - 1)), k) * s$lambda
  loss <- function(b) {
    eta <- z %*% matrix(b, ncol(z), k)
    eta <- eta - apply(eta, 1, max)
    -sum(yy * eta) + sum(log(rowSums(exp(eta)))) + sum(pen * b^2) / 2
  }
  grad <- function(b) as.vector(crossprod(z, softmax(z %*% matrix(b, ncol(z), k)) - yy)) + pen * b
  opt <- optim(rep(0, ncol(z) * k), loss, grad, method = "BFGS", control = list(maxit = s$maxit, reltol = 1e-12))
  list(f = f, b = matrix(opt$par, ncol(z), k))
}

predict_class <- function(model, xtest) softmax(cbind(1, design(model$f, xtest)) %*% model$b)

run_classifier(list(fit = fit_class, predict_proba = predict_class),
               regressor = list(fit = fit_reg, predict = predict_reg))
