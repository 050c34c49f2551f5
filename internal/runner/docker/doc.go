// Package docker is the Docker Engine implementation of runner.Sandbox.
//
// It owns everything that touches the engine: the image check (inspect,
// never pull, pin by ID or registry digest), the opt-in pull phase before
// scoring (PullImage: by digest only, its failures kept as the reason of a
// missing image), delivery of a program's files
// into a labelled named volume through a created, never-started helper
// container (an archive streamed while the engine reads it, each file read
// again through its content handle and checked against its recorded
// digest: writeDelivery, fillVolumes), and one fresh, hardened, disposable container per invocation
// (create → attach → wait(next-exit) → start → pump streams against the
// timeout → inspect → remove).
//
// The container settings are built by a pure function (containerConfig) and
// the report's runner.Settings are derived from what it built, so that the
// settings recorded are the settings applied. The engine is reached only
// through the Engine API client (client.FromEnv with version negotiation):
// no docker CLI, no host bind mounts, so it works against a remote
// DOCKER_HOST and from inside a container action.
//
// Decisions a reader of the report may want to know (each is explained at
// the constant or function that implements it):
//   - the working directory is always /program (workingDir);
//   - an image VOLUME is covered by a tmpfs of min(memory, 64 MiB)
//     (volumeTmpfsSize);
//   - the fsize ulimit is max(largest tmpfs, 64 MiB) (fileSizeLimit);
//   - TimedOut is set only when behaves' kill ended a running program, as
//     the engine's record shows it (exit code 137 and a recorded run time
//     that reached the timeout: killEndedRun), and an exit code is reported
//     for every exited container, 137 after a timeout kill included
//     (Attempt.Run);
//   - an OOM kill takes precedence over the output ceiling as the reported
//     resource limit (judge).
package docker
