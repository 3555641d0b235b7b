# want: top_attribute.bad.hcl:2,1-8: unknown attribute "version"
version = 1
