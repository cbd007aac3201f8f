package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestLeftover(t *testing.T) {
	dead := deadPID(t)
	for name, want := range map[string]bool{
		fmt.Sprintf("remodel_test_p%d_0123456789ab", dead):         true,
		fmt.Sprintf("postgis_test_p%d_0123456789ab", dead):         true,
		fmt.Sprintf("remodel_test_p%d_0123456789ab", os.Getppid()): false, // alive
		fmt.Sprintf("remodel_test_p%d_0123456789ab", os.Getpid()):  false, // this process
		fmt.Sprintf("shop_p%d_0123456789ab", dead):                 false, // not a test database
		"remodel_test_0123456789ab":                                false, // no pid: not ours to judge
	} {
		if got := leftover(name); got != want {
			t.Errorf("leftover(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestSweep: a database of a process that is gone is dropped by the first
// database a process creates; one of a live process is not.
func TestSweep(t *testing.T) {
	dead, alive := deadPID(t), os.Getppid()
	t.Run("postgres", func(t *testing.T) {
		admin := need(t, "REMODEL_TEST_POSTGRES")
		ctx := context.Background()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		gone, live := fmt.Sprintf("remodel_test_p%d_00000000beef", dead), fmt.Sprintf("remodel_test_p%d_00000000cafe", alive)
		for _, n := range []string{gone, live} {
			if _, err := c.Exec(ctx, "CREATE DATABASE "+n); err != nil {
				t.Fatal(err)
			}
		}
		defer func() { _ = dropPostgres(context.Background(), c, live) }() // before c closes
		dropped, err := sweepPostgres(ctx, c, dropPostgres)
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := c.Query(ctx, "SELECT datname FROM pg_database WHERE datname IN ($1, $2)", gone, live)
		left, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(dropped, gone) || slices.Contains(dropped, live) || strings.Join(left, ",") != live {
			t.Fatalf("dropped %v, left %v; want %s dropped and %s left", dropped, left, gone, live)
		}
	})
	t.Run("mysql", func(t *testing.T) {
		admin := need(t, "REMODEL_TEST_MYSQL")
		cfg := MySQLConfig(t, admin)
		cfg.DBName = ""
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		gone, live := fmt.Sprintf("remodel_test_p%d_00000000beef", dead), fmt.Sprintf("remodel_test_p%d_00000000cafe", alive)
		for _, n := range []string{gone, live} {
			if _, err := db.Exec("CREATE DATABASE " + n); err != nil {
				t.Fatal(err)
			}
		}
		defer func() { _, _ = db.Exec("DROP DATABASE IF EXISTS " + live) }() // before db closes
		dropped, err := sweepMySQL(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		rows, err := db.Query("SELECT schema_name FROM information_schema.schemata WHERE schema_name IN (?, ?)", gone, live)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var n string
			_ = rows.Scan(&n)
			left = append(left, n)
		}
		rows.Close()
		if !slices.Contains(dropped, gone) || slices.Contains(dropped, live) || strings.Join(left, ",") != live {
			t.Fatalf("dropped %v, left %v; want %s dropped and %s left", dropped, left, gone, live)
		}
	})
}
