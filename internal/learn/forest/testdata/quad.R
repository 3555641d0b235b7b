# Reads one train/test pair written by the Go test binary's -dump flag
# (columns X1..X9, Y, M1..M3 with M = 1 where X1..X3 is missing) and
# returns the complete-data, mean-imputed (training means) and MIA as
# out-of-range duplication (X1..X3 with NA set below the training range,
# plus copies with NA set above it: d = 12) versions, and "grid": the
# complete data with every feature floored to a multiple of 1/2.
read_quad <- function(dir, seed) {
  tr <- read.csv(file.path(dir, sprintf("train_%d.csv", seed)))
  te <- read.csv(file.path(dir, sprintf("test_%d.csv", seed)))
  xs <- paste0("X", 1:9)
  complete <- list(train = tr[, c(xs, "Y")], test = te[, c(xs, "Y")])
  mtr <- complete$train
  mte <- complete$test
  for (j in 1:3) {
    x <- xs[j]
    mi <- tr[[paste0("M", j)]] == 1
    mu <- mean(tr[[x]][!mi])
    mtr[[x]][mi] <- mu
    mte[[x]][te[[paste0("M", j)]] == 1] <- mu
  }
  itr <- complete$train
  ite <- complete$test
  for (j in 1:3) {
    x <- xs[j]
    mi <- tr[[paste0("M", j)]] == 1
    mt <- te[[paste0("M", j)]] == 1
    lo <- min(tr[[x]][!mi]) - 1
    hi <- max(tr[[x]][!mi]) + 1
    hx <- paste0(x, "hi")
    itr[[hx]] <- ifelse(mi, hi, tr[[x]])
    ite[[hx]] <- ifelse(mt, hi, te[[x]])
    itr[[x]][mi] <- lo
    ite[[x]][mt] <- lo
  }
  grid <- function(d) {
    for (x in xs) d[[x]] <- floor(d[[x]] * 2) / 2
    d
  }
  list(complete = complete, mean = list(train = mtr, test = mte),
       miainf = list(train = itr, test = ite),
       grid = list(train = grid(complete$train), test = grid(complete$test)))
}
