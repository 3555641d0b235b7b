// Package learn composes imputers, missingness masks and learners into the
// named pipelines that a grid runs and a result reports.
package learn
