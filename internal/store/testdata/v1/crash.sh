#!/bin/sh
# A method that always fails: it gives the v1 store fixture real pipeline
# failures ("method-crash"), recorded by the release that made it.
echo "misslab store fixture: this method always fails" >&2
exit 3
