package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/mapping/keyproof"
	"github.com/remodel-dev/remodel/migrate"
)

func (a *app) validateCmd() *cobra.Command {
	var o common
	var sources []string
	var strict bool
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check a mapping file, against the source when --source is given",
		Long: `validate parses the mapping file strictly (unknown fields are errors) and
checks everything the file says about itself: the table and its indexes,
template syntax, sort keys, attributes that collide with keys, access
patterns naming an index or entity that does not exist, SQL syntax.

With --source (or $REMODEL_SOURCE) it also checks every table, view,
column, formatter and access-pattern parameter against the source schema,
and has the source database prepare (without running) every entity's
query, where and set conditions (when) and every access pattern's sql and
params, so that a typo in the SQL is found before a migration, with the
database's own message. An access pattern's sql must return the columns
its entity's table key is rendered from (verify names each row's item by
them): validate reads the prepared statement's result columns and reports
the SQL that lacks one.

Every problem is printed, all at once, as file:line:col: path: message; the
exit status is then 1. A valid mapping is followed by whether migrate's key
collision check is needed: it is proven unnecessary when every entity's
table key renders its whole source key in a form that can be read back and
the entities' keys differ in a constant prefix or suffix (docs/mapping.md,
"Key collisions"); the lines after it say why, or what could not be shown.

A valid mapping is also checked for design risks, printed on stderr as
file:line:col: warning: path: message: a begins_with prefix that ends in a
placeholder without a separator after it, and an index partition key set to
a constant (one hot partition); with --source also key templates that do not
hold a unique key of their table (key collisions), index key attributes from
nullable columns or written only under a when condition (a sparse index, or
one key attribute of an index without the other), and tables of the source
that no entity reads. Each warning ends in its code ([sparse-when]).
Warnings leave the exit status 0 unless --strict is given, which makes it 1.

A warning the design intends is acknowledged in the mapping, with the
reason (acknowledge: [{warning: CODE, entity: NAME, reason: "..."}]): it is
still printed, with its reason, and --strict no longer counts it. An
acknowledgement that matches no warning is itself a warning
(stale-acknowledgement).

--source may be given once per engine (a PostgreSQL and a MySQL/MariaDB
database): the mapping is checked against each, each with its own engine's
postgres: or mysql: blocks; without a source for an engine, its blocks are
still checked on their own (template and SQL syntax in its dialect).

--output json prints the result as JSON (version, valid, per source its
problems, warnings and whether the key collision check is needed);
--output-file [FORMAT=]FILE also writes it to FILE. The exit status is the
same in every format.`,
		Example: `  remodel validate -m mapping.yaml
  remodel validate --source $DSN -m mapping.yaml --strict
  remodel validate --source $PG_DSN --source $MYSQL_DSN -m mapping.yaml --output json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var c checks
			o.out.check(cmd, a.stderr, &c)
			if err := o.checkTimeout(); err != nil {
				c = append(c, err.Error())
			}
			var fs files
			fs.read("--mapping", o.mapping)
			o.out.writes(&fs)
			fs.check(&c)
			if err := c.err(); err != nil {
				return err
			}
			if len(sources) == 0 && os.Getenv("REMODEL_SOURCE") != "" {
				sources = []string{os.Getenv("REMODEL_SOURCE")}
			}
			res, err := a.validate(cmd.Context(), &o, sources, strict)
			return a.writeValidation(&o, res, err)
		},
	}
	// --source is repeatable here: once per engine.
	cmd.Flags().StringArrayVar(&sources, "source", nil, "source DSN (postgres://…, mysql://… or user:pass@tcp(host:port)/db) to check the mapping against; once per engine, each engine's postgres:/mysql: blocks checked against its own; default $REMODEL_SOURCE")
	o.timeoutFlag(cmd)
	o.mappingFlag(cmd)
	o.formatFlag(cmd, "also", &report.Validation{})
	cmd.Flags().BoolVar(&strict, "strict", false, "exit with status 1 when there are warnings, as for problems")
	return cmd
}

// writeValidation renders validate's result through the report package:
// its warnings on stderr, then, unless the command was misused (err a
// usage error), the report on stdout and in every --output-file. It
// returns err, which sets the exit status, or else the first write error.
func (a *app) writeValidation(o *common, res *report.Validation, err error) error {
	werr := report.WriteValidationWarnings(a.stderr, res)
	var ue usageError
	if !errors.As(err, &ue) {
		if e := report.Write(a.stdout, report.Format(o.out.out), res); e != nil && werr == nil {
			werr = e
		}
		for _, of := range o.out.toFiles {
			if e := writeReportFile(of, res); e != nil && werr == nil {
				werr = e
			}
		}
	}
	if err != nil {
		return err
	}
	return werr
}

// validate checks the mapping file on its own, and against each source;
// it returns the result (after a usage error, the checks made before it)
// and the error that sets the exit status.
func (a *app) validate(ctx context.Context, o *common, sources []string, strict bool) (*report.Validation, error) {
	res := &report.Validation{Version: report.ValidationVersion, Mapping: o.mapping, Strict: strict, Checks: []*report.ValidationCheck{}}
	f, err := mapping.ParseFile(o.mapping)
	if err != nil {
		res.Problems = issues(err)
		if res.Problems == nil {
			res.Error = err.Error()
		}
		return res, problems(err)
	}
	res.Entities, res.AccessPatterns = len(f.Entities), len(f.AccessPatterns)
	if len(sources) == 0 {
		c := &report.ValidationCheck{}
		res.Checks = append(res.Checks, c)
		if err := mapping.Check(f); err != nil {
			c.Problems = issues(err)
			return res, problems(err)
		}
		c.Valid, res.Valid = true, true
		var open int
		c.Warnings, open = designWarnings(f, nil)
		return res, strictly(strict, open)
	}
	var all mapping.ErrorList // every source's problems, for stderr
	open := 0
	engines := map[introspect.Engine]string{}
	res.Valid = true
	for _, dsn := range sources {
		c := &report.ValidationCheck{}
		res.Checks = append(res.Checks, c)
		o.source = dsn
		probs, n, err := a.validateAgainst(ctx, o, f, c, engines)
		if err != nil {
			var ue usageError
			if errors.As(err, &ue) {
				return res, err
			}
			c.Error, res.Valid, res.Error = err.Error(), false, err.Error()
			return res, err
		}
		if len(probs) > 0 {
			c.Problems, res.Valid = issues(probs), false
			if len(sources) > 1 { // say which database refused what
				for _, e := range probs {
					e := *e
					e.Msg += " (" + c.Engine + " database " + c.Database + ")"
					all = append(all, &e)
				}
			} else {
				all = append(all, probs...)
			}
		}
		open += n
	}
	// The file's own checks, every engine's blocks in its own dialect:
	// an engine without a source still has its blocks checked. A problem
	// a source's check found at the same place is not said twice.
	var l mapping.ErrorList
	if errors.As(mapping.Check(f), &l) {
		for _, e := range l {
			if !slices.ContainsFunc(all, func(g *mapping.Error) bool { return g.Line == e.Line && g.Col == e.Col && g.Path == e.Path }) {
				res.Problems = append(res.Problems, issues(mapping.ErrorList{e})...)
				all = append(all, e)
				res.Valid = false
			}
		}
	}
	if len(all) > 0 {
		return res, failedError{dedupe(all)}
	}
	return res, strictly(strict, open)
}

// validateAgainst checks f against the source o names, filling c; it
// returns the problems found, the warnings no acknowledgement matches, and
// an error when the check could not run. engines are the sources' engines
// checked so far (one source per engine).
func (a *app) validateAgainst(ctx context.Context, o *common, f *mapping.File, c *report.ValidationCheck, engines map[introspect.Engine]string) (mapping.ErrorList, int, error) {
	src, err := o.open(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer src.Close()
	schema, err := src.Inspect(ctx)
	if err != nil {
		return nil, 0, err
	}
	c.Engine, c.Database = string(schema.Engine), schema.Database
	if db, ok := engines[schema.Engine]; ok {
		return nil, 0, usagef("--source is given twice for %s (databases %s and %s): give one source per engine", schema.Engine, db, schema.Database)
	}
	engines[schema.Engine] = schema.Database
	f = f.ForEngine(schema.Engine) // its postgres: or mysql: blocks
	// A query the database refuses is reported first: of two problems at
	// one place, dedupe keeps the first, and Compile's (the query's
	// columns are unknown) says less.
	all, err := describeQueries(ctx, src, f, schema)
	if err != nil {
		return nil, 0, err
	}
	plan, cerr := mapping.Compile(f, schema)
	if err := collect(&all, cerr); err != nil {
		return nil, 0, err
	}
	if err := collect(&all, mapping.Check(f)); err != nil {
		return nil, 0, err
	}
	sqlErrs, err := prepareAll(ctx, src, f, schema)
	if err != nil {
		return nil, 0, err
	}
	all = append(all, sqlErrs...)
	all = append(all, unpopulatedProblems(f, schema)...)
	if plan != nil { // compiled: each pattern's SQL has its entity
		keyErrs, err := keyColumnProblems(ctx, src, plan)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, keyErrs...)
	}
	if len(all) > 0 {
		return dedupe(all), 0, nil
	}
	c.Valid = true
	ws, open := designWarnings(f, schema)
	c.Warnings = ws
	proof, err := proveOnData(ctx, src, keyproof.Prove(plan))
	if err != nil {
		return nil, 0, err
	}
	c.KeyCheck = &report.KeyCheck{Needed: !proof.Proven, Text: proof.String()}
	c.Follow = migrate.FollowSupport(plan)
	c.FollowBack = plan.FollowBackSupport()
	return nil, open, nil
}

// issues are the problems of an ErrorList as the report lists them; nil
// for another error.
func issues(err error) []report.Issue {
	var l mapping.ErrorList
	if !errors.As(err, &l) {
		return nil
	}
	out := make([]report.Issue, len(l))
	for i, e := range l {
		out[i] = report.Issue{File: e.File, Line: e.Line, Col: e.Col, Path: e.Path, Message: e.Msg}
	}
	return out
}

// problems marks the problems found in a mapping file as failed checks; any
// other error (the file cannot be read) means validate could not run.
func problems(err error) error {
	var l mapping.ErrorList
	if errors.As(err, &l) {
		return failedError{err}
	}
	return err
}

// collect adds the problems of an ErrorList to all; another error is returned.
func collect(all *mapping.ErrorList, err error) error {
	if err == nil {
		return nil
	}
	var l mapping.ErrorList
	if !errors.As(err, &l) {
		return err
	}
	*all = append(*all, l...)
	return nil
}

// dedupe keeps one problem per place (line, column and field path), the
// first one given (Compile's before Check's: it knows the schema), in file
// order.
func dedupe(l mapping.ErrorList) mapping.ErrorList {
	type place struct {
		line, col int
		path      string
	}
	seen := map[place]bool{}
	var out mapping.ErrorList
	for _, e := range l {
		p := place{e.Line, e.Col, e.Path}
		if !seen[p] {
			seen[p] = true
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out
}

// prepareAll has the source prepare every entity's where and every
// condition of its set attributes (in the statement that reads the entity),
// every embed's where (on its child table), and every access pattern's sql
// and params. A
// statement the database refuses is a problem located at its field; what
// cannot be parsed or looked up here is left to Compile and Check, which
// report it.
func prepareAll(ctx context.Context, src source.Source, f *mapping.File, schema *introspect.Schema) (mapping.ErrorList, error) {
	var out mapping.ErrorList
	prepare := func(q string, s mapping.Str, path string) error {
		err := src.Prepare(ctx, q)
		var se *source.SQLError
		if errors.As(err, &se) {
			out = append(out, &mapping.Error{File: f.Name, Line: s.Line, Col: s.Col, Path: path,
				Msg: "the source database refuses it: " + se.Error()})
			return nil
		}
		return err
	}
	engine := schema.Engine
	for _, e := range f.Entities {
		path := "entities." + e.Name.Value
		t := schema.Query(e.Query.Value) // nil: refused, reported by describeQueries
		if e.Query.Value == "" {
			var err error
			if t, err = schema.Table(e.From.Value); err != nil {
				t = nil
			}
		}
		if t == nil {
			continue
		}
		if e.Where.Value != "" {
			if err := prepare(source.ScanSQL(engine, t, e.Where.Value), e.Where, path+".where"); err != nil {
				return nil, err
			}
		}
		// Each condition in a statement of its own, read as the entity's
		// scan reads it, so that a refusal names its when.
		for _, sd := range e.Set {
			if sd.When.Value == "" {
				continue
			}
			withCond := *t
			withCond.PrimaryKey = nil
			withCond.Columns = append(slices.Clip(t.Columns), mapping.WhenColumn(t, nil, sd.When.Value))
			if err := prepare(source.ScanSQL(engine, &withCond, ""), sd.When, path+".attributes.set."+sd.Key.Value+".when"); err != nil {
				return nil, err
			}
		}
		// An embed's where, on its child table.
		for _, d := range e.Embed {
			child, err := schema.Table(d.From.Value)
			if d.Where.Value == "" || err != nil {
				continue
			}
			if err := prepare(source.ScanSQL(engine, child, d.Where.Value), d.Where, path+".embed."+d.Name.Value+".where"); err != nil {
				return nil, err
			}
		}
	}
	text := func(s mapping.Str) (string, bool) {
		q, err := mapping.ParseSQL(s.Value, engine.Dialect().BackslashEscapes())
		if err != nil {
			return "", false
		}
		sql, _ := q.Text(func(i int) string { return source.Placeholder(engine, i) })
		return sql, true
	}
	for _, ap := range f.AccessPatterns {
		path := "access_patterns." + ap.Name.Value
		for _, kv := range ap.SQL {
			fpath := path + ".sql"
			if kv.Key.Value != "" {
				fpath += "." + kv.Key.Value
			}
			if q, ok := text(kv.Value); ok {
				if err := prepare(q, kv.Value, fpath); err != nil {
					return nil, err
				}
			}
		}
		if ap.Params.Value != "" {
			if q, ok := text(ap.Params); ok {
				if err := prepare(q, ap.Params, path+".params"); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// proveOnData completes a key proof that rests on the data (text columns
// that must hold no separator) by asking the database as it is now, in one
// snapshot; migrate asks again in its own. A statement the database
// refuses leaves the proof as it was, with the reason.
func proveOnData(ctx context.Context, src source.Source, proof keyproof.Proof) (keyproof.Proof, error) {
	if len(proof.Checks) == 0 {
		return proof, nil
	}
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		return proof, err
	}
	defer snap.Close()
	r := snap.Readers()[0]
	checked, err := proof.CheckData("of the database now (migrate checks its own snapshot again)", func(d keyproof.DataCheck) (bool, error) {
		var found bool
		err := r.Guard(ctx, func() error {
			var err error
			found, err = r.HoldsByte(ctx, d.Entity.Table, d.Entity.Where, d.Column, d.Sep)
			return err
		})
		return found, err
	})
	switch {
	case ctx.Err() != nil:
		return proof, ctx.Err()
	case err != nil:
		proof.Reasons = append(proof.Reasons, fmt.Sprintf("the data could not be checked: %v", err))
		return proof, nil
	}
	return checked, nil
}
