// Package shard owns how `behaves run --shard i/N` slices a spec: the
// deterministic, balanced assignment of programs to shards (longest first,
// greedy, ties broken by program ID) and the spec digest that tells a
// merge which shards belong together. Combining shard reports is
// reportmerge.Merge; package cli wires both.
package shard
