package ownserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// startTimeout bounds a server's start, from its first command to its
// first answered connection.
const startTimeout = 60 * time.Second

// unavailable skips the test, or fails it under REMODEL_REQUIRE_SERVICES=1.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if testenv.Require() {
		t.Fatalf("ownserver: %s, and REMODEL_REQUIRE_SERVICES=1", msg)
	}
	t.Skipf("ownserver: %s: skipping", msg)
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// server is a started child process and how to stop it.
type server struct {
	cmd  *exec.Cmd
	done chan error // the process's end
	log  string     // its log file
}

// start runs a server process as cred (nil: this process's user), its
// output in logFile, killed if this process dies first (Linux's parent-death
// signal, which follows the thread that started it: the test's threads
// do not end while it runs).
func start(name string, args []string, cred *syscall.Credential, logFile string) (*server, error) {
	f, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan error, 1), log: logFile}
	go func() { s.done <- cmd.Wait() }()
	return s, nil
}

// stop asks the server to stop with sig and waits for it, killing it
// after a while.
func (s *server) stop(sig os.Signal) {
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// ready calls ping until it succeeds, the process ends or the time is up.
func (s *server) ready(ping func(context.Context) error) error {
	deadline := time.Now().Add(startTimeout)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		last = ping(ctx)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("the server ended (%v): %s", err, tail(s.log))
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("no connection after %s (%v): %s", startTimeout, last, tail(s.log))
}

// tail is the end of a log file, for a message.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// run runs a setup command, its output in the error when it fails.
func run(cred *syscall.Credential, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if o := strings.TrimSpace(string(out)); o != "" {
			return fmt.Errorf("%s: %v: %s", filepath.Base(name), err, o)
		}
		return fmt.Errorf("%s: %v", filepath.Base(name), err)
	}
	return nil
}

// postgresBin finds the directory of initdb and postgres.
func postgresBin() (string, error) {
	if d := os.Getenv("REMODEL_TEST_PGBIN"); d != "" {
		return d, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL server binaries (initdb) in PATH or /usr/lib/postgresql/*/bin (set REMODEL_TEST_PGBIN)")
}

// Postgres starts a PostgreSQL cluster of its own, with pg_stat_statements
// in shared_preload_libraries (and tracking every statement), and returns
// the DSN of its database remodel, which the test may use as it likes.
// PostgreSQL refuses to run as root: then the cluster runs as the OS user
// postgres, in a directory it owns. The server is stopped and its
// directory removed when the test ends.
func Postgres(t testing.TB) string {
	t.Helper()
	bin, err := postgresBin()
	if err != nil {
		unavailable(t, "%v", err)
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			unavailable(t, "running as root, and no OS user postgres to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	dir, err := os.MkdirTemp("", "remodel-ownpg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	if err := run(cred, filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale", "C"); err != nil {
		unavailable(t, "creating a PostgreSQL cluster: %v", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	// The log file is opened here and inherited by the server: whoever
	// owns the directory, the server writes to it.
	logFile := filepath.Join(dir, "server.log")
	s, err := start(filepath.Join(bin, "postgres"), []string{"-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "shared_preload_libraries=pg_stat_statements",
		"-c", "pg_stat_statements.track=all", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=40", "-c", "shared_buffers=32MB"}, cred, logFile)
	if err != nil {
		unavailable(t, "starting PostgreSQL: %v", err)
	}
	// SIGINT is PostgreSQL's fast shutdown.
	t.Cleanup(func() { s.stop(syscall.SIGINT) })
	admin := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	err = s.ready(func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, "SELECT 1")
		return err
	})
	if err != nil {
		unavailable(t, "starting PostgreSQL on port %d: %v", port, err)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE remodel"); err != nil {
		t.Fatalf("ownserver: creating the database remodel: %v", err)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/remodel?sslmode=disable", port)
}

// mariadbBins finds the server and its install script.
func mariadbBins() (server, install string, err error) {
	look := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			for _, d := range []string{"/usr/sbin", "/usr/libexec", "/usr/bin"} {
				if _, err := os.Stat(filepath.Join(d, n)); err == nil {
					return filepath.Join(d, n)
				}
			}
		}
		return ""
	}
	server = os.Getenv("REMODEL_TEST_MARIADBD")
	if server == "" {
		server = look("mariadbd", "mysqld")
	}
	install = look("mariadb-install-db", "mysql_install_db")
	if server == "" || install == "" {
		return "", "", errors.New("no MariaDB server binaries (mariadbd and mariadb-install-db) in PATH, /usr/sbin or /usr/bin (set REMODEL_TEST_MARIADBD)")
	}
	return server, install, nil
}

// MariaDB starts a MariaDB server of its own with performance_schema on
// (the statement digests and the statement history consumers on), and
// returns the mysql:// DSN of its database remodel, for user root without
// a password. The server is stopped and its directory removed when the
// test ends.
func MariaDB(t testing.TB) string {
	t.Helper()
	server, install, err := mariadbBins()
	if err != nil {
		unavailable(t, "%v", err)
	}
	dir, err := os.MkdirTemp("", "remodel-ownmy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data := filepath.Join(dir, "data")
	// A temporary directory of its own: a MariaDB server that starts
	// removes every #sql* file of its tmpdir, and in /tmp those are the
	// machine's server's temporary tables (its queries then fail, or it
	// crashes).
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	// --no-defaults first: the machine's my.cnf (its port, socket, datadir)
	// is not this server's.
	if err := run(nil, install, "--no-defaults", "--datadir="+data, "--tmpdir="+tmp, "--user="+u.Username,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"); err != nil {
		unavailable(t, "creating a MariaDB data directory: %v", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s, err := start(server, []string{"--no-defaults", "--datadir=" + data, "--tmpdir=" + tmp, "--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1", "--socket=" + filepath.Join(dir, "mysqld.sock"), "--pid-file=" + filepath.Join(dir, "mysqld.pid"),
		"--user=" + u.Username, "--skip-log-bin", "--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=0",
		"--performance-schema=ON", "--performance-schema-consumer-events-statements-current=ON",
		"--performance-schema-consumer-events-statements-history=ON", "--performance-schema-consumer-statements-digest=ON",
	}, nil, filepath.Join(dir, "server.log"))
	if err != nil {
		unavailable(t, "starting MariaDB: %v", err)
	}
	t.Cleanup(func() { s.stop(syscall.SIGTERM) })
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", fmt.Sprintf("127.0.0.1:%d", port), "root"
	err = s.ready(func(ctx context.Context) error {
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	})
	if err != nil {
		unavailable(t, "starting MariaDB on port %d: %v", port, err)
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE remodel CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("ownserver: creating the database remodel: %v", err)
	}
	return fmt.Sprintf("mysql://root@127.0.0.1:%d/remodel", port)
}
