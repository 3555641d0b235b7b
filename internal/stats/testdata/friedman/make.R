#!/usr/bin/env Rscript
# Golden fixtures for stats.Friedman, stats.PTukey and stats.QTukey,
# produced with base R only (stats). Run from this directory:
#   Rscript make.R
# The Go tests read the CSV files written here and never run R.
# Numbers are written with 17 significant digits (sprintf("%.17g")) so that
# every double round-trips exactly; NA marks a missing value, Inf infinity.
#
# Ranking convention. R's friedman.test ranks each block (row) in
# increasing order, so rank 1 is the SMALLEST score. misslab's scores are
# higher-is-better (R²), and stats.Friedman gives rank 1 to the LARGEST
# score. The Friedman statistic is unchanged when every block's ranks are
# reversed (r -> k + 1 - r leaves the sum of squared deviations of the
# rank sums from n(k+1)/2 as it is), so friedman.test(y) is the reference
# statistic, while the average ranks below are those of -y:
#   colMeans(t(apply(-y, 1, rank)))   (ties.method = "average").

options(warn = 2)
f17 <- function(x) ifelse(is.na(x) & !is.nan(x), "NA", sprintf("%.17g", x))
put <- function(df, file) {
  for (j in seq_along(df)) if (is.double(df[[j]])) df[[j]] <- f17(df[[j]])
  write.csv(df, file, row.names = FALSE, quote = FALSE)
}
writeLines(paste(R.version.string), "R_VERSION")

## 1. Score matrices and friedman.test -------------------------------------
set.seed(20250301)
# auc14: a 14 x 4 table of AUC values in the style of Demšar (2006)
# Table 6 (C4.5 with and without tuned m and cf), transcribed from memory:
# its average ranks differ from the paper's printed ones by half a rank in
# one tie, so only R's numbers on it are used, never the paper's.
auc14 <- matrix(c(
  .763, .768, .771, .798,   .599, .591, .590, .569,   .954, .971, .968, .967,
  .628, .661, .654, .657,   .882, .888, .886, .898,   .936, .931, .916, .931,
  .661, .668, .609, .685,   .583, .583, .563, .625,   .775, .838, .866, .875,
  1.000, 1.000, 1.000, 1.000, .940, .962, .965, .962, .619, .666, .614, .669,
  .972, .981, .975, .975,   .957, .978, .946, .970), ncol = 4, byrow = TRUE)
# sim(n, k, spread, digits): method j has mean 0.5 + spread * j / k plus
# block effects; rounding to digits creates ties.
sim <- function(n, k, spread, digits) {
  b <- rnorm(n, 0, 0.1)
  m <- outer(b, spread * seq_len(k) / k, "+") + 0.5 +
    matrix(rnorm(n * k, 0, 0.05), n, k)
  round(m, digits)
}
withNA <- function(m, cells) { m[cells] <- NA; m }
cases <- list(
  auc14   = auc14,
  k2n5    = sim(5, 2, 0.05, 3),
  k3n40   = sim(40, 3, 0.03, 2),
  k4n10   = sim(10, 4, 0.00, 1),
  k5ties  = matrix(sample(1:3, 12 * 5, replace = TRUE), 12, 5),
  k6nan   = withNA(sim(20, 6, 0.10, 3), cbind(c(3, 11, 11), c(2, 5, 6))),
  k7n25   = sim(25, 7, 0.08, 2),
  k8n8    = sim(8, 8, 0.20, 3),
  k9n15   = sim(15, 9, 0.02, 2),
  k10n30  = sim(30, 10, 0.15, 3),
  perfect = t(replicate(6, c(0.9, 0.8, 0.7, 0.6))),
  k3n5tie = rbind(c(1, 1, 2), c(1, 1, 2), c(2, 1, 1), c(3, 3, 3), c(0.5, 0.7, 0.7))
)
long <- do.call(rbind, lapply(names(cases), function(cs) {
  y <- cases[[cs]]
  data.frame(case = cs, block = rep(seq_len(nrow(y)), ncol(y)),
             method = rep(seq_len(ncol(y)), each = nrow(y)), score = as.vector(y))
}))
put(long, "scores.csv")

qalpha <- function(alpha, k) qtukey(1 - alpha, k, Inf) / sqrt(2)
stat <- function(cs) {
  y <- cases[[cs]]
  ft <- friedman.test(y)                      # drops incomplete blocks
  yc <- y[complete.cases(y), , drop = FALSE]
  n <- nrow(yc); k <- ncol(yc)
  chi2 <- unname(ft$statistic)
  ff <- (n - 1) * chi2 / (n * (k - 1) - chi2)  # Iman-Davenport, Demšar eq. 2
  data.frame(case = cs, n = n, k = k, chi2 = chi2, df = unname(ft$parameter),
             p = ft$p.value, ff = ff,
             pff = pf(ff, k - 1, (k - 1) * (n - 1), lower.tail = FALSE),
             cd05 = qalpha(0.05, k) * sqrt(k * (k + 1) / (6 * n)),
             cd10 = qalpha(0.10, k) * sqrt(k * (k + 1) / (6 * n)))
}
put(do.call(rbind, lapply(names(cases), stat)), "friedman.csv")
put(do.call(rbind, lapply(names(cases), function(cs) {
  yc <- cases[[cs]][complete.cases(cases[[cs]]), , drop = FALSE]
  data.frame(case = cs, method = seq_len(ncol(yc)),
             avgrank = colMeans(t(apply(-yc, 1, rank))))
})), "ranks.csv")

## 2. Studentized range: qtukey and ptukey ----------------------------------
grid <- expand.grid(p = c(0.9, 0.95, 0.99), k = 2:20,
                    df = c(5, 10, 20, 60, 120, Inf))
grid$q <- mapply(function(p, k, df) qtukey(p, k, df), grid$p, grid$k, grid$df)
put(grid, "qtukey.csv")
# ptukey at the quantiles above, at fixed q in the body and tails, and
# with several ranges (nranges > 1).
pg <- rbind(
  data.frame(q = grid$q, k = grid$k, df = grid$df, nranges = 1),
  expand.grid(q = c(0.5, 1, 2, 3.5, 5, 8), k = c(2, 3, 5, 10, 20),
              df = c(5, 10, 20, 60, 120, Inf), nranges = 1),
  expand.grid(q = c(2, 3.5, 5), k = c(2, 4, 8), df = c(10, Inf),
              nranges = c(2, 3)))
pg$p <- mapply(function(q, k, df, r) ptukey(q, k, df, nranges = r),
               pg$q, pg$k, pg$df, pg$nranges)
put(pg, "ptukey.csv")

## 3. Demšar (2006) Table 5(a): q_alpha = qtukey(1 - alpha, k, Inf) / sqrt(2)
dq <- expand.grid(k = 2:10, alpha = c(0.05, 0.10))
dq$q <- mapply(qalpha, dq$alpha, dq$k)
put(dq[, c("alpha", "k", "q")], "demsar_q.csv")
