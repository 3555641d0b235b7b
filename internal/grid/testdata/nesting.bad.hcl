# Nesting past MaxDepth is refused before the HCL parser runs, at the
# first level past the limit; brackets in comments [[[[ and strings do not count.
# error: testdata/nesting.bad.hcl:9:43: limit: nested more than 32 levels deep; every bracket, brace, parenthesis, string, template sequence and operator adds a level
sweep "s [[[[" {
  seed        = 1
  repetitions = 2
  data {
    model = "quadratic"
    rho   = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[0.5]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
  }
}
