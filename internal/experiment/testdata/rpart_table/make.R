#!/usr/bin/env Rscript
# Golden predictions of rpart on a real table (examples/data/airquality.csv)
# under repeated K-fold cross-validation, for the pipelines tree/mean and
# tree/surrogate under two tree settings. From the repository root:
#   Rscript internal/experiment/testdata/rpart_table/make.R              # reads folds.csv
#   Rscript internal/experiment/testdata/rpart_table/make.R --new-folds  # first writes a
#                                       # provisional folds.csv (2 x 5, set.seed(1))
# Inputs: folds.csv in this directory, columns repetition,fold,row (any
# order; other columns are ignored): the 1-based data row of the CSV file
# (line number - 1) listed under (repetition r, fold k) is in the TEST set
# of fold k of repetition r, and the training set is every other row listed
# under repetition r. Rows whose target is NA must not be listed.
# Outputs, columns pipeline,repetition,fold,row,prediction (%.17g), one
# line per pipeline and listed row, sorted by those keys:
#   predictions.csv       misslab's default tree settings;
#   predictions_deep.csv  tree settings minbucket 3, minsplit 10, cp 0.005.
# With the defaults (minbucket 30) the ~93 training rows of a fold give
# trees of two or three leaves that split on Temp only, so tree/mean and
# tree/surrogate predict the same (so they do under the preset
# "rpart_defaults"); the deep trees split on Solar.R, whose NA the two
# pipelines then route differently.
#
# Features: every column but the target Ozone and Day, in file order
# (Solar.R, Wind, Temp, Month); Month is a plain numeric column here.
#
# The controls mirror internal/learn/tree/testdata/make_golden.R, method
# "anova", no cross-validation (xval = 0), surrogates as rpart's defaults
# (maxsurrogate 5, usesurrogate 2, surrogatestyle 0):
#   defaults: its "paper" controls, which are misslab's tree defaults
#     (minbucket 30, minsplit 0 = 3 x minbucket = 90, cp 0, maxdepth 30,
#     maxsurrogate 5): rpart.control(minsplit = 90, minbucket = 30, cp = 0);
#   deep: its "cp" controls, misslab's tree settings minbucket 3,
#     minsplit 10, cp 0.005: rpart.control(minsplit = 10, minbucket = 3,
#     cp = 0.005).
# tree/surrogate: rpart fitted on the training rows with their NA and
#   predicting the test rows with its own surrogate splits (usesurrogate 2).
# tree/mean: each feature's NA replaced by the mean of that feature's
#   observed TRAINING values (test rows too), summed left to right in
#   ascending row order and divided by the count, as internal/learn/impute
#   does (not R's mean(), which refines the sum in long double); a column
#   with no observed training value gets 0, as impute.Mean does. rpart then
#   sees no NA, so its surrogate controls do not matter (misslab's tree
#   runs with Strategy NoMissing there).
suppressPackageStartupMessages(library(rpart))

target <- "Ozone"
drop <- "Day"
controls <- list(
  "predictions.csv" = rpart.control(minsplit = 90, minbucket = 30, cp = 0, xval = 0,
                                    maxdepth = 30, maxsurrogate = 5, usesurrogate = 2),
  "predictions_deep.csv" = rpart.control(minsplit = 10, minbucket = 3, cp = 0.005, xval = 0,
                                         maxdepth = 30, maxsurrogate = 5, usesurrogate = 2))

script_dir <- function() {
  arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(arg) != 1) stop("run this script with Rscript")
  dirname(normalizePath(sub("^--file=", "", arg)))
}

fmt <- function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))

# new_folds writes a provisional folds file: for each repetition, the
# rows with an observed target dealt at random into k folds of sizes
# differing by at most one.
new_folds <- function(data, path, repetitions = 2, k = 5) {
  set.seed(1)
  rows <- which(!is.na(data[[target]]))
  folds <- do.call(rbind, lapply(seq_len(repetitions), function(r)
    data.frame(repetition = r, fold = sample(rep_len(seq_len(k), length(rows))), row = rows)))
  folds <- folds[order(folds$repetition, folds$fold, folds$row), ]
  write.csv(folds, path, row.names = FALSE, quote = FALSE)
}

# read_folds reads and checks a folds file against the data.
read_folds <- function(path, data) {
  f <- read.csv(path, colClasses = "character")
  need <- c("repetition", "fold", "row")
  if (!all(need %in% names(f))) stop(path, ": needs columns ", paste(need, collapse = ","))
  f <- f[need]
  for (j in need) {
    if (!all(grepl("^[0-9]+$", f[[j]]))) stop(path, ": column ", j, " holds a value that is not a whole number")
    f[[j]] <- as.integer(f[[j]])
  }
  if (nrow(f) == 0) stop(path, ": no rows")
  if (any(f$row < 1 | f$row > nrow(data))) stop(path, ": a row is outside 1..", nrow(data))
  if (anyNA(data[[target]][f$row])) stop(path, ": lists a row whose target is NA")
  if (anyDuplicated(f[c("repetition", "row")])) stop(path, ": a row is listed twice in one repetition")
  for (r in unique(f$repetition)) {
    if (length(unique(f$fold[f$repetition == r])) < 2)
      stop(path, ": repetition ", r, " has fewer than two folds, so a fold would have no training rows")
  }
  f[order(f$repetition, f$fold, f$row), ]
}

# impute_mean fills each column's NA, in train and test, with the mean of
# its observed training values (0 when there is none).
impute_mean <- function(train, test) {
  for (j in names(train)) {
    obs <- train[[j]][!is.na(train[[j]])]
    m <- if (length(obs)) Reduce(`+`, as.double(obs), 0) / length(obs) else 0
    train[[j]][is.na(train[[j]])] <- m
    test[[j]][is.na(test[[j]])] <- m
  }
  list(train = train, test = test)
}

predict_fold <- function(X, y, train, test, control) {
  fit <- function(Xtr, Xte) {
    model <- rpart(y ~ ., data = cbind(y = y[train], Xtr), method = "anova", control = control)
    unname(predict(model, newdata = Xte))
  }
  imp <- impute_mean(X[train, , drop = FALSE], X[test, , drop = FALSE])
  list(mean = fit(imp$train, imp$test),
       surrogate = fit(X[train, , drop = FALSE], X[test, , drop = FALSE]))
}

# cross_validate fits and predicts every (repetition, fold) of folds.
cross_validate <- function(X, y, folds, control) {
  out <- list()
  for (r in sort(unique(folds$repetition))) {
    fr <- folds[folds$repetition == r, ]
    for (k in sort(unique(fr$fold))) {
      test <- fr$row[fr$fold == k]
      train <- sort(fr$row[fr$fold != k])
      p <- predict_fold(X, y, train, test, control)
      for (s in names(p)) out[[length(out) + 1]] <- data.frame(
        pipeline = paste0("tree/", s), repetition = r, fold = k, row = test, prediction = fmt(p[[s]]))
    }
  }
  out <- do.call(rbind, out)
  out[order(out$pipeline, out$repetition, out$fold, out$row), ]
}

main <- function(args) {
  if (length(args) > 1 || (length(args) == 1 && args != "--new-folds"))
    stop("usage: Rscript make.R [--new-folds]")
  here <- script_dir()
  data <- read.csv(file.path(here, "..", "..", "..", "..", "examples", "data", "airquality.csv"),
                   na.strings = "NA")
  folds_path <- file.path(here, "folds.csv")
  if (length(args) == 1) new_folds(data, folds_path)
  folds <- read_folds(folds_path, data)
  features <- setdiff(names(data), c(target, drop))
  X <- data[features]
  X[] <- lapply(X, as.double)
  y <- as.double(data[[target]])
  cat(R.version.string, "\n", "rpart ", as.character(packageVersion("rpart")), "\n",
      "features: ", paste(features, collapse = ", "), "\n", sep = "")
  for (file in names(controls)) {
    out <- cross_validate(X, y, folds, controls[[file]])
    write.csv(out, file.path(here, file), row.names = FALSE, quote = FALSE)
    same <- with(out, sum(prediction[pipeline == "tree/mean"] == prediction[pipeline == "tree/surrogate"]))
    cat(file, ": ", nrow(out), " predictions over ", nrow(unique(folds[c("repetition", "fold")])),
        " folds; tree/mean and tree/surrogate agree on ", same, " of ", nrow(out) / 2, " rows\n", sep = "")
  }
}

main(commandArgs(TRUE))
