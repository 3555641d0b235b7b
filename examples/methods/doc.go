// Package adapters holds no code: its tests run the shipped external methods of this directory (methods.hcl) through the worker's method runner.
package adapters
