// Package runner owns acquiring evidence: the Sandbox interface that runs a
// program for a list of invocations, the evidence types it returns (Event,
// Observation), and the scheduler that spreads invocations over workers and
// cleans up on cancellation. It also holds the vocabulary a backend shares
// with the command line: what a sweep finds, decides and removes (Sweeper,
// the owner labels) and what a pull did (ImagePuller, PullStatus); and the
// sweep's decision, which no backend owns: reading a leftover's owner from
// its labels (ParseOwner), deciding whether its run is dead (Decide), and
// asking this host about the owner's process (PIDNamespace, LocalProcess).
//
// It knows nothing of expected results: the types here carry only what to run
// (program files, profile, arguments, stdin) and what was observed. Package
// verdict judges the evidence; the Docker implementation lives in
// runner/docker so that verdict and report can use these types without the
// Docker client.
package runner
