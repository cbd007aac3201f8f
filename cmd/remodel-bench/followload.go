package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/introspect"
)

// The follow bench's source workload: transactions of one or two
// statements on the personalization example's tables, made by several
// connections, each owning its users (and the rows it inserts) so that no
// two connections wait on one row. It counts the rows each committed
// transaction changed (RowsAffected): the change stream carries exactly
// those, which is how the bench knows when the follower has applied all.
//
// The changes: a user's values; a setting's values; a setting inserted,
// deleted, or moved to another sort key (its setting_type, part of the
// primary key and of the item's SK, changes: the old item must go); a
// subscription inserted (or nothing, when the user has it) and deleted; a
// content's title; and a two-statement transaction inserting a user with a
// setting.

// opTimeout bounds one transaction of the workload.
const opTimeout = 10 * time.Second

// personalKey is a row of personal by its primary key.
type personalKey struct {
	user             int64
	service, setting string
}

// contentKey is a row of subscribe by its primary key.
type contentKey struct {
	service, ctype string
	origin         int64
}

// subscription is a row of subscribe_user by its primary key.
type subscription struct {
	user    int64
	content contentKey
}

// loadWorker is one connection's share of the rows.
type loadWorker struct {
	i        int // its connection: the workload's conns[i]
	rng      *rand.Rand
	users    []int64
	personal []personalKey
	contents []contentKey // whose titles it changes
	subs     []subscription
	made     int64 // rows changed by its committed transactions
}

// workload makes changes on the source.
type workload struct {
	conns    []sqlConn // one per worker
	engine   introspect.Engine
	services []string
	contents []contentKey // every content: any user may subscribe to one
	workers  []*loadWorker
	seq      atomic.Int64 // new ids and values
	made     atomic.Int64 // rows changed, every worker's
	txns     atomic.Int64
	mu       sync.Mutex
	errs     []error
	failed   int64
}

// openWorkload connects to the source and reads the keys the workers
// change, dealt out among workers connections.
func openWorkload(ctx context.Context, engine introspect.Engine, dsn string, workers int, seed uint64) (*workload, error) {
	w := &workload{engine: engine}
	for range workers {
		c, err := connect(ctx, engine, dsn)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.conns = append(w.conns, c)
	}
	if err := w.readKeys(ctx, workers, seed); err != nil {
		w.Close()
		return nil, err
	}
	w.seq.Store(time.Now().UnixMilli() % 1_000_000_000 * 1000) // ids no earlier bench run used
	return w, nil
}

// Close closes the workload's connections.
func (w *workload) Close() {
	for _, c := range w.conns {
		c.close()
	}
}

// sqlConn is one connection of the workload.
type sqlConn interface {
	// exec runs stmts in one transaction and returns the rows they changed.
	exec(ctx context.Context, stmts []string) (int64, error)
	// query calls row for each row of q, with the row's Scan.
	query(ctx context.Context, q string, row func(scan func(...any) error) error) error
	close()
}

// connect opens a connection on the source: pgx for PostgreSQL,
// go-sql-driver/mysql (a database/sql pool of one connection) for MySQL
// and MariaDB.
func connect(ctx context.Context, engine introspect.Engine, dsn string) (sqlConn, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	return benchEngineOf(engine).connect(ctx, dsn)
}

type pgConn struct{ c *pgx.Conn }

func (p pgConn) exec(ctx context.Context, stmts []string) (int64, error) {
	tx, err := p.c.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("bench: workload: beginning a transaction: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after the commit
	var n int64
	for _, s := range stmts {
		tag, err := tx.Exec(ctx, s)
		if err != nil {
			return 0, fmt.Errorf("bench: workload: %s: %w", s, err)
		}
		n += tag.RowsAffected()
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("bench: workload: committing: %w", err)
	}
	return n, nil
}

func (p pgConn) query(ctx context.Context, q string, row func(scan func(...any) error) error) error {
	rows, err := p.c.Query(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (p pgConn) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.c.Close(ctx)
}

type myConn struct{ db *sql.DB }

func (m myConn) exec(ctx context.Context, stmts []string) (int64, error) {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("bench: workload: beginning a transaction: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after the commit
	var n int64
	for _, s := range stmts {
		res, err := tx.ExecContext(ctx, s)
		if err != nil {
			return 0, fmt.Errorf("bench: workload: %s: %w", s, err)
		}
		k, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("bench: workload: %s: %w", s, err)
		}
		n += k
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("bench: workload: committing: %w", err)
	}
	return n, nil
}

func (m myConn) query(ctx context.Context, q string, row func(scan func(...any) error) error) error {
	rows, err := m.db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (m myConn) close() { _ = m.db.Close() }

// readKeys reads the services, users, settings and contents, and deals
// the users (with their settings) and the contents out to the workers.
func (w *workload) readKeys(ctx context.Context, workers int, seed uint64) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for i := range workers {
		w.workers = append(w.workers, &loadWorker{i: i, rng: rand.New(rand.NewPCG(seed, uint64(i)))})
	}
	owner := func(user int64) *loadWorker { return w.workers[int(user%int64(workers))] }
	c := w.conns[0]
	err := c.query(ctx, "SELECT service FROM services ORDER BY service", func(scan func(...any) error) error {
		var s string
		err := scan(&s)
		w.services = append(w.services, s)
		return err
	})
	if err == nil {
		err = c.query(ctx, "SELECT user_id FROM users", func(scan func(...any) error) error {
			var u int64
			err := scan(&u)
			owner(u).users = append(owner(u).users, u)
			return err
		})
	}
	if err == nil {
		err = c.query(ctx, "SELECT user_id, service, setting_type FROM personal", func(scan func(...any) error) error {
			var k personalKey
			err := scan(&k.user, &k.service, &k.setting)
			owner(k.user).personal = append(owner(k.user).personal, k)
			return err
		})
	}
	if err == nil {
		err = c.query(ctx, "SELECT service, content_type, content_origin_id FROM subscribe", func(scan func(...any) error) error {
			var k contentKey
			err := scan(&k.service, &k.ctype, &k.origin)
			lw := w.workers[len(w.contents)%workers]
			lw.contents = append(lw.contents, k)
			w.contents = append(w.contents, k)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("bench: workload: reading the source's keys: %w", err)
	}
	if len(w.services) == 0 || len(w.contents) == 0 {
		return errors.New("bench: workload: the source has no services or no contents (subscribe): is it the personalization example's data?")
	}
	for i, lw := range w.workers {
		if len(lw.users) == 0 {
			return fmt.Errorf("bench: workload: worker %d of %d has no users: the source has too few", i+1, workers)
		}
	}
	return nil
}

// runUntil makes changes as fast as the source takes them until n rows
// have changed (a few more: the transactions under way finish), and
// returns how many did.
func (w *workload) runUntil(ctx context.Context, n int64) int64 {
	start := w.made.Load()
	var wg sync.WaitGroup
	for _, lw := range w.workers {
		wg.Go(func() {
			for ctx.Err() == nil && w.made.Load()-start < n {
				w.change(ctx, lw)
			}
		})
	}
	wg.Wait()
	return w.made.Load() - start
}

// runAt makes changes at rate rows changed per second, spread over the
// workers, until stop is closed or ctx is done; it returns the rows
// changed. Each worker makes a transaction on a tick when it is behind its
// share (paceWorkers): a slow source makes the rate fall short (the bench
// reports the rate achieved), not burst.
func (w *workload) runAt(ctx context.Context, rate float64, stop <-chan struct{}) int64 {
	start := w.made.Load()
	paceWorkers(ctx, w.workers, rate, stop,
		func(lw *loadWorker) int64 { return lw.made },
		func(lw *loadWorker) { w.change(ctx, lw) },
		nil)
	return w.made.Load() - start
}

// change makes one transaction of lw's, and counts the rows it changed
// once it is committed. A failed transaction is rolled back: it changed
// nothing, and the bench reports it.
func (w *workload) change(ctx context.Context, lw *loadWorker) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	stmts, commit := w.next(lw)
	n, err := w.conns[lw.i].exec(ctx, stmts)
	if err != nil {
		if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			w.mu.Lock()
			w.failed++
			if len(w.errs) < 3 {
				w.errs = append(w.errs, err)
			}
			w.mu.Unlock()
		}
		return
	}
	commit()
	lw.made += n
	w.made.Add(n)
	w.txns.Add(1)
}

// failures is the transactions that failed, with the first errors.
func (w *workload) failures() (int64, []error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed, append([]error(nil), w.errs...)
}

// next picks lw's next transaction: its statements, and what to record
// in lw's keys once it is committed.
func (w *workload) next(lw *loadWorker) ([]string, func()) {
	seq := w.seq.Add(1)
	now := sqlString(time.Now().UTC().Format("2006-01-02 15:04:05"))
	settings := sqlString(fmt.Sprintf(`{"bench": %d}`, seq))
	user := lw.users[lw.rng.IntN(len(lw.users))]
	nothing := func() {}
	switch k := lw.rng.IntN(10); {
	case k == 0:
		return []string{fmt.Sprintf("UPDATE users SET name = 'bench %d', is_active = NOT is_active WHERE user_id = %d", seq, user)}, nothing
	case k <= 2 && len(lw.personal) > 0:
		p := lw.personal[lw.rng.IntN(len(lw.personal))]
		return []string{fmt.Sprintf("UPDATE personal SET settings = %s, updated_at = %s WHERE %s", settings, now, p.where())}, nothing
	case k == 3:
		p := personalKey{user: user, service: w.services[lw.rng.IntN(len(w.services))], setting: fmt.Sprintf("b%d", seq)}
		return []string{p.insert(settings, now)}, func() { lw.personal = append(lw.personal, p) }
	case k == 4 && len(lw.personal) > 0:
		i := lw.rng.IntN(len(lw.personal))
		return []string{"DELETE FROM personal WHERE " + lw.personal[i].where()}, func() { lw.personal = remove(lw.personal, i) }
	case k == 5 && len(lw.personal) > 0: // the item's sort key moves
		i := lw.rng.IntN(len(lw.personal))
		p := lw.personal[i]
		moved := fmt.Sprintf("m%d", seq)
		return []string{fmt.Sprintf("UPDATE personal SET setting_type = '%s' WHERE %s", moved, p.where())}, func() { lw.personal[i].setting = moved }
	case k == 6:
		s := subscription{user: user, content: w.contents[lw.rng.IntN(len(w.contents))]}
		return []string{w.subscribe(s, now)}, func() { lw.subs = append(lw.subs, s) }
	case k == 7 && len(lw.subs) > 0:
		i := lw.rng.IntN(len(lw.subs))
		return []string{"DELETE FROM subscribe_user WHERE " + lw.subs[i].where()}, func() { lw.subs = remove(lw.subs, i) }
	case k == 8 && len(lw.contents) > 0:
		c := lw.contents[lw.rng.IntN(len(lw.contents))]
		return []string{fmt.Sprintf("UPDATE subscribe SET title = 'bench %d' WHERE %s", seq, c.where())}, nothing
	default: // two statements: a new user of lw's, with a setting
		id := 1_000_000_000_000 + seq*int64(len(w.workers)) + int64(lw.i) // its id modulo the workers names its owner, as for the users read at the start
		p := personalKey{user: id, service: w.services[lw.rng.IntN(len(w.services))], setting: "first"}
		return []string{
			fmt.Sprintf("INSERT INTO users (user_id, email, name, is_active, created_at) VALUES (%d, 'bench%d@example.com', 'bench %d', true, %s)", id, id, seq, now),
			p.insert(settings, now),
		}, func() { lw.users = append(lw.users, id); lw.personal = append(lw.personal, p) }
	}
}

func (p personalKey) where() string {
	return fmt.Sprintf("user_id = %d AND service = %s AND setting_type = %s", p.user, sqlString(p.service), sqlString(p.setting))
}

func (p personalKey) insert(settings, now string) string {
	return fmt.Sprintf("INSERT INTO personal (user_id, service, setting_type, settings, updated_at) VALUES (%d, %s, %s, %s, %s)",
		p.user, sqlString(p.service), sqlString(p.setting), settings, now)
}

func (c contentKey) where() string {
	return fmt.Sprintf("service = %s AND content_type = %s AND content_origin_id = %d", sqlString(c.service), sqlString(c.ctype), c.origin)
}

func (s subscription) where() string {
	return fmt.Sprintf("user_id = %d AND %s", s.user, s.content.where())
}

// subscribe inserts s, or nothing when the user has it already.
func (w *workload) subscribe(s subscription, now string) string {
	c := s.content
	values := fmt.Sprintf("(user_id, service, content_type, content_origin_id, subscribed_at) VALUES (%d, %s, %s, %d, %s)",
		s.user, sqlString(c.service), sqlString(c.ctype), c.origin, now)
	return benchEngineOf(w.engine).insertIgnore("subscribe_user", values)
}

// sqlString quotes s as an SQL string literal (the keys are the
// generator's: letters, digits, _ and -; a quote is doubled anyway).
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// remove drops s[i], not keeping the order.
func remove[T any](s []T, i int) []T {
	s[i] = s[len(s)-1]
	return s[:len(s)-1]
}
