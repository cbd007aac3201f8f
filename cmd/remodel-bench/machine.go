package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// machine is what the figures were taken on.
type machine struct {
	Cores  int
	CPU    string
	OSArch string
	Go     string
}

func (m machine) String() string {
	return fmt.Sprintf("%d cores, %s, %s, %s", m.Cores, m.CPU, m.OSArch, m.Go)
}

func thisMachine() machine {
	m := machine{Cores: runtime.NumCPU(), CPU: "unknown CPU", OSArch: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		if s := cpuModel(f); s != "" {
			m.CPU = s
		}
	}
	return m
}

// cpuModel reads the first "model name" of a /proc/cpuinfo, with runs of
// spaces squeezed.
func cpuModel(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}

// loadAverage is the first three fields of /proc/loadavg, or "".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
