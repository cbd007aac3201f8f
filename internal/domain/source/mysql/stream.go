package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/go-sql-driver/mysql"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// Following a MySQL or MariaDB source (migrate --follow) reads its binary
// log as a replica does (COM_BINLOG_DUMP, go-mysql's replication package):
//
//   - There is no slot. Where a stream stands is remodel's own: the copy's
//     snapshot position (FollowStart.Position), then the last position the
//     follower applied, saved in its checkpoint and given back to
//     OpenStream as FollowOptions.From. The server keeps nothing for the
//     follower: a binlog purged (binlog_expire_logs_seconds,
//     expire_logs_days, PURGE BINARY LOGS) before the follower read it
//     loses its changes, which OpenStream says.
//   - A Position is "FILE:OFFSET", or "FILE:OFFSET gtid STATE" where the
//     server keeps GTIDs (MariaDB's gtid_binlog_pos, MySQL's
//     gtid_executed): the place after a transaction. A stream starts from
//     the GTID state when there is one (it names the place on a failover
//     replica too), else from the file and offset. Positions of one server
//     are ordered by file and offset (binlogPos.compare).
//   - The copy's snapshot and its position are one cut: on MariaDB each
//     reader's START TRANSACTION WITH CONSISTENT SNAPSHOT records the
//     binlog position it sees (binlog_snapshot_file and _position), and
//     the readers are taken under FLUSH TABLES WITH READ LOCK (as Snapshot
//     takes several) or, without the RELOAD privilege, again until all of
//     them report one position. MySQL has no such status: its readers
//     start under the read lock, and SHOW MASTER STATUS read under it is
//     their position. (MySQL 8 is untested here; MariaDB 10.11 is.)
//   - The binlog gives a row's columns by position, not by name: they are
//     matched to the columns introspect read (ordinal order), whose count
//     must be the binlog's. Values are turned into the canonical values
//     ScanTable reads: the syncer is asked for dates and times as the text
//     the server prints (ParseTime off, TIMESTAMP in UTC) and decimals as
//     their text (UseDecimal off: a decimal.Decimal drops the trailing
//     zeros of the column's scale), and that text goes through decodeText
//     as ScanTable's does, zero dates included; ENUM and SET arrive as an
//     index and a bitmap, mapped through the column's members.
//   - Every rows event of a followed table is checked (stream_check.go):
//     an image without every column (a session's binlog_row_image MINIMAL
//     or NOBLOB), a partial JSON value or other columns than remodel read
//     stop the stream with a *StopError. Compressed events (MySQL's
//     transaction payloads, MariaDB's log_bin_compress) are decompressed
//     by go-mysql and handled as the others.
//   - Where the stream stands against the server (Head, Status) is in
//     stream_head.go.

// myHeartbeat is how often the server is asked to send a heartbeat on a
// binlog stream that has nothing to send; a stream silent for
// myReadTimeout (or the set-up deadline, if longer) is dead. (Variables
// for the tests.)
var (
	myHeartbeat   = 10 * time.Second
	myReadTimeout = 3 * myHeartbeat
)

// myReconnects is how many times in a row a stream whose connection broke
// opens a new one (from the end of the last whole transaction) before it
// gives up.
const myReconnects = 3

// binlogPos is a place in a server's binary log: a file and the offset of
// the next event in it, and the GTID state there ("" when the server keeps
// none).
type binlogPos struct {
	File string
	Pos  uint32
	GTID string
}

// String is the Position form of p.
func (p binlogPos) String() string {
	s := p.File + ":" + strconv.FormatUint(uint64(p.Pos), 10)
	if p.GTID != "" {
		s += " gtid " + p.GTID
	}
	return s
}

// parseBinlogPos reads a Position of a MySQL stream.
func parseBinlogPos(p source.Position) (binlogPos, error) {
	s, gtid, _ := strings.Cut(string(p), " gtid ")
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return binlogPos{}, fmt.Errorf("source: %q is not a MySQL binlog position (FILE:OFFSET)", p)
	}
	n, err := strconv.ParseUint(s[i+1:], 10, 32)
	if err != nil {
		return binlogPos{}, fmt.Errorf("source: %q is not a MySQL binlog position (FILE:OFFSET)", p)
	}
	return binlogPos{File: s[:i], Pos: uint32(n), GTID: strings.TrimSpace(gtid)}, nil
}

// compare orders p and q, positions of one server: by file (by the number
// after its last dot, which the server counts up), then by offset. The
// GTID state is not compared: it follows the file and offset.
func (p binlogPos) compare(q binlogPos) int {
	if p.File != q.File {
		pb, pn := binlogSeq(p.File)
		qb, qn := binlogSeq(q.File)
		if pb == qb && pn >= 0 && qn >= 0 && pn != qn {
			if pn < qn {
				return -1
			}
			return 1
		}
		return strings.Compare(p.File, q.File)
	}
	switch {
	case p.Pos < q.Pos:
		return -1
	case p.Pos > q.Pos:
		return 1
	}
	return 0
}

// binlogSeq splits a binlog file name into its base and its number
// (binlog.000012: binlog, 12); n is -1 when it has none.
func binlogSeq(file string) (base string, n int64) {
	i := strings.LastIndexByte(file, '.')
	if i < 0 {
		return file, -1
	}
	v, err := strconv.ParseInt(file[i+1:], 10, 64)
	if err != nil {
		return file, -1
	}
	return file[:i], v
}

// isMariaDB reports whether the server is MariaDB.
func (s *mySource) isMariaDB(ctx context.Context) (bool, error) {
	var v string
	err := s.step(ctx, "reading the server version", func(ctx context.Context) error {
		return s.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v)
	})
	if err != nil {
		return false, source.Worded("reading the server version", err)
	}
	return strings.Contains(strings.ToLower(v), "mariadb"), nil
}

// CheckFollow checks that the server writes a binlog of whole rows (log_bin,
// binlog_format=ROW, binlog_row_image=FULL), that the user may read it
// (REPLICATION SLAVE) and ask where it is (REPLICATION CLIENT, MariaDB's
// BINLOG MONITOR), on MySQL that it may take the read lock that places the
// copy in the binlog (RELOAD), and that the binlog's form of every followed
// table's primary key can be read.
func (s *mySource) CheckFollow(ctx context.Context, o source.FollowOptions) error {
	return s.step(ctx, "checking that changes can be followed", func(ctx context.Context) error {
		var logBin, format, image sql.NullString
		err := s.db.QueryRowContext(ctx, "SELECT @@GLOBAL.log_bin, @@GLOBAL.binlog_format, @@GLOBAL.binlog_row_image").Scan(&logBin, &format, &image)
		if err != nil {
			return fmt.Errorf("source: reading the binlog settings: %w", err)
		}
		if err := checkBinlogSettings(s.where(), logBin.String, format.String, image.String); err != nil {
			return err
		}
		maria, err := s.isMariaDB(ctx)
		if err != nil {
			return err
		}
		var user string
		if err := s.db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user); err != nil {
			return fmt.Errorf("source: reading the current user: %w", err)
		}
		grants, err := s.grants(ctx)
		if err != nil {
			return err
		}
		if err := checkFollowGrants(grants, user, maria); err != nil {
			return err
		}
		var refused []string
		for _, t := range o.Tables {
			for _, name := range t.PrimaryKey {
				for _, c := range t.Columns {
					if c.Name == name && c.Expr == "" {
						if why := binlogUnreadable(c); why != "" {
							refused = append(refused, fmt.Sprintf("column %s of %s (%s)", c.Name, t.QualifiedName(), why))
						}
					}
				}
			}
		}
		if len(refused) > 0 {
			return fmt.Errorf("source: following changes finds rows by their primary key in the binlog, and the binlog's form of %s is not read: migrate these tables without --follow", strings.Join(refused, "; "))
		}
		return nil
	})
}

// checkBinlogSettings refuses a server whose binlog does not hold whole rows.
func checkBinlogSettings(where, logBin, format, image string) error {
	if logBin != "1" && !strings.EqualFold(logBin, "ON") {
		return fmt.Errorf("source: following changes reads the binary log, which %s does not write (log_bin is off): start the server with --log-bin (and a --server-id) and restart", where)
	}
	if !strings.EqualFold(format, "ROW") {
		return fmt.Errorf("source: following changes needs binlog_format=ROW on %s, which has %s: set binlog_format=ROW (server option --binlog-format=ROW) and restart", where, format)
	}
	if !strings.EqualFold(image, "FULL") {
		return fmt.Errorf("source: following changes needs binlog_row_image=FULL on %s, which has %s: set binlog_row_image=FULL (server option --binlog-row-image=FULL) and restart", where, image)
	}
	return nil
}

// grants are the lines of SHOW GRANTS for the current user.
func (s *mySource) grants(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		return nil, fmt.Errorf("source: reading the user's privileges: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("source: reading the user's privileges: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("source: reading the user's privileges: %w", err)
	}
	return out, nil
}

// globalPrivileges are the privileges SHOW GRANTS lines grant ON *.*, in
// upper case.
func globalPrivileges(grants []string) map[string]bool {
	have := map[string]bool{}
	for _, g := range grants {
		rest, ok := strings.CutPrefix(strings.TrimSpace(g), "GRANT ")
		if !ok {
			continue
		}
		privs, obj, ok := strings.Cut(rest, " ON ")
		if !ok || !strings.HasPrefix(strings.TrimSpace(obj), "*.* TO ") {
			continue
		}
		for _, p := range strings.Split(privs, ",") {
			have[strings.ToUpper(strings.TrimSpace(p))] = true
		}
	}
	return have
}

// checkFollowGrants refuses a user without the privileges following needs:
// REPLICATION SLAVE to read the binlog, REPLICATION CLIENT (MariaDB: its
// new name BINLOG MONITOR) to ask where it is and which files it has, and
// on MySQL RELOAD, whose FLUSH TABLES WITH READ LOCK is the only way there
// to know where a snapshot is in the binlog.
func checkFollowGrants(grants []string, user string, maria bool) error {
	have := globalPrivileges(grants)
	if have["ALL PRIVILEGES"] || have["ALL"] {
		return nil
	}
	var missing []string
	if !have["REPLICATION SLAVE"] {
		missing = append(missing, "REPLICATION SLAVE")
	}
	if !have["REPLICATION CLIENT"] && !have["BINLOG MONITOR"] {
		missing = append(missing, "REPLICATION CLIENT")
	}
	if !maria && !have["RELOAD"] {
		missing = append(missing, "RELOAD")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("source: following changes needs the %s privilege%s, which user %s does not have: GRANT %s ON *.* TO %s",
		strings.Join(missing, ", "), map[bool]string{true: "s", false: ""}[len(missing) > 1], user, strings.Join(missing, ", "), myAccount(user))
}

// myAccount quotes CURRENT_USER()'s user@host as 'user'@'host'.
func myAccount(user string) string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	i := strings.LastIndexByte(user, '@')
	if i < 0 {
		return q(user)
	}
	return q(user[:i]) + "@" + q(user[i+1:])
}

// binlogUnreadable says why the binlog's form of column c is not turned
// into its canonical value, or "".
func binlogUnreadable(c *introspect.Column) string {
	switch t := strings.ToLower(c.Type); {
	case c.Kind == introspect.KindGeometry:
		return "a spatial value, in the engine's binary form"
	case t == "uuid" || t == "inet4" || t == "inet6":
		return "MariaDB's " + t + ", in binary form"
	case c.Charset != "" && !strings.EqualFold(c.Charset, "latin1") && !strings.EqualFold(c.Charset, "ascii"):
		return "text in character set " + c.Charset + ", which is not converted"
	}
	return ""
}

// StartFollow opens n readers in one snapshot and finds where that
// snapshot is in the binlog: the stream's first change is the first one
// the readers do not see. Nothing is created on the server.
func (s *mySource) StartFollow(ctx context.Context, o source.FollowOptions, n int) (source.FollowStart, error) {
	n = max(n, 1)
	maria, err := s.isMariaDB(ctx)
	if err != nil {
		return source.FollowStart{}, err
	}
	const tries = 5
	for attempt := 1; ; attempt++ {
		var pos binlogPos
		var apart bool
		// MySQL needs the lock even for one reader: it is how its position
		// is known. MariaDB's readers each know theirs.
		snap, err := s.snapshot(ctx, n, !maria || n > 1, func(ctx context.Context, snap *mySnapshot, locked bool) (err error) {
			pos, apart, err = s.cutPosition(ctx, snap, locked, maria)
			return err
		})
		if err != nil {
			return source.FollowStart{}, err
		}
		if !apart {
			// The readers saw one point of the binlog, locked or not.
			snap.warning = ""
			if maria {
				// Read with the lock released: the server reads the binlog
				// file up to the position to know it.
				if pos.GTID, err = s.gtidAt(ctx, snap.readers[0].conn, pos); err != nil {
					snap.Close()
					return source.FollowStart{}, err
				}
			}
			return source.FollowStart{Snapshot: snap, Position: source.Position(pos.String())}, nil
		}
		warning := snap.warning
		snap.Close()
		if attempt == tries {
			return source.FollowStart{}, fmt.Errorf("source: the %d readers of the copy took their snapshots at different points of the binlog %d times (writes came between them; %s): grant the user RELOAD, whose FLUSH TABLES WITH READ LOCK holds writes back for a moment, or copy with one reader", n, tries, warning)
		}
	}
}

// cutPosition is the binlog position of the snapshot's readers; apart says
// that they do not share one (MariaDB without the lock: a write came
// between their snapshots).
func (s *mySource) cutPosition(ctx context.Context, snap *mySnapshot, locked, maria bool) (pos binlogPos, apart bool, err error) {
	const doing = "reading the binlog position of the snapshot"
	err = s.step(ctx, doing, func(ctx context.Context) error {
		if !maria {
			if !locked {
				return fmt.Errorf("source: following changes of MySQL needs FLUSH TABLES WITH READ LOCK for a moment, to know where the copy's snapshot is in the binlog (%s): grant the user RELOAD", snap.warning)
			}
			var err error
			pos, err = masterStatus(ctx, snap.readers[0].conn)
			return err
		}
		for i, r := range snap.readers {
			vars, err := showVars(ctx, r.conn, "SHOW SESSION STATUS LIKE 'binlog_snapshot_%'")
			if err != nil {
				return err
			}
			n, err := strconv.ParseUint(vars["binlog_snapshot_position"], 10, 32)
			if err != nil || vars["binlog_snapshot_file"] == "" {
				return fmt.Errorf("source: the server shows no binlog position of the snapshot (binlog_snapshot_file %q, binlog_snapshot_position %q)", vars["binlog_snapshot_file"], vars["binlog_snapshot_position"])
			}
			p := binlogPos{File: vars["binlog_snapshot_file"], Pos: uint32(n)}
			if i == 0 {
				pos = p
			} else if p != pos {
				apart = true
				return nil
			}
		}
		return nil
	})
	return pos, apart, source.Worded(doing, err)
}

// gtidAt is MariaDB's GTID state at pos ("" when its binlog has none).
func (s *mySource) gtidAt(ctx context.Context, c *sql.Conn, pos binlogPos) (string, error) {
	var gtid sql.NullString
	err := s.step(ctx, "reading the GTID state of "+pos.String(), func(ctx context.Context) error {
		return c.QueryRowContext(ctx, "SELECT BINLOG_GTID_POS(?, ?)", pos.File, pos.Pos).Scan(&gtid)
	})
	return gtid.String, source.Worded("reading the GTID state of "+pos.String(), err)
}

// masterStatus is the server's binlog position (SHOW MASTER STATUS, on
// MySQL 8.4 SHOW BINARY LOG STATUS) with MySQL's executed GTID set.
func masterStatus(ctx context.Context, c *sql.Conn) (binlogPos, error) {
	row, err := showRow(ctx, c, "SHOW MASTER STATUS")
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1064 { // MySQL 8.4 has only the new name
		row, err = showRow(ctx, c, "SHOW BINARY LOG STATUS")
	}
	if err != nil {
		return binlogPos{}, err
	}
	if row == nil || row["File"] == "" {
		return binlogPos{}, errors.New("source: SHOW MASTER STATUS shows no binlog: is log_bin on?")
	}
	n, err := strconv.ParseUint(row["Position"], 10, 32)
	if err != nil {
		return binlogPos{}, fmt.Errorf("source: SHOW MASTER STATUS: position %q", row["Position"])
	}
	p := binlogPos{File: row["File"], Pos: uint32(n)}
	if g := strings.Join(strings.Fields(row["Executed_Gtid_Set"]), ""); g != "" {
		set, err := gomysql.ParseMysqlGTIDSet(g)
		if err != nil {
			return binlogPos{}, fmt.Errorf("source: reading the executed GTID set %q: %w", g, err)
		}
		p.GTID = set.String()
	}
	return p, nil
}

// showRow reads the one row of a SHOW statement by column name (nil: no
// row).
func showRow(ctx context.Context, c *sql.Conn, q string) (map[string]string, error) {
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, rows.Err()
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, name := range cols {
		out[name] = vals[i].String
	}
	return out, rows.Err()
}

// showVars reads the Variable_name, Value rows of a SHOW STATUS or SHOW
// VARIABLES statement, the names in lower case.
func showVars(ctx context.Context, c *sql.Conn, q string) (map[string]string, error) {
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name string
		var value sql.NullString
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		out[strings.ToLower(name)] = value.String
	}
	return out, rows.Err()
}

// binaryLogs are the binlog files the server has (SHOW BINARY LOGS).
func (s *mySource) binaryLogs(ctx context.Context) ([]string, error) {
	var files []string
	err := s.step(ctx, "listing the binlog files", func(ctx context.Context) error {
		rows, err := s.db.QueryContext(ctx, "SHOW BINARY LOGS")
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			return err
		}
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			files = append(files, string(vals[0]))
		}
		return rows.Err()
	})
	return files, source.Worded("listing the binlog files (SHOW BINARY LOGS)", err)
}

// checkKept refuses to start a stream at from when the server no longer has
// its binlog file. A file of another name (a failover replica's) is left to
// the GTID state, when there is one.
func (s *mySource) checkKept(ctx context.Context, from binlogPos) error {
	files, err := s.binaryLogs(ctx)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f == from.File {
			return nil
		}
	}
	base, _ := binlogSeq(from.File)
	sameServer := from.GTID == ""
	for _, f := range files {
		if b, _ := binlogSeq(f); b == base {
			sameServer = true
		}
	}
	if !sameServer {
		return nil
	}
	oldest := "none"
	if len(files) > 0 {
		oldest = files[0]
	}
	return fmt.Errorf("source: binlog %s, where the changes to follow start (%s), is not on %s any more (its oldest binlog is %s): it was purged, and the changes since are lost; migrate again without --resume", from.File, from, s.where(), oldest)
}

// mySlotServerID is the server_id the stream of slot registers with: a
// replica's id must be unique among the server's replicas and differ from
// the server's own. It is a hash of the slot name with the high bit set,
// far from the small ids people give servers (and never 0).
func mySlotServerID(slot string, serverID uint32) uint32 {
	h := fnv.New32a()
	h.Write([]byte("remodel " + slot))
	id := h.Sum32() | 1<<31
	if id == serverID {
		id ^= 1
	}
	return id
}

// OpenStream starts reading the binlog from o.From (the position the
// follower applied last, or the copy's start), after checking that the
// server still has it.
func (s *mySource) OpenStream(ctx context.Context, o source.FollowOptions) (source.Stream, error) {
	if o.From == "" {
		return nil, errors.New("source: following MySQL changes needs the position to start from (the checkpoint's), and none was given")
	}
	from, err := parseBinlogPos(o.From)
	if err != nil {
		return nil, err
	}
	maria, err := s.isMariaDB(ctx)
	if err != nil {
		return nil, err
	}
	var serverID uint32
	err = s.step(ctx, "reading server_id", func(ctx context.Context) error {
		return s.db.QueryRowContext(ctx, "SELECT @@server_id").Scan(&serverID)
	})
	if err != nil {
		return nil, source.Worded("reading server_id", err)
	}
	if err := s.checkKept(ctx, from); err != nil {
		return nil, err
	}
	st := &myStream{
		src:      s,
		slot:     o.Slot,
		maria:    maria,
		id:       mySlotServerID(o.Slot, serverID),
		tables:   map[string]*myFollowed{},
		acked:    from,
		handed:   from,
		source:   from,
		received: from,
		part:     o.PartSize(),
	}
	for _, t := range o.Tables {
		f := &myFollowed{t: t}
		for i, c := range t.Columns {
			if c.Expr == "" && c.Read == "" {
				f.stored = append(f.stored, i)
			}
		}
		st.tables[t.Schema+"."+t.Name] = f
	}
	if err := st.open(ctx, from); err != nil {
		return nil, err
	}
	return st, nil
}

// DropFollow has nothing to drop: a MySQL stream keeps nothing on the
// server (no slot; the position is the follower's checkpoint, and the
// binlog is kept by the server's own expiry settings).
func (s *mySource) DropFollow(ctx context.Context, o source.FollowOptions, dropPublication bool) (bool, error) {
	return false, nil
}

// myFollowed is a followed table: the indexes in t.Columns of its stored
// columns, the binlog's columns in order.
type myFollowed struct {
	t      *introspect.Table
	stored []int
}

// myTxn is the transaction being received.
type myTxn struct {
	source.Txn
	parts      int  // parts handed out already (MaxTxnPart)
	begun      bool // a BEGIN query started it (MySQL): a DDL does not end it
	standalone bool // MariaDB's GTID of a statement alone (DDL): its query ends it
}

// myStream reads a server's binlog as a replica with its own server_id.
type myStream struct {
	src    *mySource
	slot   string
	maria  bool
	id     uint32
	tables map[string]*myFollowed

	syncer  *replication.BinlogSyncer
	events  *replication.BinlogStreamer
	file    string          // the binlog file being read
	gtid    gomysql.GTIDSet // the GTID state after the last GTID event; nil: positions only
	cur     *myTxn
	retries int // reconnections since the last whole transaction
	// inPayload is set while the events of a compressed transaction
	// payload are handled: its transaction is not handed out in parts.
	inPayload bool
	part      int // how many changes a part holds (FollowOptions.TxnPart)

	mu     sync.Mutex
	acked  binlogPos // what the follower applied (Ack)
	handed binlogPos // the end of the last whole transaction received
	source binlogPos // the last event's position
	// received is where every event before is received whole: the end of
	// the last event after which no transaction was open (a transaction's
	// end, a heartbeat), with the GTID state there.
	received binlogPos
	pending  []myPending
	heads    myHeads // the server's head as Head read it
}

type myPending struct {
	end    binlogPos
	commit time.Time
}

// open starts the syncer at from.
func (st *myStream) open(ctx context.Context, from binlogPos) error {
	s := st.src
	host, port, user := s.cfg.Addr, uint16(0), s.cfg.User
	if s.cfg.Net != "unix" {
		h, p, err := net.SplitHostPort(s.cfg.Addr)
		if err != nil {
			return fmt.Errorf("source: %s is not host:port: %w", s.cfg.Addr, err)
		}
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return fmt.Errorf("source: %s is not host:port", s.cfg.Addr)
		}
		host, port = h, uint16(n)
	}
	connect := s.Deadlines.ConnectTimeout()
	network, addr := s.cfg.Net, s.cfg.Addr
	flavor := gomysql.MySQLFlavor
	if st.maria {
		flavor = gomysql.MariaDBFlavor
	}
	cfg := replication.BinlogSyncerConfig{
		ServerID:  st.id,
		Flavor:    flavor,
		Host:      host,
		Port:      port,
		User:      user,
		Password:  s.cfg.Passwd,
		Localhost: "remodel " + st.slot,
		TLSConfig: s.cfg.TLS,
		// Dates and times as the server prints them, TIMESTAMP in UTC (as
		// the readers' session time zone), decimals as their text: the
		// forms decodeText reads (see the top of this file).
		ParseTime:               false,
		TimestampStringLocation: time.UTC,
		UseDecimal:              false,
		RenderJSONAsMySQLText:   true,
		HeartbeatPeriod:         myHeartbeat,
		ReadTimeout:             max(myReadTimeout, s.Deadlines.SetUp()),
		DisableRetrySync:        true, // the stream reconnects itself, at a transaction's end
		FillZeroLogPos:          st.maria,
		EventCacheCount:         1024,
		Logger:                  slog.New(slog.DiscardHandler),
		// Each connection has the connect deadline for its dial and its
		// writes (the set-up: handshake, registration, the dump command);
		// its reads have ReadTimeout.
		Dialer: func(ctx context.Context, _, _ string) (net.Conn, error) {
			d := net.Dialer{Timeout: connect}
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			_ = c.SetWriteDeadline(time.Now().Add(connect))
			return c, nil
		},
	}
	st.syncer = replication.NewBinlogSyncer(cfg)
	var err error
	st.gtid = nil
	if from.GTID != "" {
		var set gomysql.GTIDSet
		set, err = gomysql.ParseGTIDSet(flavor, from.GTID)
		if err != nil {
			st.syncer.Close()
			return fmt.Errorf("source: reading the GTID state of %s: %w", from, err)
		}
		st.gtid = set.Clone()
		st.events, err = st.syncer.StartSyncGTID(set)
	} else {
		st.events, err = st.syncer.StartSync(gomysql.Position{Name: from.File, Pos: from.Pos})
	}
	if err != nil {
		st.syncer.Close()
		return fmt.Errorf("source: starting to read the binlog of %s at %s as %s: %w", s.where(), from, user, unwrapMy(err))
	}
	st.file = from.File
	st.cur = nil
	return nil
}

// unwrapMy is the server's error inside err, when there is one.
func unwrapMy(err error) error {
	var me *gomysql.MyError
	if errors.As(err, &me) {
		return me
	}
	return err
}

// Close stops the syncer (its dump connection is ended on the server).
func (st *myStream) Close() error {
	if st.syncer != nil {
		st.syncer.Close()
	}
	return nil
}

// Ack records that the transactions up to p are applied; the server is not
// told (it keeps nothing for the stream).
func (st *myStream) Ack(p source.Position) {
	pos, err := parseBinlogPos(p)
	if err != nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if pos.compare(st.acked) > 0 {
		st.acked = pos
	}
	for len(st.pending) > 0 && st.pending[0].end.compare(st.acked) <= 0 {
		st.pending = st.pending[1:]
	}
}

// Next returns the next committed transaction with changes of the followed
// tables.
func (st *myStream) Next(ctx context.Context) (*source.Txn, error) {
	for {
		ev, err := st.events.GetEvent(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err := st.broken(ctx, err); err != nil {
				return nil, err
			}
			continue
		}
		txn, err := st.handle(ev)
		if err != nil || txn != nil {
			return txn, err
		}
	}
}

// handle handles one event received (event), then records what it
// settles.
func (st *myStream) handle(ev *replication.BinlogEvent) (*source.Txn, error) {
	txn, err := st.event(ev, 0)
	if err != nil {
		return nil, err
	}
	st.settle(ev)
	return txn, nil
}

// settle records that every event up to the end of ev is received whole,
// when it left no transaction open: after a transaction's end, and at a
// heartbeat, which carries the position an idle server is at. (received
// is written only by the goroutine of Next.)
func (st *myStream) settle(ev *replication.BinlogEvent) {
	h := ev.Header
	end := h.LogPos
	if hb, ok := ev.Event.(*replication.HeartbeatEvent); ok && end == 0 && hb.Offset <= math.MaxUint32 {
		end = uint32(hb.Offset) // HEARTBEAT_LOG_EVENT_V2
	}
	if st.cur != nil || end == 0 || h.Flags&replication.LOG_EVENT_ARTIFICIAL_F != 0 || h.EventType == replication.ROTATE_EVENT {
		return
	}
	p := binlogPos{File: st.file, Pos: end}
	if p.compare(st.received) <= 0 {
		return
	}
	if st.gtid != nil {
		p.GTID = st.gtid.String()
	}
	st.mu.Lock()
	st.received = p
	st.mu.Unlock()
}

// broken handles the error that ended the syncer: a connection that broke
// is opened again from the end of the last whole transaction (what was
// received of the next one is dropped), up to myReconnects times in a row;
// the server's own errors end the stream.
func (st *myStream) broken(ctx context.Context, err error) error {
	st.mu.Lock()
	from := st.handed
	st.mu.Unlock()
	var me *gomysql.MyError
	if errors.As(err, &me) {
		if me.Code == gomysql.ER_MASTER_FATAL_ERROR_READING_BINLOG {
			return fmt.Errorf("source: %s cannot send its binlog from %s (%s): a binlog purged since is lost with its changes; migrate again without --resume", st.src.where(), from, me.Message)
		}
		return fmt.Errorf("source: reading the binlog of %s: %w", st.src.where(), me)
	}
	for st.retries < myReconnects {
		st.retries++
		st.syncer.Close()
		if err := backoff.Sleep(ctx, time.Duration(st.retries)*time.Second); err != nil {
			return err
		}
		var oerr error
		if oerr = st.open(ctx, from); oerr == nil {
			return nil
		}
		err = oerr
	}
	return fmt.Errorf("source: reading the binlog of %s: %w (after %d new connections)", st.src.where(), err, st.retries)
}

// event handles one binlog event; it returns a transaction when one with
// changes of the followed tables is complete. end, when not 0, is the
// position after the event (an event inside a compressed transaction
// payload has none of its own).
func (st *myStream) event(ev *replication.BinlogEvent, end uint32) (*source.Txn, error) {
	h := ev.Header
	if end == 0 && h.Flags&replication.LOG_EVENT_ARTIFICIAL_F == 0 {
		end = h.LogPos
	}
	if end > 0 {
		if _, ok := ev.Event.(*replication.RotateEvent); !ok {
			st.mu.Lock()
			if p := (binlogPos{File: st.file, Pos: end}); p.compare(st.source) > 0 {
				st.source = p
			}
			st.mu.Unlock()
		}
	}
	if h.EventType == replication.INCIDENT_EVENT {
		return nil, st.incident(ev)
	}
	if h.EventType == replication.XA_PREPARE_LOG_EVENT {
		// The changes of a prepared XA transaction commit later, alone
		// (XA COMMIT): read again now, the rows would not show them.
		if st.cur != nil && len(st.cur.Changes) > 0 {
			return nil, &source.StopError{
				Table: st.cur.Changes[0].Table.QualifiedName(),
				What:  "a prepared XA transaction changed it: following XA transactions is not supported (their changes commit apart from their rows in the binlog)",
				Fix:   "migrate again",
			}
		}
		return st.commit(h, end)
	}
	switch e := ev.Event.(type) {
	case *replication.RotateEvent:
		st.file = string(e.NextLogName)
	case *replication.MariadbGTIDEvent:
		st.cur = &myTxn{standalone: e.IsStandalone()}
		if set, ok := st.gtid.(*gomysql.MariadbGTIDSet); ok {
			g := e.GTID
			set.Sets[g.DomainID] = &g // the state is the last GTID of each domain
		}
	case *replication.GTIDEvent:
		st.cur = &myTxn{}
		return nil, st.mysqlGTID(e)
	case *replication.GtidTaggedLogEvent:
		st.cur = &myTxn{}
		return nil, st.mysqlGTID(&e.GTIDEvent)
	case *replication.QueryEvent:
		return st.query(h, e, end)
	case *replication.XIDEvent:
		return st.commit(h, end)
	case *replication.RowsEvent:
		if err := st.rows(h, e); err != nil || st.inPayload || st.cur == nil || len(st.cur.Changes) < st.part {
			return nil, err
		}
		// A part of a large transaction (not inside a compressed payload,
		// whose events come as one: its changes are in memory already).
		p := &source.Txn{Changes: st.cur.Changes, Part: true}
		st.cur.Changes = nil
		st.cur.parts++
		return p, nil
	case *replication.TransactionPayloadEvent:
		return st.payload(h, e, end)
	}
	return nil, nil
}

// payload handles the events of a compressed transaction payload (MySQL's
// binlog_transaction_compression; go-mysql decompresses it): one
// transaction, handed out whole, every event of it handled.
func (st *myStream) payload(h *replication.EventHeader, e *replication.TransactionPayloadEvent, end uint32) (*source.Txn, error) {
	if len(e.Events) == 0 && e.UncompressedSize > 0 {
		return nil, fmt.Errorf("source: a compressed transaction of the binlog of %s (%s, before %d) was decoded into no event", st.src.where(), st.file, h.LogPos)
	}
	st.inPayload = true
	defer func() { st.inPayload = false }()
	var out *source.Txn
	for _, inner := range e.Events {
		txn, err := st.event(inner, end)
		if err != nil {
			return nil, err
		}
		if txn != nil && out != nil {
			return nil, fmt.Errorf("source: a compressed transaction of the binlog of %s (%s, before %d) holds more than one transaction", st.src.where(), st.file, h.LogPos)
		}
		if txn != nil {
			out = txn
		}
	}
	return out, nil
}

// incident is the error of an incident event: the server wrote it where
// changes may be missing from its binlog (LOST_EVENTS), and a replica
// stops there.
func (st *myStream) incident(ev *replication.BinlogEvent) error {
	msg := ""
	if g, ok := ev.Event.(*replication.GenericEvent); ok && len(g.Data) >= 3 && len(g.Data) >= 3+int(g.Data[2]) {
		msg = ": " + string(g.Data[3:3+int(g.Data[2])])
	}
	return fmt.Errorf("source: the binlog of %s has an incident at %s:%d (changes may be missing from it%s): following cannot go past it; migrate again", st.src.where(), st.file, ev.Header.LogPos, msg)
}

// mysqlGTID adds a MySQL GTID event's transaction to the GTID state.
func (st *myStream) mysqlGTID(e *replication.GTIDEvent) error {
	set, ok := st.gtid.(*gomysql.MysqlGTIDSet)
	if !ok || e.GNO == 0 { // positions only, or an anonymous transaction
		return nil
	}
	next, err := e.GTIDNext()
	if err != nil {
		return fmt.Errorf("source: reading a GTID of the binlog: %w", err)
	}
	return set.Update(next.String())
}

// query handles a query event: BEGIN, COMMIT, or a statement (DDL), which
// is a transaction of its own.
func (st *myStream) query(h *replication.EventHeader, e *replication.QueryEvent, end uint32) (*source.Txn, error) {
	q := skipSQLSpace(string(e.Query))
	word, rest := sqlWord(q)
	second, _ := sqlWord(rest)
	switch strings.ToUpper(word) {
	case "BEGIN":
		if st.cur == nil {
			st.cur = &myTxn{}
		}
		st.cur.begun = true
		return nil, nil
	case "ROLLBACK":
		if strings.EqualFold(second, "TO") { // ROLLBACK TO SAVEPOINT: the transaction goes on
			return nil, nil
		}
		return st.commit(h, end) // what a non-transactional table kept
	case "COMMIT":
		return st.commit(h, end)
	case "SAVEPOINT":
		return nil, nil
	case "XA":
		switch strings.ToUpper(second) {
		case "COMMIT", "ROLLBACK": // a one-phase commit's changes are here; a prepared one was refused
			return st.commit(h, end)
		}
		return nil, nil // XA START, XA END
	}
	if err := st.checkStatement(string(e.Schema), q); err != nil {
		return nil, err
	}
	if st.cur == nil || st.cur.standalone || !st.maria && !st.cur.begun {
		return st.commit(h, end)
	}
	return nil, nil
}

// checkStatement refuses a statement that changes a followed table's rows
// without row events: TRUNCATE, and a change logged as a statement (a
// session whose binlog_format was not ROW).
func (st *myStream) checkStatement(db, q string) error {
	word, rest := sqlWord(q)
	switch strings.ToUpper(word) {
	case "TRUNCATE":
		schema, table := truncatedTable(rest, db)
		if f := st.followed(schema, table); f != nil {
			return &source.StopError{Table: f.t.QualifiedName(), What: "it was truncated: following a TRUNCATE is not supported (its items would stay)", Fix: "migrate again"}
		}
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "LOAD":
		for _, f := range st.tables {
			if mentions(q, f.t.Name) && (strings.EqualFold(db, f.t.Schema) || mentions(q, f.t.Schema)) {
				return &source.StopError{
					Table: f.t.QualifiedName(),
					What:  fmt.Sprintf("a change of it was logged as a statement, not as rows (a session with binlog_format other than ROW): its rows cannot be followed (statement: %.200s)", q),
					Fix:   "make every session use binlog_format=ROW and migrate again",
				}
			}
		}
	}
	return nil
}

// followed is the followed table schema.table (nil: not followed). Names
// are compared without case (lower_case_table_names may fold them).
func (st *myStream) followed(schema, table string) *myFollowed {
	if f := st.tables[schema+"."+table]; f != nil {
		return f
	}
	for _, f := range st.tables {
		if strings.EqualFold(f.t.Schema, schema) && strings.EqualFold(f.t.Name, table) {
			return f
		}
	}
	return nil
}

// commit ends the transaction being received at end.
func (st *myStream) commit(h *replication.EventHeader, end uint32) (*source.Txn, error) {
	cur := st.cur
	st.cur = nil
	if end == 0 {
		return nil, fmt.Errorf("source: the binlog of %s has a transaction end without a position (event %s in %s)", st.src.where(), h.EventType, st.file)
	}
	pos := binlogPos{File: st.file, Pos: end}
	if st.gtid != nil {
		pos.GTID = st.gtid.String()
	}
	st.retries = 0
	st.mu.Lock()
	defer st.mu.Unlock()
	st.handed = pos
	if pos.compare(st.received) > 0 {
		st.received = pos
	}
	if cur == nil || len(cur.Changes) == 0 && cur.parts == 0 { // nothing of the followed tables: applied as it is (Status)
		return nil, nil
	}
	txn := cur.Txn
	txn.End = source.Position(pos.String())
	txn.Commit = time.Unix(int64(h.Timestamp), 0)
	st.pending = append(st.pending, myPending{end: pos, commit: txn.Commit})
	return &txn, nil
}

// rows adds the changes of a rows event of a followed table, after
// checking that its images are whole rows of the table remodel read.
func (st *myStream) rows(h *replication.EventHeader, e *replication.RowsEvent) error {
	if e.Table == nil {
		return fmt.Errorf("source: the binlog of %s has a %s without its table (table id %d, %s before %d)", st.src.where(), h.EventType, e.TableID, st.file, h.LogPos)
	}
	f := st.tables[string(e.Table.Schema)+"."+string(e.Table.Table)]
	if f == nil {
		return nil
	}
	kind := e.Type()
	if h.EventType == replication.PARTIAL_UPDATE_ROWS_EVENT {
		kind = replication.EnumRowsEventTypeUpdate
	}
	if err := f.checkRows(h, e, kind); err != nil {
		return err
	}
	if st.cur == nil {
		st.cur = &myTxn{}
	}
	switch kind {
	case replication.EnumRowsEventTypeInsert:
		for _, r := range e.Rows {
			st.cur.Changes = append(st.cur.Changes, source.Change{Table: f.t, Kind: source.Insert, New: f.row(r)})
		}
	case replication.EnumRowsEventTypeDelete:
		for _, r := range e.Rows {
			st.cur.Changes = append(st.cur.Changes, source.Change{Table: f.t, Kind: source.Delete, Old: f.row(r), OldFull: true})
		}
	case replication.EnumRowsEventTypeUpdate:
		for i := 0; i+1 < len(e.Rows); i += 2 {
			st.cur.Changes = append(st.cur.Changes, source.Change{Table: f.t, Kind: source.Update, Old: f.row(e.Rows[i]), OldFull: true, New: f.row(e.Rows[i+1])})
		}
	}
	return nil
}

// row turns a binlog row image into a row of the table.
func (f *myFollowed) row(raw []any) []any {
	row := make([]any, len(f.t.Columns))
	for i, j := range f.stored {
		if i < len(raw) {
			row[j] = binlogValue(f.t.Columns[j], raw[i])
		}
	}
	return row
}

// binlogValue is the canonical value of column c from the value the
// syncer decoded from the binlog (see the top of this file): what
// ScanTable reads for it.
func binlogValue(c *introspect.Column, v any) any {
	if v == nil {
		return nil
	}
	typ := strings.ToLower(c.Type)
	if why := binlogUnreadable(c); why != "" {
		return fmt.Errorf("the binlog's form of %s is not read: %s (the follower reads the row again)", c.Name, why)
	}
	switch {
	case c.Kind == introspect.KindSet:
		bits, ok := v.(int64)
		if !ok {
			break
		}
		var members []string
		for i, m := range c.Values {
			if bits&(1<<i) != 0 {
				members = append(members, m)
			}
		}
		return source.DecodeText(c, []byte(strings.Join(members, ",")), myDialect)
	case strings.HasPrefix(typ, "enum("):
		i, ok := v.(int64)
		if !ok {
			break
		}
		if i == 0 { // the empty string of an invalid value
			return source.DecodeText(c, []byte{}, myDialect)
		}
		if int(i) > len(c.Values) {
			return fmt.Errorf("enum index %d of %s is past its %d members", i, c.Name, len(c.Values))
		}
		return source.DecodeText(c, []byte(c.Values[i-1]), myDialect)
	case strings.HasPrefix(typ, "bit"):
		i, ok := v.(int64)
		if !ok {
			break
		}
		if u := uint64(i); u > math.MaxInt64 {
			return strconv.FormatUint(u, 10)
		}
		return i
	}
	unsigned := strings.Contains(typ, "unsigned")
	switch x := v.(type) {
	case int8:
		if unsigned {
			return source.DecodeBinary(c, uint64(uint8(x)), myDialect)
		}
		return source.DecodeBinary(c, int64(x), myDialect)
	case int16:
		if unsigned {
			return source.DecodeBinary(c, uint64(uint16(x)), myDialect)
		}
		return source.DecodeBinary(c, int64(x), myDialect)
	case int32:
		if unsigned {
			u := uint64(uint32(x))
			if strings.HasPrefix(typ, "mediumint") {
				u &= 1<<24 - 1
			}
			return source.DecodeBinary(c, u, myDialect)
		}
		return source.DecodeBinary(c, int64(x), myDialect)
	case int64:
		if unsigned {
			return source.DecodeBinary(c, uint64(x), myDialect)
		}
		return source.DecodeBinary(c, x, myDialect)
	case int: // YEAR
		return source.DecodeBinary(c, int64(x), myDialect)
	case uint8:
		return source.DecodeBinary(c, uint64(x), myDialect)
	case uint16:
		return source.DecodeBinary(c, uint64(x), myDialect)
	case uint32:
		return source.DecodeBinary(c, uint64(x), myDialect)
	case uint64:
		return source.DecodeBinary(c, x, myDialect)
	case float32, float64:
		return source.DecodeBinary(c, x, myDialect)
	case string:
		if c.Kind == introspect.KindTime {
			x = timePrecision(x, c.Precision)
		}
		return binlogText(c, []byte(x))
	case []byte:
		return binlogText(c, x)
	}
	return fmt.Errorf("unexpected binlog value %T for %s", v, c.Name)
}

// binlogText is the canonical value of a text or bytes value of c from the
// binlog: the server leaves a BINARY(n) value's trailing zero bytes out of
// the binlog, which a read gives; text of a non-UTF-8 character set is
// converted as the server converts it for a read.
func binlogText(c *introspect.Column, b []byte) any {
	typ := strings.ToLower(c.Type)
	if n, ok := binaryWidth(typ); ok && len(b) < n {
		b = append(b[:len(b):len(b)], make([]byte, n-len(b))...)
	}
	if c.Charset != "" && c.Read == "" {
		s, ok := fromCharset(c.Charset, b)
		if !ok {
			return &source.UnconvertibleTextError{Charset: c.Charset, Text: string(b)}
		}
		b = []byte(s)
	}
	return source.DecodeText(c, b, myDialect)
}

// timePrecision writes a TIME value the syncer gives (a fraction only when
// it is not 0) with the column's digits of fraction, as a read gives it.
func timePrecision(s string, digits int) string {
	s, frac, _ := strings.Cut(s, ".")
	if digits <= 0 {
		return s
	}
	return s + "." + (frac + strings.Repeat("0", digits))[:digits]
}

// binaryWidth is n of the type binary(n).
func binaryWidth(typ string) (int, bool) {
	rest, ok := strings.CutPrefix(typ, "binary(")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(rest, ")"))
	return n, err == nil
}

// cp1252High are the characters of MySQL's latin1 (Windows-1252, with
// the five bytes it leaves undefined as the C1 controls) for 0x80-0x9F.
var cp1252High = [32]rune{
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
}

// fromCharset converts text of MySQL's latin1 or ascii to UTF-8; false
// when it has a byte the character set has no character for.
func fromCharset(charset string, b []byte) (string, bool) {
	var sb strings.Builder
	sb.Grow(len(b))
	for _, x := range b {
		switch {
		case x < 0x80:
			sb.WriteByte(x)
		case strings.EqualFold(charset, "ascii"):
			return "", false
		case x < 0xA0:
			sb.WriteRune(cp1252High[x-0x80])
		default:
			sb.WriteRune(rune(x))
		}
	}
	return sb.String(), true
}

// skipSQLSpace skips white space and comments at the start of q.
func skipSQLSpace(q string) string {
	for {
		q = strings.TrimLeft(q, " \t\r\n")
		switch {
		case strings.HasPrefix(q, "/*"):
			i := strings.Index(q[2:], "*/")
			if i < 0 {
				return ""
			}
			q = q[i+4:]
		case strings.HasPrefix(q, "#"), strings.HasPrefix(q, "-- "):
			i := strings.IndexByte(q, '\n')
			if i < 0 {
				return ""
			}
			q = q[i+1:]
		default:
			return q
		}
	}
}

// sqlWord splits the first word (letters, digits, _ and $) from q; rest
// starts after the spaces and comments that follow it.
func sqlWord(q string) (word, rest string) {
	i := 0
	for i < len(q) && isWordByte(q[i]) {
		i++
	}
	return q[:i], skipSQLSpace(q[i:])
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// sqlIdent reads an identifier, `quoted` or bare, from the start of q.
func sqlIdent(q string) (ident, rest string) {
	if strings.HasPrefix(q, "`") {
		var b strings.Builder
		for i := 1; i < len(q); i++ {
			if q[i] == '`' {
				if i+1 < len(q) && q[i+1] == '`' {
					b.WriteByte('`')
					i++
					continue
				}
				return b.String(), skipSQLSpace(q[i+1:])
			}
			b.WriteByte(q[i])
		}
		return b.String(), ""
	}
	return sqlWord(q)
}

// truncatedTable is the table of TRUNCATE [TABLE] name (rest is what
// follows TRUNCATE), qualified by db when the name is not.
func truncatedTable(rest, db string) (schema, table string) {
	if w, r := sqlWord(rest); strings.EqualFold(w, "TABLE") {
		rest = r
	}
	first, rest := sqlIdent(rest)
	if strings.HasPrefix(rest, ".") {
		second, _ := sqlIdent(skipSQLSpace(rest[1:]))
		return first, second
	}
	return db, first
}

// mentions reports whether q holds name as a word of its own (not inside
// a longer identifier).
func mentions(q, name string) bool {
	lq, ln := strings.ToLower(q), strings.ToLower(name)
	for i := 0; ; {
		j := strings.Index(lq[i:], ln)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isWordByte(lq[j-1])
		after := j+len(ln) == len(lq) || !isWordByte(lq[j+len(ln)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

// Interfaces the compiler checks.
var (
	_ source.Follower = (*mySource)(nil)
	_ source.Stream   = (*myStream)(nil)
)
