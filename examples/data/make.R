#!/usr/bin/env Rscript
# Writes the real tables shipped with misslab (examples/data/*.csv) from R
# packages Debian ships, and PROVENANCE.md describing them. From the
# repository root:
#   bash scripts/install-r.sh && Rscript examples/data/make.R
#   Rscript examples/data/make.R --check   # regenerate in a temporary
#                                          # directory; exit 1 on any
#                                          # difference with the files here
# The CSV dialect: a header line, comma separators, "\n" line ends, NA
# for a missing cell, no row names; integer columns as integers; other
# numbers in the shortest of %.15g, %.16g, %.17g that reads back to the
# same double (exact round trip); factor columns as their labels, quoted
# (with "" for ") only when a label holds a comma, a quote, a line break,
# surrounding blanks, or is the text NA. The source tables are written
# unchanged: the "drop" columns are kept in the files, and a benchmark
# leaves them out (sim.TableRef's Drop).
suppressPackageStartupMessages({ library(mlbench); library(mice); library(VIM) })

# ---- the tables -------------------------------------------------------
tables <- list(
  list(file = "airquality.csv", pkg = "datasets", name = "airquality",
       target = "Ozone", categorical = "Month", drop = "Day",
       about = paste("Daily air quality in New York, May to September 1973: mean ozone (ppb) from 13:00 to",
                     "15:00 at Roosevelt Island from solar radiation, wind, temperature and month; Day (day",
                     "of month) is an index.")),
  list(file = "ozone.csv", pkg = "mlbench", name = "Ozone",
       target = "V4", categorical = c("V1", "V3"), drop = "V2",
       about = paste("Daily Los Angeles basin ozone in 1976 (Breiman & Friedman 1985): V4 the daily maximum",
                     "one-hour-average ozone, V1 month, V3 weekday, V2 day of month (an index), V5-V13",
                     "pressure height, wind, humidity, temperatures, inversion base height and temperature,",
                     "pressure gradient and visibility.")),
  list(file = "pima.csv", pkg = "mlbench", name = "PimaIndiansDiabetes2",
       target = "mass", categorical = "diabetes", drop = character(0),
       about = paste("Pima Indian women aged 21 or more, with the impossible zeros of the original coded NA;",
                     "target the body mass index, whose best predictor (triceps skinfold) is 30% NA.")),
  list(file = "boys.csv", pkg = "mice", name = "boys",
       target = "hgt", categorical = c("gen", "phb", "reg"), drop = "bmi",
       about = paste("Growth of 748 Dutch boys (a 10% sample of the data behind the Dutch growth references",
                     "1997): height (cm) from age,",
                     "weight, head circumference, puberty stages and region; bmi is dropped because it is",
                     "wgt/(hgt/100)^2 rounded and would give the target away.")),
  list(file = "sleep.csv", pkg = "VIM", name = "sleep",
       target = "Dream", categorical = character(0), drop = "Sleep",
       about = paste("Sleep of 62 mammal species (Allison & Cicchetti 1976): dreaming sleep (h/day) from",
                     "body and brain weight, non-dreaming sleep, life span, gestation and the 1-5 predation,",
                     "exposure and danger indices (kept numeric); Sleep is dropped because Sleep = NonD + Dream.")),
  list(file = "tao.csv", pkg = "VIM", name = "tao",
       target = "Sea.Surface.Temp", categorical = "Year", drop = character(0),
       about = paste("Tropical Atmosphere Ocean project, five buoys in the equatorial Pacific, 1993 and 1997",
                     "(El Nino): sea surface temperature (degrees C) from air temperature, humidity, winds",
                     "and buoy position."))
)

load_table <- function(pkg, name) {
  env <- new.env()
  utils::data(list = name, package = pkg, envir = env)
  as.data.frame(env[[name]])
}

# ---- the CSV dialect --------------------------------------------------
fmt_double <- function(x) {
  out <- rep("NA", length(x))
  todo <- !is.na(x)
  for (digits in 15:17) {
    s <- sprintf(paste0("%.", digits, "g"), x[todo])
    ok <- as.numeric(s) == x[todo] | digits == 17
    out[which(todo)[ok]] <- s[ok]
    todo[which(todo)[ok]] <- FALSE
  }
  out
}

quote_text <- function(s) {
  need <- !is.na(s) & (grepl("[\",\r\n]|^[[:space:]]|[[:space:]]$", s) | s == "NA")
  s[need] <- paste0("\"", gsub("\"", "\"\"", s[need], fixed = TRUE), "\"")
  s[is.na(s)] <- "NA"
  s
}

fmt_column <- function(col) {
  if (is.factor(col)) return(quote_text(as.character(col)))
  if (is.integer(col)) return(ifelse(is.na(col), "NA", as.character(col)))
  if (is.double(col)) return(fmt_double(col))
  stop("unsupported column type ", class(col)[1])
}

write_table <- function(df, path) {
  cells <- lapply(df, fmt_column)
  lines <- c(paste(quote_text(names(df)), collapse = ","), do.call(paste, c(cells, sep = ",")))
  con <- file(path, open = "wb")
  on.exit(close(con))
  writeLines(lines, con, sep = "\n", useBytes = TRUE)
}

# check_round_trip fails unless read.csv gives back every value of df.
check_round_trip <- function(df, path) {
  back <- utils::read.csv(path, na.strings = "NA", check.names = FALSE, stringsAsFactors = FALSE)
  stopifnot(identical(names(back), names(df)), nrow(back) == nrow(df))
  for (j in names(df)) {
    a <- df[[j]]; b <- back[[j]]
    same <- if (is.factor(a)) identical(as.character(a), as.character(b)) else
      identical(is.na(a), is.na(b)) && all(as.double(a[!is.na(a)]) == as.double(b[!is.na(b)]))
    if (!same) stop(path, ": column ", j, " does not read back exactly")
  }
}

# ---- provenance -------------------------------------------------------
licence <- function(pkg) {
  lic <- utils::packageDescription(pkg)$License
  if (startsWith(lic, "Part of R")) lic <- paste0(lic, " (R: GPL-2 | GPL-3)")
  lic
}

describe <- function(t, df) {
  stopifnot(t$target %in% names(df), all(c(t$categorical, t$drop) %in% names(df)))
  list2 <- function(v) if (length(v)) paste(v, collapse = ", ") else "-"
  pct <- function(v) sprintf("%.1f%%", 100 * v)
  c(file = t$file, source = paste0(t$pkg, "::", t$name),
    version = as.character(utils::packageVersion(t$pkg)), licence = licence(t$pkg),
    rows = nrow(df), columns = ncol(df), na = pct(mean(is.na(df))),
    target_na = pct(mean(is.na(df[[t$target]]))), target = t$target,
    categorical = list2(t$categorical), drop = list2(t$drop), about = t$about)
}

provenance <- function(rows) {
  head <- c("file", "source", "version", "licence", "rows", "columns", "NA (all cells)",
            "NA (target)", "target", "categorical", "drop (kept in file)", "what the data are")
  md_row <- function(v) paste0("| ", paste(gsub("|", "\\|", v, fixed = TRUE), collapse = " | "), " |")
  c("# Provenance of the example tables",
    "",
    "Generated by `Rscript examples/data/make.R` (do not edit by hand; `--check` verifies it).",
    paste0("Every table is the named R data set written unchanged (", R.version.string, ")."),
    "\"NA (all cells)\" is the share of missing cells over the whole file, \"NA (target)\" that of the",
    "target column; rows with a missing target cannot be scored and are left out of every split.",
    "\"categorical\" and \"drop\" are the lists to give a table scenario (sim.TableRef's Categorical and",
    "Drop); every other column but the target is a numeric feature. Licences are those of the source",
    "packages' DESCRIPTION files.",
    "",
    md_row(head), md_row(rep("---", length(head))),
    vapply(rows, md_row, ""))
}

# ---- main -------------------------------------------------------------
script_dir <- function() {
  arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(arg) != 1) stop("run this script with Rscript")
  dirname(normalizePath(sub("^--file=", "", arg)))
}

make_all <- function(dir) {
  rows <- list()
  for (t in tables) {
    df <- load_table(t$pkg, t$name)
    path <- file.path(dir, t$file)
    write_table(df, path)
    check_round_trip(df, path)
    rows[[t$file]] <- describe(t, df)
  }
  writeLines(provenance(rows), file.path(dir, "PROVENANCE.md"))
  rows
}

main <- function(args) {
  here <- script_dir()
  check <- identical(args, "--check")
  if (length(args) && !check) stop("usage: Rscript make.R [--check]")
  out <- if (check) tempfile("misslab-data-") else here
  dir.create(out, showWarnings = FALSE)
  rows <- make_all(out)
  options(width = 200)
  print(as.data.frame(do.call(rbind, rows))[, 1:11], right = FALSE, row.names = FALSE)
  if (!check) return(invisible())
  files <- c(vapply(tables, `[[`, "", "file"), "PROVENANCE.md")
  differ <- files[!vapply(files, function(f) {
    a <- file.path(here, f)
    file.exists(a) && identical(readBin(a, "raw", file.size(a)),
                                readBin(file.path(out, f), "raw", file.size(file.path(out, f))))
  }, TRUE)]
  unlink(out, recursive = TRUE)
  if (length(differ)) {
    message("make.R --check: differ from a fresh generation: ", paste(differ, collapse = ", "))
    quit(status = 1)
  }
  message("make.R --check: all ", length(files), " files are up to date")
}

main(commandArgs(TRUE))
