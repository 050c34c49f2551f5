// Package reportread reads a behaves.report/v1 report back from untrusted
// input (a stored report, a shard's, an artifact another workflow wrote)
// and checks it: bounded in size, a shape pass over the raw JSON before
// anything is decoded (shape.go), every key the format always writes
// present, enums and forms known, and every verdict, count and group
// equal to what package report's fold makes of the cases. Whatever reads
// a report from disk (publish, html, junit, merge, rescore, run --reuse)
// goes through Read, File or RegularFile.
package reportread
