package testenv

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// OwnDynamoDB is a DynamoDB Local of the test's own: in memory, on a free
// port, started by scripts/dynamodb-local.sh from its cache and stopped
// when the test ends. A test can restart it (Restart), which loses every
// table, as an in-memory emulator restarted under a running migrate does.
type OwnDynamoDB struct {
	Endpoint string
	Port     int
	script   string
	env      []string
}

// OwnDynamoDBXmx is the JVM heap of a test's own DynamoDB Local.
const OwnDynamoDBXmx = "512m"

// StartOwnDynamoDB starts a DynamoDB Local of the test's own. Without java,
// curl or the cached DynamoDB Local (scripts/dynamodb-local.sh fetch) the
// test is skipped, or fails under REMODEL_REQUIRE_SERVICES=1. It is
// stopped when the test ends, whatever happened; a test binary killed
// before its cleanup leaves it running: scripts/dynamodb-local.sh stop PORT
// (the port is logged) stops it.
func StartOwnDynamoDB(t testing.TB) *OwnDynamoDB {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if Require() {
			t.Fatalf("testenv: "+format+", and REMODEL_REQUIRE_SERVICES=1", args...)
		}
		t.Skipf("testenv: "+format+": skipping a test that needs a DynamoDB Local of its own", args...)
	}
	for _, tool := range []string{"bash", "java", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing("%s is not installed", tool)
		}
	}
	d := &OwnDynamoDB{
		script: filepath.Join(moduleRoot(t), "scripts", "dynamodb-local.sh"),
		env:    append(os.Environ(), "DYNAMODB_XMX="+OwnDynamoDBXmx),
	}
	out, err := d.run("path")
	if err != nil {
		t.Fatalf("testenv: %s path: %v\n%s", d.script, err, out)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(out), "DynamoDBLocal.jar")); err != nil {
		missing("DynamoDB Local is not in %s (scripts/dynamodb-local.sh fetch puts it there)", strings.TrimSpace(out))
	}
	// A free port: the kernel's choice, let go of just before the script
	// takes it. Another program may take it in between: then another one.
	for attempt := 1; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("testenv: finding a free port: %v", err)
		}
		d.Port = l.Addr().(*net.TCPAddr).Port
		l.Close()
		out, err := d.run("start", strconv.Itoa(d.Port))
		if err == nil {
			break
		}
		if attempt < 3 && strings.Contains(out, "is taken by") {
			continue
		}
		t.Fatalf("testenv: starting DynamoDB Local on port %d: %v\n%s", d.Port, err, out)
	}
	d.Endpoint = "http://127.0.0.1:" + strconv.Itoa(d.Port)
	t.Logf("testenv: DynamoDB Local of this test at %s (scripts/dynamodb-local.sh stop %d stops it)", d.Endpoint, d.Port)
	t.Cleanup(func() {
		// The script waits for the JVM to end (SIGTERM, then SIGKILL).
		if out, err := d.run("stop", strconv.Itoa(d.Port)); err != nil {
			t.Errorf("testenv: stopping DynamoDB Local on port %d: %v\n%s", d.Port, err, out)
		}
	})
	return d
}

// Restart stops the DynamoDB Local and starts it again on the same port,
// empty: every table is gone.
func (d *OwnDynamoDB) Restart(t testing.TB) {
	t.Helper()
	port := strconv.Itoa(d.Port)
	out, err := d.run("stop", port)
	if err != nil || !strings.Contains(out, "stopped") {
		t.Fatalf("testenv: stopping DynamoDB Local on port %d (it should be running): %v\n%s", d.Port, err, out)
	}
	if out, err := d.run("start", port); err != nil {
		t.Fatalf("testenv: starting DynamoDB Local again on port %d: %v\n%s", d.Port, err, out)
	}
}

func (d *OwnDynamoDB) run(args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{d.script}, args...)...)
	cmd.Env = d.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// moduleRoot is the folder of go.mod above the test's directory.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testenv: no go.mod above the test's directory")
		}
		dir = parent
	}
}
