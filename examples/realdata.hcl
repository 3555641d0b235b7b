# Real tables with natural NA (examples/data, converted from Debian's R
# packages; see examples/data/PROVENANCE.md), each under 3 repetitions of
# 5-fold cross-validation: as they are, and with 20% more NA amputed
# completely at random and by self-masking. The same eight pipelines run
# on every table (so they can be ranked across tables), plus Gaussian
# imputation where the table has few categorical columns (on boys' 17
# one-hot columns EM is slow and its Gaussian model is a poor fit). A few
# minutes on 2 cores:
#
#   coordinator run examples/realdata.hcl --out out/realdata
#
# R² is measured against each test fold's own target variance (a real
# table's Var(Y) is unknown); the report ranks the pipelines across the
# tables and scenarios (Friedman test, Nemenyi critical differences) and
# plots prediction R² against imputation RMSE on the amputed entries.

sweep "airquality" {
  seed        = 1
  repetitions = 3
  table {
    file        = "data/airquality.csv"
    target      = "Ozone"
    drop        = ["Day"]
    categorical = ["Month"]
  }
  split {
    folds = 5
  }
  missingness {
    mechanism = ["none", "mcar", "self-masking"]
    rate      = 0.2
    columns   = "all"
  }
  pipelines {
    names = ["tree/mia", "tree/surrogate", "tree/mean+mask", "forest/mia", "forest/mean+mask",
             "boost/mia", "boost/mean+mask", "linear/mean+mask"]
  }
  pipelines {
    names = ["tree/gaussian", "linear/gaussian+mask"]
  }
}

sweep "boys" {
  seed        = 1
  repetitions = 3
  table {
    file        = "data/boys.csv"
    target      = "hgt"
    drop        = ["bmi"]
    categorical = ["gen", "phb", "reg"]
  }
  missingness {
    mechanism = ["none", "mcar", "self-masking"]
    rate      = 0.2
  }
  pipelines {
    names = ["tree/mia", "tree/surrogate", "tree/mean+mask", "forest/mia", "forest/mean+mask",
             "boost/mia", "boost/mean+mask", "linear/mean+mask"]
  }
}

sweep "pima" {
  seed        = 1
  repetitions = 3
  table {
    file        = "data/pima.csv"
    target      = "mass"
    categorical = ["diabetes"]
  }
  missingness {
    mechanism = ["none", "mcar", "self-masking"]
    rate      = 0.2
  }
  pipelines {
    names = ["tree/mia", "tree/surrogate", "tree/mean+mask", "forest/mia", "forest/mean+mask",
             "boost/mia", "boost/mean+mask", "linear/mean+mask"]
  }
  pipelines {
    names = ["tree/gaussian", "linear/gaussian+mask"]
  }
}

sweep "sleep" {
  seed        = 1
  repetitions = 3
  table {
    file   = "data/sleep.csv"
    target = "Dream"
    drop   = ["Sleep"]
  }
  missingness {
    mechanism = ["none", "mcar", "self-masking"]
    rate      = 0.2
  }
  pipelines {
    names = ["tree/mia", "tree/surrogate", "tree/mean+mask", "forest/mia", "forest/mean+mask",
             "boost/mia", "boost/mean+mask", "linear/mean+mask"]
  }
  pipelines {
    names = ["tree/gaussian", "linear/gaussian+mask"]
  }
}
