package process

import (
	"os/exec"
	"testing"
)

func TestRunning(t *testing.T) {
	self := Self()
	if self.Start == "" {
		t.Skip("no /proc on this system: the start time is not known") // never on the project's Linux machines
	}
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	live := ID{Host: self.Host, PID: int64(cmd.Process.Pid), Start: startTime(cmd.Process.Pid)}
	if live.Start == "" || !live.Running() {
		t.Fatalf("a running child (%+v) is not Running", live)
	}
	reused := live
	reused.Start = live.Start + "1"
	if reused.Running() {
		t.Errorf("a pid taken by a process that started at another time (%+v) is Running", reused)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if live.Running() {
		t.Errorf("a process that was killed and reaped (%+v) is Running", live)
	}
	other := ID{Host: self.Host + "-elsewhere", PID: 1}
	if !other.Running() {
		t.Error("a process of another host is not Running: it cannot be asked, so it must be taken to run")
	}
	if !self.Running() || !self.Self() {
		t.Error("this process is not Running, or not Self")
	}
	if live.Self() || (ID{Host: self.Host, PID: 0}).Running() {
		t.Error("another pid is Self, or pid 0 is Running")
	}
}
