package runner

// What a sweep asks of this host: its PID namespace, and whether the process
// that owns a run is still there. They read /proc and signal processes, and
// do not depend on the backend the run's leftovers are on.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PIDNamespace names this process's PID namespace: the target of
// /proc/self/ns/pid ("pid:[4026531836]"), "" where there is none to read
// (not Linux). An inode number is reused only after its namespace is gone,
// and with it every process of a run that lived there, so a reused name
// with a live PID still meets the start-time check.
func PIDNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's starttime: 100 on
// every architecture Docker supports (cgo would be needed to ask sysconf).
const clockTicks = 100

// LocalProcess looks pid up on this host (in behaves' PID namespace). On
// Linux it reads /proc/<pid>/stat: a missing entry or a zombie is gone, and
// the start time comes from starttime and the boot time in /proc/stat.
// Elsewhere, or when /proc cannot say, it sends signal 0. Whatever it cannot
// tell counts as alive, so that doubt keeps leftovers rather than removing a
// live run's.
func LocalProcess(pid int) Process {
	if pid <= 0 {
		return Process{Alive: true}
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		state, ticks, err := parseProcStat(b)
		if err != nil {
			return Process{Alive: true}
		}
		if state == 'Z' || state == 'X' {
			return Process{}
		}
		p := Process{Alive: true}
		if boot, err := bootTime(); err == nil {
			p.Started = boot.Add(time.Duration(ticks) * (time.Second / clockTicks))
		}
		return p
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat("/proc/self/stat"); err == nil {
			return Process{} // /proc works and has no such process
		}
	}
	return signalZero(pid)
}

// signalZero asks the kernel whether pid exists: ESRCH means gone; success
// or any other answer (EPERM: it exists, but is not ours) means alive.
func signalZero(pid int) Process {
	p, err := os.FindProcess(pid)
	if err != nil {
		return Process{Alive: true}
	}
	defer p.Release()
	if err := p.Signal(syscall.Signal(0)); errors.Is(err, os.ErrProcessDone) {
		return Process{}
	}
	return Process{Alive: true}
}

// parseProcStat returns the state (field 3) and starttime (field 22) of a
// /proc/<pid>/stat line. The command name (field 2) is in parentheses and
// may itself hold spaces and parentheses, so fields are counted after the
// last ')'.
func parseProcStat(b []byte) (state byte, starttime int64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("no command name in /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, errors.New("too few fields in /proc stat")
	}
	starttime, err = strconv.ParseInt(f[19], 10, 64)
	if err != nil || starttime < 0 {
		return 0, 0, fmt.Errorf("bad starttime %q in /proc stat", f[19])
	}
	return f[0][0], starttime, nil
}

// bootTime reads btime, the boot time in seconds since the epoch, from /proc/stat.
func bootTime() (time.Time, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("bad btime in /proc/stat: %w", err)
			}
			return time.Unix(n, 0), nil
		}
	}
	return time.Time{}, errors.New("no btime in /proc/stat")
}
