# Golden fixtures for svm.Classifier: e1071::svm C-classification with
# the radial kernel and probability = TRUE (e1071 1.7-13, libsvm 3.23).
#
# Run from this directory with
#   Rscript make_class_golden.R
# Class codes are 0..k-1 (factor levels "0".."k-1", so e1071's level
# index is code + 1). Per case <c> it writes, with 17 significant digits:
#   <c>_train.csv  y, x1..xp
#   <c>_test.csv   x1..xp; dec_<a>_<b>: e1071's decision values of pair
#                  (a, b) (class codes, libsvm's order), which do not
#                  depend on the seed; prob_s<seed>_<code>: predicted
#                  probabilities of a fit after set.seed(seed) (0 for a
#                  code absent from training)
#   <c>_model.csv  one row per class in libsvm's order: label (code), nsv,
#                  and the fit's cost, gamma (as used), scaled, tot.nSV
#   <c>_pairs.csv  one row per pair: a, b (codes), rho, then
#                  probA_s<seed>, probB_s<seed> for every seed
#   <c>_sv.csv     index (1-based training row), coef1..coef<c-1>
#                  (e1071's coefs)
#   <c>_draws.csv  u: the unif_rand() values the first seed's fit used
#                  for its shuffles, pair after pair (e1071's libsvm
#                  shuffles each pair's l rows with l draws)
#   <c>_cvdec.csv  pair (0-based), pos (1 for the pair's first class),
#                  dec: the first seed's 5-fold decision values that
#                  libsvm's svm_binary_svc_probability feeds to
#                  sigmoid_train, rebuilt here from the draws by calling
#                  e1071 on each fold's rows in libsvm's order
suppressMessages(library(e1071))
stopifnot(packageVersion("e1071") == "1.7.13")

seeds <- c(101, 102, 103, 104, 105, 106)

f17 <- function(m) apply(as.matrix(m), c(1, 2), function(v) sprintf("%.17g", v))
put <- function(m, file) {
  write.table(f17(m), file, sep = ",", quote = FALSE, row.names = FALSE,
              col.names = colnames(m))
}

fit_svm <- function(x, y, s, probability = TRUE)
  suppressWarnings(svm(x, y, type = "C-classification", cost = s$cost,
                       gamma = s$gamma, scale = s$scale,
                       probability = probability, fitted = FALSE))

# The decision values libsvm's svm_binary_svc_probability computes for
# pair (a, b) (libsvm label positions) of model m trained on scaled rows
# xs, given the draws u of that pair's shuffle.
cv_decisions <- function(xs, yi, m, a, b, u, s) {
  lab <- m$labels
  rows <- c(which(yi == lab[a]), which(yi == lab[b]))
  ci <- sum(yi == lab[a]); l <- length(rows)
  perm <- 0:(l - 1)
  for (i in 0:(l - 1)) {
    j <- i + (floor(u[i + 1] * (l - i)) %% (l - i))
    tmp <- perm[i + 1]; perm[i + 1] <- perm[j + 1]; perm[j + 1] <- tmp
  }
  dec <- numeric(l)
  for (f in 0:4) {
    begin <- (f * l) %/% 5; end <- ((f + 1) * l) %/% 5
    if (begin == end) next
    held <- perm[(begin + 1):end]
    tr <- c(perm[seq_len(begin)], if (end < l) perm[(end + 1):l])
    pos <- tr[tr < ci]; neg <- tr[tr >= ci]
    if (!length(pos) && !length(neg)) dec[held + 1] <- 0
    else if (!length(neg)) dec[held + 1] <- 1
    else if (!length(pos)) dec[held + 1] <- -1
    else {
      g <- c(pos, neg)
      yy <- factor(ifelse(g < ci, "p", "n"), levels = c("p", "n"))
      sub <- fit_svm(xs[rows[g + 1], , drop = FALSE], yy,
                     modifyList(s, list(scale = FALSE)), probability = FALSE)
      stopifnot(sub$levels[sub$labels[1]] == "p")
      pr <- predict(sub, xs[rows[held + 1], , drop = FALSE], decision.values = TRUE)
      dec[held + 1] <- attr(pr, "decision.values")[, "p/n"]
    }
  }
  data.frame(pos = as.integer(seq_len(l) <= ci), dec = dec)
}

write_case <- function(name, xtr, ytr, k, xte, cost = 1, gamma = 0, scale = TRUE) {
  xtr <- as.matrix(xtr); xte <- as.matrix(xte)
  p <- ncol(xtr)
  colnames(xtr) <- colnames(xte) <- paste0("x", seq_len(p))
  put(cbind(y = ytr, xtr), paste0(name, "_train.csv"))
  s <- list(cost = cost, gamma = if (gamma == 0) 1 / p else gamma, scale = scale)
  y <- factor(ytr, levels = 0:(k - 1))
  yi <- as.integer(y)
  te <- xte
  pairs <- NULL
  for (seed in seeds) {
    set.seed(seed)
    m <- fit_svm(xtr, y, s)
    nc <- m$nclasses
    code <- m$labels - 1
    if (is.null(pairs)) {
      pr <- predict(m, xte, decision.values = TRUE)
      dv <- attr(pr, "decision.values")
      ab <- t(combn(nc, 2))
      pairs <- data.frame(a = code[ab[, 1]], b = code[ab[, 2]], rho = f17(m$rho))
      for (q in seq_len(nrow(ab)))
        te <- cbind(te, setNames(dv[, q], NULL))
      colnames(te)[p + seq_len(nrow(ab))] <- paste0("dec_", pairs$a, "_", pairs$b)
      put(data.frame(label = code, nsv = m$nSV, cost = s$cost, gamma = m$gamma,
                     scaled = as.integer(any(m$scaled)), totnsv = m$tot.nSV),
          paste0(name, "_model.csv"))
      sv <- cbind(index = m$index, m$coefs)
      colnames(sv) <- c("index", paste0("coef", seq_len(nc - 1)))
      put(sv, paste0(name, "_sv.csv"))
      # The draws of this fit and the decision values they lead to.
      l <- sapply(seq_len(nrow(ab)), function(q) sum(yi %in% m$labels[ab[q, ]]))
      set.seed(seed)
      u <- runif(sum(l))
      put(data.frame(u = u), paste0(name, "_draws.csv"))
      xs <- if (any(m$scaled)) e1071:::scale_data_frame(xtr) else xtr
      off <- c(0, cumsum(l))
      cv <- do.call(rbind, lapply(seq_len(nrow(ab)), function(q)
        cbind(pair = q - 1, cv_decisions(xs, yi, m, ab[q, 1], ab[q, 2],
                                         u[(off[q] + 1):off[q + 1]], s))))
      put(cv, paste0(name, "_cvdec.csv"))
    }
    stopifnot(isTRUE(all.equal(code[t(combn(nc, 2))[, 1]], pairs$a)))
    pairs[[paste0("probA_s", seed)]] <- f17(m$probA)
    pairs[[paste0("probB_s", seed)]] <- f17(m$probB)
    pb <- attr(predict(m, xte, probability = TRUE), "probabilities")
    for (cd in 0:(k - 1)) {
      col <- if (as.character(cd) %in% colnames(pb)) pb[, as.character(cd)] else rep(0, nrow(xte))
      te <- cbind(te, col)
      colnames(te)[ncol(te)] <- paste0("prob_s", seed, "_", cd)
    }
  }
  write.csv(pairs, paste0(name, "_pairs.csv"), quote = FALSE, row.names = FALSE)
  put(te, paste0(name, "_test.csv"))
}

# Correlated Gaussian covariates with mean 1 (the paper's design).
gauss <- function(n, d, rho = 0.5) {
  S <- matrix(rho, d, d); diag(S) <- 1
  matrix(rnorm(n * d), n, d) %*% chol(S) + 1
}
# Classes from a latent score: code j for the j-th interval between the
# cut points.
cut_classes <- function(z, cuts) findInterval(z, cuts)

set.seed(20250611)

# 1. Small binary problem; the first row is class 1, so libsvm's class
#    order is (1, 0).
xtr <- gauss(120, 3); xte <- gauss(60, 3)
z <- function(x) x[, 1]^2 - x[, 2] + rnorm(nrow(x), sd = 0.5)
ytr <- as.integer(z(xtr) > 0.5); ytr[1] <- 1L
write_case("bin_p3", xtr, ytr, 2, xte)

# 2. The same design with other cost and gamma.
write_case("bin_p3_c10", xtr, ytr, 2, xte, cost = 10, gamma = 0.8)

# 3. Paper-like binary: d = 9, n = 1000, class 1{X1^2 + noise > median}.
xtr <- gauss(1000, 9); xte <- gauss(200, 9)
sc <- xtr[, 1]^2 + rnorm(1000, sd = 0.1)
ytr <- as.integer(sc > median(sc))
write_case("bin_p9_n1000", xtr, ytr, 2, xte)

# 4. Three classes in first-occurrence order 2, 0, 1.
xtr <- gauss(150, 4); xte <- gauss(60, 4)
zz <- xtr[, 1] + xtr[, 2]^2 / 2 + rnorm(150, sd = 0.3)
ytr <- cut_classes(zz, quantile(zz, c(1, 2) / 3))
ytr[1:3] <- c(2L, 0L, 1L)
write_case("multi3_p4", xtr, ytr, 3, xte)

# 5. Four unbalanced classes (40/30/20/10%), d = 5, n = 1000.
xtr <- gauss(1000, 5); xte <- gauss(200, 5)
zz <- xtr[, 1] - xtr[, 3] + xtr[, 2]^2 / 2 + rnorm(1000, sd = 0.4)
ytr <- cut_classes(zz, quantile(zz, c(0.4, 0.7, 0.9)))
write_case("multi4_p5_n1000", xtr, ytr, 4, xte)

# 6. Four codes declared, code 2 absent from training.
xtr <- gauss(90, 3); xte <- gauss(30, 3)
zz <- xtr[, 1] + rnorm(90, sd = 0.3)
ytr <- c(0L, 1L, 3L)[cut_classes(zz, quantile(zz, c(1, 2) / 3)) + 1]
write_case("absent_p3", xtr, ytr, 4, xte)

# 7. A constant column: e1071 then scales nothing.
xtr <- gauss(100, 4); xte <- gauss(40, 4)
ytr <- as.integer(xtr[, 1] + rnorm(100, sd = 0.5) > 1)
xtr[, 3] <- 2; xte[, 3] <- 2 + (runif(40) < 0.2)
write_case("constcol_p4", xtr, ytr, 2, xte)

# 8. Seven rows, two of class 1: some folds train on one class only
#    (decision values ±1 in libsvm's cross-validation).
xtr <- gauss(7, 2); xte <- gauss(10, 2)
write_case("tiny_p2", xtr, c(0L, 0L, 1L, 0L, 0L, 1L, 0L), 2, xte)
