# A sweep's name is shown in logs, status lines and report directories:
# control characters are refused.
sweep "tab	here" {
  seed        = 1
  repetitions = 1
  data { model = "stump" }
  pipelines { names = ["tree/mia"] }
}
# error: testdata/name.bad.hcl:3:7: sweep: the name "tab\there" holds the control character U+0009
