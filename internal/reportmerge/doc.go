// Package reportmerge combines the reports of the shards of one run
// (behaves merge), each read and checked by package reportread, into the
// report the unsharded run would have written, or refuses them (Error)
// when they do not make one run.
package reportmerge
