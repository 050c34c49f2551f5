package e2e

// Hostile programs shared by the hostile, runsc and soak tests.
const (
	// forkBombSh is the classic fork bomb, then a busy loop that needs no
	// fork (so the main shell cannot die of a refused fork first).
	forkBombSh = "bomb() { bomb | bomb & }\nbomb\nwhile :; do :; done\necho done\n"

	// memoryBombPy allocates 512 MiB at once.
	memoryBombPy = "b = bytearray(512 << 20)\nprint('survived')\n"

	// spawnerPy forks sleepers until refused (at most 100), prints how many
	// and why it stopped, then exits 0, which ends them all.
	spawnerPy = `import os, time
kids, refused = 0, "none"
for _ in range(100):
    try:
        pid = os.fork()
    except OSError as e:
        refused = "%s/%d" % (type(e).__name__, e.errno)
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    kids += 1
print("forked=%d refused=%s" % (kids, refused))
`
)
