// Package bench holds the scenarios of the benchmark (cmd/bench, which
// owns the flags): behaves against a docker run loop and against the
// floor of the engine's lifecycle, the memory and reuse scenarios, and
// their results (the table, the targets and the JSON). The command's doc
// comment lists every figure; docs/performance.md holds the targets.
package bench
