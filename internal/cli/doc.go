// Package cli is what the coordinator's and the worker's command lines
// share: a command's flag set with its usage written as the docs write
// flags (--flag), flags hidden from that usage (the knobs for tests),
// -h, --help and a lone "help" answered with the usage on standard
// output, the --json / -o json output choice, and the exit statuses (0
// for help, 2 for a command line that does not parse, 1 for a command
// that failed).
package cli
