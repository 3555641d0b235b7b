# A binary task of the paper's models: P(Y = 1) = σ(scale·(η − threshold)).
# The quadratic model takes its default scale (0.782) and the median of
# its signal as threshold; the linear model crosses two scales with an
# explicit threshold. Noise defaults to 0 (the Bernoulli draw is the
# randomness); scale and threshold are the innermost axes.
sweep "binary" {
  seed        = 4
  repetitions = 2
  data {
    model = "quadratic"
    task  = "binary"
  }
  missingness {
    mechanism = ["mcar", "predictive"]
  }
  pipelines {
    names = ["tree/mia"]
  }
}

sweep "binary-linear" {
  seed        = 4
  repetitions = 1
  data {
    model     = "linear"
    task      = "binary"
    scale     = [0.5, 2]
    threshold = 5
  }
  pipelines {
    names = ["tree/mia"]
  }
}
