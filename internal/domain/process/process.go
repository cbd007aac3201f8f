package process

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// ID names one process: the host it runs on, its pid and when it started
// (an opaque text of the operating system's; "" where unknown).
type ID struct {
	Host  string
	PID   int64
	Start string
}

// Self names the calling process.
func Self() ID {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	pid := os.Getpid()
	return ID{Host: host, PID: int64(pid), Start: startTime(pid)}
}

// Self says whether p is the calling process.
func (p ID) Self() bool {
	self := Self()
	return p.Host == self.Host && p.PID == self.PID
}

// Running says whether the process p names still runs. It is false for a
// process of this host whose pid is gone, or taken by a process that
// started at another time; true for a process of another host (which
// cannot be asked) and where the answer is not known.
func (p ID) Running() bool {
	if p.Host != Self().Host {
		return true
	}
	pid := int(p.PID)
	if p.PID <= 0 || int64(pid) != p.PID || !exists(pid) {
		return false
	}
	if p.Start == "" {
		return true
	}
	now := startTime(pid)
	return now == "" || now == p.Start
}

func (p ID) String() string {
	return fmt.Sprintf("pid %d on host %s", p.PID, p.Host)
}

// exists says whether a process with this pid exists on this host.
func exists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// startTime is when the process started, in clock ticks since boot, from
// /proc/<pid>/stat (Linux); "" where there is no /proc.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// and parentheses: the fields after it follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	fields := bytes.Fields(b[i+1:])
	// After the name: state (3), ..., starttime (22).
	const starttime = 22 - 3
	if len(fields) <= starttime {
		return ""
	}
	return string(fields[starttime])
}
