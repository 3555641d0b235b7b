# misslab_classify.R: a misslab learner that classifies, in R (base R only).
#
# The companion of misslab_method.R, which it sources (list both in the
# method's files). A learner whose methods file declares classification
# (tasks = ["classification"], or ["regression", "classification"]) gets,
# on a classification task, requests with op "fit_predict_proba": the
# training targets are class codes 0..k-1 and "classes" is k. This file
# serves them; you write the classifier:
#
#   source("misslab_classify.R")   # also sources misslab_method.R
#   run_classifier(function(x, y, k, xtest, seed, settings, threads) {
#     ...                          # y: n integers in 0..k-1
#     p                            # nrow(xtest) x k matrix: column j + 1
#   })                             # holds the probabilities of class j
#
# x, xtest, seed, settings and threads are as for run_learner; y is an
# integer vector of class codes (factor(y, levels = 0:(k - 1)) makes it a
# factor with every class, seen in training or not) and k >= 2 is the
# task's number of classes. list(fit = function(x, y, k, seed, settings,
# threads) model, predict_proba = function(model, xtest) p) times fitting
# and prediction separately.
#
# A method that also regresses (tasks = ["regression", "classification"])
# passes its learner too: run_classifier(classify, regressor = learner),
# with learner as run_learner takes it; one process serves both ops.
#
# The helper checks what the worker will check: p must be nrow(xtest) x k,
# every value finite and in [0, 1], every row summing to 1 within 1e-6
# (else an error reply naming the first bad row); it does not renormalise.

if (!exists("learner_call", mode = "function")) source("misslab_method.R")

MISSLAB_OP_CLASSIFY <- "fit_predict_proba"
MISSLAB_PROBA_SUM_TOL <- 1e-6

# check_proba returns p as an m x k double matrix of class probabilities,
# or stops saying what is wrong with it.
check_proba <- function(p, m, k) {
  p <- as.matrix(p); storage.mode(p) <- "double"
  if (!identical(dim(p), as.integer(c(m, k))))
    stop(sprintf("the classifier returned probabilities of %s for %.0f test rows of %.0f classes",
                 paste(dim(p), collapse = " x "), m, k))
  bad <- which(!(is.finite(p) & p >= 0 & p <= 1), arr.ind = TRUE)
  if (nrow(bad)) {
    b <- bad[order(bad[, 1], bad[, 2]), , drop = FALSE][1, ]
    stop(sprintf("probability of class %d on row %d is %s, want a number in [0, 1]",
                 b[2] - 1L, b[1], format(p[b[1], b[2]])))
  }
  off <- which(abs(rowSums(p) - 1) > MISSLAB_PROBA_SUM_TOL)
  if (length(off)) stop(sprintf("row %d's probabilities sum to %.17g, want 1", off[1], sum(p[off[1], ])))
  p
}

classifier_call <- function(fn, req, settings) {
  tr <- req$train; te <- req$test; k <- req$classes
  if (tr$cols != te$cols) stop(sprintf("train has %.0f columns, test %.0f", tr$cols, te$cols))
  if (!is.numeric(k) || length(k) != 1 || k != round(k) || k < 2) stop("classes: want an integer >= 2")
  x <- read_matrix(tr$x, tr$rows, tr$cols); y <- read_vector(tr$y, tr$rows)
  bad <- which(is.na(y) | y != round(y) | y < 0 | y >= k)
  if (length(bad)) stop(sprintf("target %d is %s, not a class code in 0..%.0f", bad[1], format(y[bad[1]]), k - 1))
  y <- as.integer(y)
  xt <- read_matrix(te$x, te$rows, te$cols)
  t0 <- now()
  if (is.function(fn)) {
    p <- quietly(fn(x, y, k, xt, req$seed, settings, req$threads))
    times <- list(fit_seconds = now() - t0)
  } else {
    model <- quietly(fn$fit(x, y, k, req$seed, settings, req$threads)); t1 <- now()
    p <- quietly(fn$predict_proba(model, xt))
    times <- list(fit_seconds = t1 - t0, predict_seconds = now() - t1)
  }
  write_doubles(req$out$proba, check_proba(p, te$rows, k)) # as.double is column-major
  times
}

# serve_ops answers each request line with handlers[[op]](req, settings).
serve_ops <- function(handlers) {
  cat(sprintf("{\"ready\":true,\"protocol\":%d}\n", MISSLAB_PROTOCOL)); flush(stdout())
  con <- file("stdin", open = "r", encoding = "UTF-8")
  repeat {
    line <- readLines(con, n = 1L, warn = FALSE)
    if (length(line) == 0L) break
    if (!nzchar(trimws(line))) next
    cat(serve_line(line, handlers), "\n", sep = ""); flush(stdout())
  }
  close(con)
  quit(save = "no", status = 0)
}

serve_line <- function(line, handlers) {
  id <- 0
  tryCatch(withCallingHandlers({
    req <- json_parse(line)
    if (!is.list(req) || is.null(names(req))) stop("request is not a JSON object")
    if (is.numeric(req$id)) id <- req$id
    if (!identical(req$protocol, 1)) stop(sprintf("protocol %s is not supported (want 1)", format(req$protocol)))
    if (!is.character(req$op) || !req$op %in% names(handlers))
      stop(sprintf("op %s is not supported by this method (want %s)", format(req$op),
                   paste(sort(names(handlers)), collapse = " or ")))
    settings <- if (is.null(req$settings)) list() else req$settings
    if (is.null(req$threads)) req$threads <- 1
    set.seed(req$seed)
    json_reply(id, TRUE, times = handlers[[req$op]](req, settings))
  }, error = function(e) {
    calls <- vapply(sys.calls(), function(cl) paste(deparse(cl, nlines = 1L), collapse = ""), "")
    cat("Error:", conditionMessage(e), "\nCall stack:\n", paste0("  ", calls, "\n"), file = stderr())
  }), error = function(e) json_reply(id, FALSE, error = conditionMessage(e)))
}

# run_classifier serves a classifier until EOF: fn is function(x, y, k,
# xtest, seed, settings, threads) returning the probabilities, or
# list(fit, predict_proba). With regressor (a learner as run_learner
# takes it) the process also answers regression requests.
run_classifier <- function(fn, regressor = NULL) {
  check_fn(fn, c("fit", "predict_proba"), "run_classifier")
  handlers <- list()
  handlers[[MISSLAB_OP_CLASSIFY]] <- function(req, settings) classifier_call(fn, req, settings)
  if (!is.null(regressor)) {
    check_fn(regressor, c("fit", "predict"), "run_classifier: regressor")
    handlers[["fit_predict"]] <- function(req, settings) learner_call(regressor, req, settings)
  }
  serve_ops(handlers)
}
