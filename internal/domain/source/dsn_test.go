package source

import (
	"strings"
	"testing"
)

const secret = "s3cr3tPW"

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		dsn  string
		keep []string // parts that must survive, so the message still says which DSN
	}{
		{"postgres://alice:s3cr3tPW@db.example:5432/shop?sslmode=disable", []string{"postgres://", "alice", "db.example:5432", "/shop", "sslmode=disable"}},
		{"postgresql://alice:s3cr3tPW@db.example/shop", []string{"postgresql://", "alice", "db.example", "/shop"}},
		{"postgres://alice:s3cr%40tPW%2Fx@db.example/shop", []string{"alice", "db.example"}},
		{"postgres://alice@db.example/shop?password=s3cr3tPW&sslmode=disable", []string{"alice", "db.example", "sslmode=disable"}},
		{"postgres://alice:s3cr3tPW@db.example:notaport/shop", []string{"postgres://alice:xxxxx@db.example:notaport/shop"}},
		{"postgres://alice:s3cr/3tPW@db.example:notaport/shop", []string{"postgres://alice:xxxxx@db.example:notaport/shop"}},
		{"host=db.example user=alice password=s3cr3tPW dbname=shop", []string{"host=db.example", "user=alice", "dbname=shop"}},
		{"host=db.example password='s3cr3tPW and more' dbname=shop", []string{"host=db.example", "dbname=shop"}},
		{"mysql://root:s3cr3tPW@127.0.0.1:3306/shop?tls=false", []string{"mysql://", "root", "127.0.0.1:3306", "/shop", "tls=false"}},
		{"mysql://root:s3cr3tPW@127.0.0.1:notaport/shop", []string{"mysql://root:xxxxx@127.0.0.1:notaport/shop"}},
		{"root:s3cr3tPW@tcp(127.0.0.1:3306)/shop", []string{"root:", "@tcp(127.0.0.1:3306)/shop"}},
		{"my_user:s3cr3tPW@tcp(db:3306)/shop?parseTime=true", []string{"my_user:", "@tcp(db:3306)/shop?parseTime=true"}},
		{"root:s3cr3tPW@unix(/var/run/mysqld/mysqld.sock)/shop", []string{"root:", "@unix(/var/run/mysqld/mysqld.sock)/shop"}},
		{"root:s3cr3tPW@tcp(127.0.0.1:3306)", []string{"root:", "@tcp(127.0.0.1:3306)"}},
		// go-sql-driver takes the password up to the last @ before the last /.
		{"root:s3cr@3tPW@tcp(127.0.0.1:3306)/shop", []string{"root:", "@tcp(127.0.0.1:3306)/shop"}},
		{"root:s3c:r3tPW@tcp(127.0.0.1:3306)/shop", []string{"root:", "@tcp(127.0.0.1:3306)/shop"}},
	} {
		got := Redact(tc.dsn)
		for _, leak := range []string{secret, "s3cr", "3tPW", "r3tPW"} {
			if strings.Contains(got, leak) {
				t.Errorf("Redact(%q) = %q: shows (part of) the password", tc.dsn, got)
				break
			}
		}
		for _, k := range tc.keep {
			if !strings.Contains(got, k) {
				t.Errorf("Redact(%q) = %q: lost %q", tc.dsn, got, k)
			}
		}
	}
}

func TestRedactWithoutPassword(t *testing.T) {
	for _, dsn := range []string{
		"postgres://alice@db.example:5432/shop?sslmode=disable",
		"mysql://root@127.0.0.1:3306/shop",
		"root@tcp(127.0.0.1:3306)/shop",
		"tcp(127.0.0.1:3306)/shop",
		"host=db.example user=alice",
	} {
		if got := Redact(dsn); got != dsn {
			t.Errorf("Redact(%q) = %q, want it unchanged", dsn, got)
		}
	}
}
