package e2e

// Programs shared by the core, hostile, runsc and soak tests.
const (
	// forkBombSh is the classic fork bomb, then a busy loop that needs no
	// fork (so the main shell cannot die of a refused fork first).
	//
	// The main shell forks once, first, when nothing else runs: busybox
	// sh forks each element of a background pipeline itself and exits 2
	// when a fork fails, so a bomb started from the main shell could end
	// it (exit 2, "can't fork") when the first element's children took
	// the last pids before the second element's fork: the case then read
	// differently under load (seen in CI).
	forkBombSh = "bomb() { bomb | bomb & }\n(bomb) &\nwhile :; do :; done\necho done\n"

	// memoryBombPy allocates 512 MiB at once.
	memoryBombPy = "b = bytearray(512 << 20)\nprint('survived')\n"

	// spawnerForksPy forks sleepers until refused (at most 100), counting
	// them in kids and noting why it stopped in refused.
	spawnerForksPy = `import os, time
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
`

	// spawnerPy is spawnerForksPy, then prints how many and why it stopped
	// and exits 0, which ends them all.
	spawnerPy = spawnerForksPy + `print("forked=%d refused=%s" % (kids, refused))
`

	// rawSocketPy tries to open a raw IP socket and a packet socket.
	rawSocketPy = `import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    print("raw socket opened")
except PermissionError:
    print("raw socket refused")
try:
    socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    print("packet socket opened")
except PermissionError:
    print("packet socket refused")
`
)
