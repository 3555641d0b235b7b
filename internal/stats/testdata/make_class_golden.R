# make_class_golden.R: the AUC fixtures of internal/stats' classification
# scores (classify_test.go), computed by pROC.
#
#   cd internal/stats/testdata && Rscript make_class_golden.R
#
# Writes class/case<N>.csv (columns y, p0, ..., p<k-1>: the true class and
# the class probabilities of each row) and class/expected.csv (case, k,
# auc, hand_till): for two classes pROC's auc of p1 (ties counted 1/2);
# for more, auc is the mean over classes of pROC's auc of p<c> for class
# c against the rest, and hand_till pROC's multiclass.roc (Hand and Till,
# 2001). Needs r-cran-proc (Debian's pROC 1.18.0).
suppressPackageStartupMessages(library(pROC))
set.seed(20261128)

dirichlet <- function(n, k) {
  g <- matrix(rgamma(n * k, 1), n, k)
  g / rowSums(g)
}

cases <- list(
  list(n = 50, k = 2, digits = 1),   # many ties
  list(n = 200, k = 2, digits = 15),
  list(n = 60, k = 3, digits = 1),
  list(n = 120, k = 4, digits = 15),
  list(n = 9, k = 3, digits = 2)
)

expected <- data.frame()
for (i in seq_along(cases)) {
  cs <- cases[[i]]
  p <- dirichlet(cs$n, cs$k)
  y <- sapply(seq_len(cs$n), function(r) sample(0:(cs$k - 1), 1, prob = 0.3 + p[r, ]))
  y[seq_len(cs$k)] <- 0:(cs$k - 1)    # every class present
  p <- round(p, cs$digits)
  p[, cs$k] <- 1 - rowSums(p[, -cs$k, drop = FALSE])  # rows sum to 1 after rounding
  p <- pmax(p, 0)
  p <- p / rowSums(p)
  d <- data.frame(y = y, matrix(sprintf("%.17g", p), nrow(p)))  # every bit, so ties stay ties
  names(d) <- c("y", paste0("p", 0:(cs$k - 1)))
  write.csv(d, sprintf("class/case%d.csv", i), row.names = FALSE, quote = FALSE)
  auc1 <- function(c) {
    as.numeric(auc(roc(response = as.integer(y == c), predictor = p[, c + 1], levels = c(0, 1),
                       direction = "<", quiet = TRUE)))
  }
  if (cs$k == 2) {
    a <- auc1(1)
    ht <- a
  } else {
    a <- mean(sapply(0:(cs$k - 1), auc1))
    pm <- as.data.frame(p)
    names(pm) <- as.character(0:(cs$k - 1))
    ht <- as.numeric(multiclass.roc(response = factor(y, levels = 0:(cs$k - 1)), predictor = pm, quiet = TRUE)$auc)
  }
  expected <- rbind(expected, data.frame(case = i, k = cs$k, auc = sprintf("%.17g", a), hand_till = sprintf("%.17g", ht)))
}
write.csv(expected, "class/expected.csv", row.names = FALSE, quote = FALSE)
cat("pROC", as.character(packageVersion("pROC")), "\n")
