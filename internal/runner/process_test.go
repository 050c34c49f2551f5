package runner

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/dockertest"
)

func TestParseProcStat(t *testing.T) {
	t.Parallel()
	// A command name with spaces and parentheses; starttime is field 22.
	line := "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n"
	state, start, err := parseProcStat([]byte(line))
	if err != nil || state != 'S' || start != 987654 {
		t.Errorf("parseProcStat = %c, %d, %v; want S, 987654", state, start, err)
	}
	for _, bad := range []string{"", "4242 no parens S 1", "1 (x) S 1 2 3", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 0"} {
		if _, _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("parseProcStat(%q) accepted", bad)
		}
	}
}

func TestLocalProcess(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self := LocalProcess(os.Getpid())
	if !self.Alive || self.Started.IsZero() || self.Started.After(time.Now()) {
		t.Errorf("this process: %+v, want alive and started in the past", self)
	}
	if p := LocalProcess(dockertest.FreePID(t)); p.Alive {
		t.Errorf("a free PID: %+v, want gone", p)
	}
	if p := signalZero(os.Getpid()); !p.Alive {
		t.Errorf("signal 0 to this process: %+v, want alive", p)
	}
	if p := signalZero(dockertest.FreePID(t)); p.Alive {
		t.Errorf("signal 0 to a free PID: %+v, want gone", p)
	}
}

func TestLocalProcessZombieIsGone(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start /bin/sh:", err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	// Until Wait reaps it, the exited child stays a zombie.
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		if st, _, _ := parseProcStat(b); st == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never became a zombie")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p := LocalProcess(pid); p.Alive {
		t.Errorf("a zombie: %+v, want gone", p)
	}
}
