package engine

// The formulas of docs/security.md ("Memory and report size") for behaves'
// own peak memory and the report's size, as code, so that the extreme-output
// test and the benchmark check the figures stated there. The constants were
// measured (docs/performance.md, "Memory and report size at scale") and
// rounded up.
const (
	// memoryBase is behaves without any output: the Go runtime, the
	// Docker client, the spec and the bookkeeping of a small run.
	memoryBase = 40 << 20
	// memoryPerStream is how many times output_limit one stream of an
	// invocation in flight may take: the writer's buffer, the judge's
	// normalised copies, and the garbage collector's headroom (it lets the
	// heap grow to twice what is live before collecting).
	memoryPerStream = 6
	// memoryPerCase is a judged case's summary kept until the end (verdict,
	// reasons, counts, digests; excerpts only for the first cases that are
	// not true), with its share of the runner's bookkeeping, the copies
	// the end of the run makes while it assembles the report, and the
	// garbage collector's headroom (measured: about 9.5 KiB a case over
	// 2,000 cases, docs/performance.md).
	memoryPerCase = 16 << 10
	// memoryPerFile is one file (or link) of a program: its content
	// handle (path, size, digest, where to read it again; never its
	// bytes), its entry in the program's file list and in the report's,
	// with the garbage collector's headroom (measured: about 1.5 KiB a
	// file over 50,000 files, docs/performance.md).
	memoryPerFile = 2 << 10
	// reportPerCase bounds a case's entry in the report without its
	// output, and its share of its program's entry (settings), beyond the
	// spec's own text the entry repeats (args, names, expected values).
	reportPerCase = 8 << 10
	// reportBase is the report's header.
	reportBase = 4 << 10
)

// MemoryBound is docs/security.md's bound on behaves' peak memory (RSS) for
// a run at parallel invocations in flight, a --max-output-limit of
// outputLimit and cases invocations: what the spec asks for is bounded by the
// flags, so the spec cannot raise it (beyond its own text and the files it
// names that are loaded: stdin and cases files; and FilesMemory of its
// programs' files, whose bytes are not held).
func MemoryBound(parallel int, outputLimit int64, cases int) int64 {
	return MemoryBoundRepeat(parallel, outputLimit, cases, 1)
}

// memoryPerHeldStream is how many times output_limit one stream of a held
// run may take: its kept bytes, and the garbage collector's headroom.
const memoryPerHeldStream = 2

// MemoryBoundRepeat is MemoryBound for a spec whose largest repeat is
// repeat: a case that runs more than once holds the output of its runs
// until the last is in, and its runs are consecutive invocations, so at
// most parallel + 1 cases are partial at once (the ones with a run in
// flight, and the one being fed), each holding at most repeat - 1 runs.
// repeat is at most spec.MaxRepeat, whatever the spec says.
func MemoryBoundRepeat(parallel int, outputLimit int64, cases, repeat int) int64 {
	held := int64(parallel+1) * int64(max(repeat, 1)-1) * 2 * outputLimit * memoryPerHeldStream
	return memoryBase + int64(parallel)*2*outputLimit*memoryPerStream + held + int64(cases)*memoryPerCase
}

// FilesMemory is the term of docs/security.md's bound for a spec whose
// programs hold files files and links in all (at most the programs ×
// --max-program-files): what a program costs in memory grows with how many
// files it has, never with their size, since no program's bytes are held
// (runner.File: each file is read again, streamed, when it is delivered).
func FilesMemory(files int) int64 { return int64(files) * memoryPerFile }

// ReportBound is docs/security.md's bound on the report's size for kept
// bytes of output over cases invocations under a --max-report-size of
// maxReport (0: none): output as text or base64, whichever is shorter, so at
// most 4/3 of the kept bytes, and never more than maxReport of case entries,
// plus each case's entry without its output (which no budget can drop).
func ReportBound(kept int64, cases int, maxReport int64) int64 {
	entries := (kept+2)/3*4 + int64(cases)*reportPerCase
	if maxReport > 0 {
		entries = min(entries, maxReport+int64(cases)*reportPerCase)
	}
	return reportBase + entries
}
