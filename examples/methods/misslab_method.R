# misslab_method.R: write a misslab external method in R (base R only).
#
# A misslab worker runs an external method as one long-lived child process
# that speaks protocol 1 (docs/METHODS.md): it prints a ready line, then
# answers one JSON request per stdin line with one JSON reply per stdout
# line, exchanging data through raw little-endian float64 files in
# column-major order. This file does all of that; you write the method:
#
#   source("misslab_method.R")   # the worker runs methods in the methods file's directory
#   run_learner(function(x, y, xtest, seed, settings, threads) {
#     ...                        # x: n x d matrix with NA; y: n values
#     predictions                # one finite value per row of xtest
#   })
#
# or run_imputer(function(x, xtest, seed, settings, threads)
# list(x_imputed, xtest_imputed)). Either may instead be a pair, timed
# separately: run_learner(list(fit = function(x, y, seed, settings,
# threads) model, predict = function(model, xtest) predictions)) and
# run_imputer(list(fit = function(x, seed, settings, threads)
# list(model, x_imputed), transform = function(model, xtest) xtest_imputed)).
# A single function is timed as the fit.
#
# x and xtest are double matrices with NA (never NaN) for missing values;
# seed is an integer in [0, 2^31 - 1), the method's only randomness source
# (set.seed(seed) is called before every request); settings is a named
# list of numbers, possibly empty; threads (>= 1) is how many threads the
# method may use, and must never change its result.
#
# The helper checks what the worker will check and repairs what it safely
# can: predictions must be finite, one per test row; an imputer's observed
# entries are copied back from the input (returned bit-identical), NA left
# in a column without any observed training value are filled with 0, and
# any other non-finite value is an error. An R error becomes an
# "ok": false reply carrying its message on one line, with the call stack
# on stderr. While your code runs, R's output is sunk to stderr, so print()
# cannot corrupt the protocol on stdout. The process exits 0 at EOF.

MISSLAB_PROTOCOL <- 1L

# ---- JSON: a reader for the requests, a writer for the flat replies ----

json_parse <- function(text) {
  ch <- strsplit(enc2utf8(text), "", fixed = TRUE)[[1]]
  n <- length(ch); i <- 1L
  fail <- function(what) stop(sprintf("malformed JSON request: %s at character %d", what, i), call. = FALSE)
  skip <- function() while (i <= n && ch[i] %in% c(" ", "\t", "\n", "\r")) i <<- i + 1L
  peek <- function() { skip(); if (i > n) fail("unexpected end"); ch[i] }
  word <- function(w, v) {
    k <- nchar(w)
    if (i + k - 1L > n || paste(ch[i:(i + k - 1L)], collapse = "") != w) fail("unknown literal")
    i <<- i + k; v
  }
  hex4 <- function() {
    if (i + 4L > n) fail("short \\u escape")
    h <- paste(ch[(i + 1L):(i + 4L)], collapse = "")
    if (!grepl("^[0-9A-Fa-f]{4}$", h)) fail("bad \\u escape")
    i <<- i + 5L; strtoi(h, 16L)
  }
  string <- function() {
    i <<- i + 1L; parts <- character(0)
    repeat {
      if (i > n) fail("unterminated string")
      c <- ch[i]
      if (c == "\"") { i <<- i + 1L; return(paste(parts, collapse = "")) }
      if (c != "\\") { parts <- c(parts, c); i <<- i + 1L; next }
      if (i + 1L > n) fail("unterminated escape")
      e <- ch[i + 1L]; i <<- i + 1L
      if (e == "u") {
        code <- hex4()
        if (code >= 0xD800 && code <= 0xDBFF && i + 1L <= n && ch[i] == "\\" && ch[i + 1L] == "u") {
          i <<- i + 1L; lo <- hex4(); code <- 0x10000 + (code - 0xD800) * 0x400 + (lo - 0xDC00)
        }
        parts <- c(parts, intToUtf8(code)); next
      }
      m <- c("\"" = "\"", "\\" = "\\", "/" = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t")
      if (!e %in% names(m)) fail("bad escape")
      parts <- c(parts, m[[e]]); i <<- i + 1L
    }
  }
  number <- function() {
    j <- i
    while (i <= n && ch[i] %in% c("-", "+", ".", "e", "E", as.character(0:9))) i <<- i + 1L
    s <- paste(ch[j:max(j, i - 1L)], collapse = "")
    if (i == j || !grepl("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$", s)) fail("bad number")
    as.numeric(s)
  }
  members <- function(close, named) {
    i <<- i + 1L
    out <- if (named) structure(list(), names = character(0)) else list()
    if (peek() == close) { i <<- i + 1L; return(out) }
    repeat {
      if (named) {
        if (peek() != "\"") fail("expected a key")
        k <- string()
        if (peek() != ":") fail("expected ':'")
        i <<- i + 1L; out[k] <- list(value())
      } else out[length(out) + 1L] <- list(value())
      c <- peek(); i <<- i + 1L
      if (c == close) return(out)
      if (c != ",") fail("expected ',' or a closing bracket")
    }
  }
  value <- function() {
    switch(peek(), "{" = members("}", TRUE), "[" = members("]", FALSE), "\"" = string(),
           "t" = word("true", TRUE), "f" = word("false", FALSE), "n" = word("null", NULL), number())
  }
  v <- value(); skip()
  if (i <= n) fail("trailing characters")
  v
}

json_reply <- function(id, ok, error = NULL, times = list()) {
  esc <- function(s) {
    s <- gsub("[[:cntrl:]]+", " ", paste(s, collapse = " "))
    s <- gsub("\\", "\\\\", s, fixed = TRUE)
    paste0("\"", gsub("\"", "\\\"", s, fixed = TRUE), "\"")
  }
  f <- c(sprintf("\"id\":%.0f", id), sprintf("\"ok\":%s", if (ok) "true" else "false"))
  if (!is.null(error)) f <- c(f, paste0("\"error\":", esc(trimws(error))))
  for (k in names(times)) f <- c(f, sprintf("\"%s\":%.9g", k, times[[k]]))
  paste0("{", paste(f, collapse = ","), "}")
}

# ---- data files ---------------------------------------------------------

read_matrix <- function(path, rows, cols) {
  if (file.size(path) != 8 * rows * cols)
    stop(sprintf("%s holds %.0f bytes, want %.0f x %.0f doubles", path, file.size(path), rows, cols))
  m <- matrix(readBin(path, "double", n = rows * cols, size = 8, endian = "little"), rows, cols)
  m[is.na(m)] <- NA_real_ # every NaN payload becomes R's NA
  m
}

read_vector <- function(path, n) as.vector(read_matrix(path, n, 1))

write_doubles <- function(path, v) writeBin(as.double(v), path, size = 8, endian = "little")

# with_defaults returns defaults updated by settings; a name that is not in
# defaults is an error naming it and the known ones.
with_defaults <- function(settings, defaults) {
  unknown <- sort(setdiff(names(settings), names(defaults)))
  if (length(unknown))
    stop(sprintf("unknown setting%s %s (known: %s)", if (length(unknown) > 1) "s" else "",
                 paste(unknown, collapse = ", "), paste(sort(names(defaults)), collapse = ", ")))
  for (k in names(settings)) defaults[[k]] <- settings[[k]]
  defaults
}

# ---- serving ------------------------------------------------------------

quietly <- function(expr) { sink(stderr()); on.exit(sink()); expr }
now <- function() as.numeric(Sys.time())

learner_call <- function(fn, req, settings) {
  tr <- req$train; te <- req$test
  if (tr$cols != te$cols) stop(sprintf("train has %.0f columns, test %.0f", tr$cols, te$cols))
  x <- read_matrix(tr$x, tr$rows, tr$cols); y <- read_vector(tr$y, tr$rows)
  xt <- read_matrix(te$x, te$rows, te$cols)
  t0 <- now()
  if (is.function(fn)) {
    pred <- quietly(fn(x, y, xt, req$seed, settings, req$threads))
    times <- list(fit_seconds = now() - t0)
  } else {
    model <- quietly(fn$fit(x, y, req$seed, settings, req$threads)); t1 <- now()
    pred <- quietly(fn$predict(model, xt))
    times <- list(fit_seconds = t1 - t0, predict_seconds = now() - t1)
  }
  pred <- as.double(pred)
  if (length(pred) != te$rows)
    stop(sprintf("the learner returned %d predictions for %.0f test rows", length(pred), te$rows))
  if (any(!is.finite(pred))) stop(sprintf("the learner returned %d non-finite predictions", sum(!is.finite(pred))))
  write_doubles(req$out$pred, pred)
  times
}

fix_imputed <- function(name, out, orig, empty) {
  out <- as.matrix(out); storage.mode(out) <- "double"
  if (!identical(dim(out), dim(orig)))
    stop(sprintf("the imputer returned %s as %s, want %s", name, paste(dim(out), collapse = " x "),
                 paste(dim(orig), collapse = " x ")))
  obs <- !is.na(orig)
  out[obs] <- orig[obs]
  fill <- !is.finite(out) & matrix(empty, nrow(out), ncol(out), byrow = TRUE)
  out[fill] <- 0
  if (any(!is.finite(out))) stop(sprintf("the imputer left %d non-finite values in %s", sum(!is.finite(out)), name))
  out
}

imputer_call <- function(fn, req, settings) {
  tr <- req$train; te <- req$test
  if (tr$cols != te$cols) stop(sprintf("train has %.0f columns, test %.0f", tr$cols, te$cols))
  x <- read_matrix(tr$x, tr$rows, tr$cols); xt <- read_matrix(te$x, te$rows, te$cols)
  t0 <- now()
  if (is.function(fn)) {
    res <- quietly(fn(x, xt, req$seed, settings, req$threads))
    times <- list(fit_seconds = now() - t0)
  } else {
    fitted <- quietly(fn$fit(x, req$seed, settings, req$threads)); t1 <- now()
    res <- list(fitted[[2]], quietly(fn$transform(fitted[[1]], xt)))
    times <- list(fit_seconds = t1 - t0, predict_seconds = now() - t1)
  }
  empty <- colSums(!is.na(x)) == 0
  write_doubles(req$out$train, fix_imputed("x", res[[1]], x, empty))
  write_doubles(req$out$test, fix_imputed("xtest", res[[2]], xt, empty))
  times
}

serve_one <- function(line, op, fn) {
  id <- 0
  tryCatch(withCallingHandlers({
    req <- json_parse(line)
    if (!is.list(req) || is.null(names(req))) stop("request is not a JSON object")
    if (is.numeric(req$id)) id <- req$id
    if (!identical(req$protocol, 1)) stop(sprintf("protocol %s is not supported (want 1)", format(req$protocol)))
    if (!identical(req$op, op)) stop(sprintf("op %s is not supported by this method (want %s)", format(req$op), op))
    settings <- if (is.null(req$settings)) list() else req$settings
    if (is.null(req$threads)) req$threads <- 1
    set.seed(req$seed)
    times <- if (op == "fit_predict") learner_call(fn, req, settings) else imputer_call(fn, req, settings)
    json_reply(id, TRUE, times = times)
  }, error = function(e) {
    calls <- vapply(sys.calls(), function(cl) paste(deparse(cl, nlines = 1L), collapse = ""), "")
    cat("Error:", conditionMessage(e), "\nCall stack:\n", paste0("  ", calls, "\n"), file = stderr())
  }), error = function(e) json_reply(id, FALSE, error = conditionMessage(e)))
}

serve <- function(op, fn) {
  cat(sprintf("{\"ready\":true,\"protocol\":%d}\n", MISSLAB_PROTOCOL)); flush(stdout())
  con <- file("stdin", open = "r", encoding = "UTF-8")
  repeat {
    line <- readLines(con, n = 1L, warn = FALSE)
    if (length(line) == 0L) break
    if (!nzchar(trimws(line))) next
    cat(serve_one(line, op, fn), "\n", sep = ""); flush(stdout())
  }
  close(con)
  quit(save = "no", status = 0)
}

check_fn <- function(fn, parts, what) {
  if (is.function(fn)) return(invisible())
  if (!is.list(fn) || !all(parts %in% names(fn)) || !all(vapply(fn[parts], is.function, TRUE)))
    stop(sprintf("%s: want a function or list(%s) of functions", what, paste(parts, collapse = ", ")))
}

# run_learner serves a learner until EOF: fn is function(x, y, xtest, seed,
# settings, threads) returning the predictions, or list(fit, predict).
run_learner <- function(fn) { check_fn(fn, c("fit", "predict"), "run_learner"); serve("fit_predict", fn) }

# run_imputer serves an imputer until EOF: fn is function(x, xtest, seed,
# settings, threads) returning list(x_imputed, xtest_imputed), or
# list(fit, transform).
run_imputer <- function(fn) { check_fn(fn, c("fit", "transform"), "run_imputer"); serve("impute", fn) }
