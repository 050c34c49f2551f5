package engine

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// availableMemory reads MemAvailable from /proc/meminfo, in bytes; 0 when it
// cannot be read (then only the CPUs bound the default parallelism).
func availableMemory() int64 { return MemInfo("MemAvailable:") }

// MemInfo reads one line of /proc/meminfo ("MemTotal:", "MemAvailable:"),
// in bytes; 0 when it cannot be read.
func MemInfo(key string) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == key {
			kib, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kib << 10
		}
	}
	return 0
}
