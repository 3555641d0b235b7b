#!/usr/bin/env Rscript
# Golden fixtures for internal/stats, produced with base R only (stats).
# Run from this directory:  Rscript make_golden.R
# The Go tests read the CSV files written here and never run R.
# Numbers are written with 17 significant digits so that every double
# round-trips exactly; NA marks a missing value.

options(warn = 2)
f17 <- function(x) ifelse(is.na(x), "NA", sprintf("%.17g", x))
put <- function(df, file) {
  for (j in seq_along(df)) if (is.double(df[[j]])) df[[j]] <- f17(df[[j]])
  write.csv(df, file, row.names = FALSE, quote = FALSE)
}
writeLines(paste(R.version.string), "R_VERSION")

## 1. Vectors: type-7 quantiles, mean/sd/se, fivenum, boxplot.stats ------
set.seed(20240601)
vecs <- list(
  small = c(3, 1, 4, 1, 5, 9, 2, 6),
  ties  = c(1, 1, 1, 2, 2, 2, 2, 3),
  one   = 0.7,
  two   = c(-1, 2.5),
  three = c(0.1, 0.2, 0.30000000000000004),
  r2    = rnorm(37, 0.7, 0.05),
  out   = c(rnorm(20), 8, -6, 12),
  big   = runif(1001),
  neg   = -rexp(14) * 1e-3
)
put(do.call(rbind, lapply(names(vecs), function(k)
  data.frame(case = k, i = seq_along(vecs[[k]]), value = vecs[[k]]))),
  "vectors.csv")

probs <- c(0, 0.01, 0.1, 0.25, 1/3, 0.5, 2/3, 0.75, 0.9, 0.99, 1)
put(do.call(rbind, lapply(names(vecs), function(k)
  data.frame(case = k, p = probs,
             value = unname(quantile(vecs[[k]], probs, type = 7))))),
  "quantiles.csv")

# type-7 box with R's whisker rule applied to type-7 hinges
box7 <- function(x, coef = 1.5) {
  q <- unname(quantile(x, c(.25, .5, .75), type = 7))
  iqr <- q[3] - q[1]
  out <- x < q[1] - coef * iqr | x > q[3] + coef * iqr
  c(min(x[!out]), q, max(x[!out]), sum(out))
}
describe <- function(k) {
  x <- vecs[[k]]
  n <- length(x)
  q <- unname(quantile(x, c(.25, .5, .75), type = 7))
  bs <- boxplot.stats(x)
  b7 <- box7(x)
  v <- c(n = n, mean = mean(x), sd = sd(x), se = sd(x) / sqrt(n),
         min = min(x), q1 = q[1], median = q[2], q3 = q[3], max = max(x),
         iqr = q[3] - q[1],
         setNames(fivenum(x), paste0("fivenum", 1:5)),
         setNames(bs$stats, paste0("tukey", 1:5)), tukey_nout = length(bs$out),
         setNames(b7[1:5], paste0("type7_", 1:5)), type7_nout = b7[6])
  data.frame(case = k, stat = names(v), value = unname(v))
}
put(do.call(rbind, lapply(names(vecs), describe)), "describe.csv")

## 2. Paired t-tests ------------------------------------------------------
pairs <- list(
  n2       = list(x = c(0.71, 0.69), y = c(0.70, 0.66)),
  n5       = list(x = c(0.61, 0.72, 0.55, 0.80, 0.67), y = c(0.60, 0.70, 0.58, 0.77, 0.61)),
  null30   = list(x = rnorm(30, 0.7, 0.05), y = rnorm(30, 0.7, 0.05)),
  neg50    = local({ b <- rnorm(50, 0.7, 0.05); list(x = b + rnorm(50, -0.004, 0.01), y = b) }),
  tiny_p   = local({ b <- rnorm(40, 0.7, 0.05); list(x = b + rnorm(40, 0.05, 0.004), y = b) }),
  df199    = list(x = rnorm(200, 0.70, 0.03), y = rnorm(200, 0.695, 0.03)),
  df999    = local({ b <- rnorm(1000, 0.7, 0.05); list(x = b + rnorm(1000, 0.0007, 0.01), y = b) }),
  huge_t   = local({ b <- rnorm(12); list(x = b + 1 + rnorm(12, 0, 1e-3), y = b) })
)
put(do.call(rbind, lapply(names(pairs), function(k)
  data.frame(case = k, i = seq_along(pairs[[k]]$x), x = pairs[[k]]$x, y = pairs[[k]]$y))),
  "pairs.csv")
confs <- c(0.95, 0.9, 0.99)
put(do.call(rbind, lapply(names(pairs), function(k) do.call(rbind, lapply(confs, function(cl) {
  tt <- t.test(pairs[[k]]$x, pairs[[k]]$y, paired = TRUE, conf.level = cl)
  data.frame(case = k, conf = cl, n = length(pairs[[k]]$x), df = unname(tt$parameter),
             mean_diff = unname(tt$estimate), se = tt$stderr, t = unname(tt$statistic),
             p = tt$p.value, ci_lo = tt$conf.int[1], ci_hi = tt$conf.int[2])
})))), "ttest.csv")

# Student t tail probabilities and quantiles on a grid
grid <- expand.grid(t = c(0, 0.1, 1, 1.96, 2.5, 4, 8, 15, 40), df = c(1, 2, 3, 5, 10, 29, 100, 999, 5000))
put(data.frame(t = grid$t, df = grid$df, p = 2 * pt(-abs(grid$t), grid$df)), "pt.csv")
qg <- expand.grid(p = c(0.5, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9995, 1 - 1e-8, 0.025),
                  df = c(1, 2, 3, 5, 10, 29, 100, 999, 5000))
put(data.frame(p = qg$p, df = qg$df, q = qt(qg$p, qg$df)), "qt.csv")

## 3. Holm --------------------------------------------------------------
holm_sets <- list(
  a = c(0.01, 0.04, 0.03, 0.005),
  ties = c(0.02, 0.02, 0.5, 0.001, 0.02),
  with_na = c(0.01, NA, 0.2, 0.03, NA),
  big = c(0.3, 0.9, 0.6),
  tiny = c(1e-300, 3e-12, 0.049, 0.0125)
)
put(do.call(rbind, lapply(names(holm_sets), function(k)
  data.frame(set = k, i = seq_along(holm_sets[[k]]), p = holm_sets[[k]],
             holm = p.adjust(holm_sets[[k]], method = "holm")))), "holm.csv")

## 4. Wilson intervals (prop.test without continuity correction) ---------
wg <- data.frame(x = c(0, 1, 7, 25, 50, 499, 500, 3), n = c(10, 10, 20, 50, 50, 500, 500, 3))
wl <- do.call(rbind, lapply(c(0.95, 0.9), function(cl) do.call(rbind, lapply(seq_len(nrow(wg)), function(i) {
  ci <- suppressWarnings(prop.test(wg$x[i], wg$n[i], correct = FALSE, conf.level = cl))$conf.int
  data.frame(x = wg$x[i], n = wg$n[i], conf = cl, lo = ci[1], hi = ci[2])
}))))
put(wl, "wilson.csv")

## 5. A small fixed result set: summaries, relative R², pairwise tests --
pipes <- c("tree/mean", "tree/mean+mask", "tree/mia", "tree/surrogate", "forest/mean", "forest/mia")
effect <- c(0, 0.002, 0.01, -0.02, 0.08, 0.081)
recs <- do.call(rbind, lapply(c("s-mcar", "s-mnar"), function(s) do.call(rbind, lapply(1:15, function(r) {
  shared <- rnorm(1, 0, 0.03)
  r2 <- 0.6 + (s == "s-mnar") * (-0.05) + effect + shared + rnorm(length(pipes), 0, 0.01)
  data.frame(scenario = s, rep = r, pipeline = pipes, failed = FALSE, r2 = r2,
             mse = (1 - r2) * 10, fit_seconds = rexp(length(pipes), 20),
             predict_seconds = rexp(length(pipes), 200))
}))))
fail <- recs$scenario == "s-mcar" & recs$rep == 4 & recs$pipeline == "tree/mia"
recs$failed[fail] <- TRUE
recs[fail, c("r2", "mse", "fit_seconds", "predict_seconds")] <- NA
recs <- recs[!(recs$scenario == "s-mnar" & recs$rep == 9 & recs$pipeline == "forest/mean"), ]  # absent
recs$failed <- ifelse(recs$failed, "TRUE", "FALSE")
put(recs, "records.csv")

ok <- recs[recs$failed == "FALSE", ]
ok$family <- sub("/.*", "", ok$pipeline)
ok$family_mean <- ave(ok$r2, ok$scenario, ok$rep, ok$family, FUN = mean)
ok$family_size <- ave(ok$r2, ok$scenario, ok$rep, ok$family, FUN = length)
ok$rel <- ok$r2 - ok$family_mean
ok <- ok[order(ok$scenario, ok$pipeline, ok$rep), ]
put(ok[, c("scenario", "rep", "pipeline", "family", "rel", "family_mean", "family_size")], "relative.csv")

summ <- do.call(rbind, lapply(split(ok, list(ok$scenario, ok$pipeline), drop = TRUE), function(d) {
  do.call(rbind, lapply(c("r2", "rel", "mse", "fit_seconds", "predict_seconds"), function(m) {
    x <- d[[m]]; q <- unname(quantile(x, c(.25, .5, .75), type = 7))
    data.frame(scenario = d$scenario[1], pipeline = d$pipeline[1], metric = m, n = length(x),
               mean = mean(x), sd = sd(x), se = sd(x) / sqrt(length(x)),
               min = min(x), q1 = q[1], median = q[2], q3 = q[3], max = max(x))
  }))
}))
put(summ, "summary.csv")

pw <- do.call(rbind, lapply(split(ok, list(ok$scenario, ok$family), drop = TRUE), function(d) {
  ps <- sort(unique(d$pipeline))
  res <- do.call(rbind, combn(ps, 2, simplify = FALSE, FUN = function(ab) {
    a <- d[d$pipeline == ab[1], c("rep", "r2")]; b <- d[d$pipeline == ab[2], c("rep", "r2")]
    m <- merge(a, b, by = "rep")
    tt <- t.test(m$r2.x, m$r2.y, paired = TRUE)
    data.frame(scenario = d$scenario[1], family = d$family[1], a = ab[1], b = ab[2],
               n = nrow(m), df = unname(tt$parameter), mean_diff = unname(tt$estimate),
               se = tt$stderr, t = unname(tt$statistic), p = tt$p.value,
               ci_lo = tt$conf.int[1], ci_hi = tt$conf.int[2])
  }))
  res$p_holm <- p.adjust(res$p, method = "holm")
  res
}))
put(pw, "pairwise.csv")
