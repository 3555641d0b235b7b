# Figure 5 of the paper at the authors' scale: the learning curves of
# examples/figure5.hcl (Experiment 3, Section 5.4; 40% MCAR on every
# variable of Models 2, 3 and 4 with high SNR, d = 10, ρ = 0.5) carried
# on to n_train = 10⁵, as the authors' code ran them, on the same log
# grid of sample sizes and with the same pipelines and Bayes oracle.
#
# Cost: about 21.6 CPU-hours by `coordinator plan` (10.8 hours on two
# cores; one repetition 6.5 CPU-minutes by the plan, 6.4 measured, half
# of it the forests at n_train = 10⁵, one fit about 22 s there). The SVM
# is a second sweep that stops at n_train = 10⁴, the paper's largest
# size: an exact kernel SVM (libsvm, as e1071) grows as n^2.7 once its
# kernel cache no longer holds the working set: one fit takes 20
# CPU-seconds at 3·10⁴ (about 7 CPU-hours for the sweep) and several
# minutes at 10⁵ (CPU-days). Both
# sweeps share the seed, so the SVM's jobs draw the same data as the
# other learners' at the same n_train (the same jobs in the store).
sweep "figure5-large" {
  seed        = 1
  repetitions = 200

  data {
    model   = ["linear", "friedman", "nonlinear-high"]
    d       = 10
    n_train = [300, 1000, 3000, 10000, 30000, 100000]
    n_test  = 1000
  }

  missingness {
    mechanism = "mcar"
    rate      = 0.4
    columns   = "all"
  }

  pipelines {
    learners   = ["tree"]
    strategies = ["mean", "gaussian", "mia", "surrogate"]
  }

  pipelines {
    learners   = ["forest", "boost"]
    strategies = ["mean", "gaussian", "mia"]
  }

  pipelines {
    learners   = ["knn"]
    strategies = ["mean", "gaussian"]
  }

  bayes = true
}

sweep "figure5-large-svm" {
  seed        = 1
  repetitions = 200

  data {
    model   = ["linear", "friedman", "nonlinear-high"]
    d       = 10
    n_train = [300, 1000, 3000, 10000]
    n_test  = 1000
  }

  missingness {
    mechanism = "mcar"
    rate      = 0.4
    columns   = "all"
  }

  pipelines {
    learners   = ["svm"]
    strategies = ["mean", "gaussian"]
  }

  bayes = true
}
