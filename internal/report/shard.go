package report

import (
	"fmt"
	"regexp"
)

// MaxShards bounds N in a shard i/N (a GitHub Actions matrix holds at most
// 256 jobs).
const MaxShards = 256

// Shard says which part of a sharded run a report holds. A shard's report
// (`behaves run --shard i/N`) has Index i; a merge of shards
// (reportmerge.Merge) has Index 0 and names the shards it combined and those
// it lacked.
type Shard struct {
	// Index is the shard, 1..Count; 0 for a merge.
	Index int `json:"index"`
	Count int `json:"count"`
	// SpecDigest identifies what the spec runs ("sha256:<hex>", see
	// shard.Digest): shards of one run share it.
	SpecDigest string `json:"spec_digest"`
	// Merged and Missing are, for a merge, the shards combined and the
	// shards missing (only under --allow-missing); [] for a shard.
	Merged  []int `json:"merged"`
	Missing []int `json:"missing"`
	// Programs is every program of the spec, in spec order, with the
	// shard it belongs to: what lets a merge name what a missing shard
	// would have run.
	Programs []ShardProgram `json:"programs"`
}

// ShardProgram is one program of a sharded spec and its shard.
type ShardProgram struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Group   string `json:"group"`
	File    string `json:"file"`
	Profile string `json:"profile"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	// Cases is the program's invocation count, what the slicing balances.
	Cases int `json:"cases"`
	Shard int `json:"shard"`
}

// emptyShard reports whether r is one shard's report to which the slicing
// gave no program (more shards than programs): it has nothing to judge,
// and only the merge's verdict says anything.
func emptyShard(r Report) bool {
	return r.Shard != nil && r.Shard.Index > 0 && len(r.Programs) == 0
}

// MissingReason is the reason of a merge's program whose shard is missing.
func MissingReason(shard, count int) string { return fmt.Sprintf("shard %d/%d missing", shard, count) }

// MissingShardReason matches what MissingReason writes.
var MissingShardReason = regexp.MustCompile(`^shard [0-9]+/[0-9]+ missing$`)
