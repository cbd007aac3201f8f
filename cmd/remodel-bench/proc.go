package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100 on
// every Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// dynamoDBLocalPID finds the DynamoDB Local process serving port, by its
// command line in /proc (Linux); 0 if there is none or no /proc.
func dynamoDBLocalPID(port int) int {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	want := []byte("-port\x00" + strconv.Itoa(port) + "\x00")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("DynamoDBLocal.jar\x00")) || !bytes.Contains(b, want) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err == nil {
			return pid
		}
	}
	return 0
}

// processCPU is the user+sys CPU time of a running process, from
// /proc/PID/stat; false if it cannot be read.
func processCPU(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return statCPU(string(b))
}

// statCPU reads utime and stime (fields 14 and 15) of a /proc/PID/stat
// line. The command name, field 2, is in parentheses and may hold spaces
// and parentheses itself, so fields are counted from its closing one.
func statCPU(stat string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * clockTick, true
}
