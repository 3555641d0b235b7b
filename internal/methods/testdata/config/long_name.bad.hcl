# want: long_name.bad.hcl:2,8-52: method "a23456789012345678901234567890123456789012": invalid method name (want ^[a-z][a-z0-9_]*$, at most 40 bytes)
method "a23456789012345678901234567890123456789012" {
  kind    = "learner"
  command = ["python3", "method.py"]
}
