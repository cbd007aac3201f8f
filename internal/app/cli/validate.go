package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/migrate"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

func (a *app) validateCmd() *cobra.Command {
	var o common
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
(stale-acknowledgement).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.validate(cmd.Context(), &o, strict)
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	cmd.Flags().BoolVar(&strict, "strict", false, "exit with status 1 when there are warnings, as for problems")
	return cmd
}

func (a *app) validate(ctx context.Context, o *common, strict bool) error {
	f, err := mapping.ParseFile(o.mapping)
	if err != nil {
		return problems(err)
	}
	if o.dsn() == "" {
		if err := mapping.Check(f); err != nil {
			return problems(err)
		}
		warned, open := a.warn(f, nil)
		fmt.Fprintf(a.stdout, "%s: valid on its own (%d entities, %d access patterns%s); give --source to check it against the database\n", o.mapping, len(f.Entities), len(f.AccessPatterns), warned)
		return strictly(strict, open)
	}
	src, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer src.Close()
	schema, err := src.Inspect(ctx)
	if err != nil {
		return err
	}
	f = f.ForEngine(schema.Engine) // its postgres: or mysql: blocks
	// A query the database refuses is reported first: of two problems at
	// one place, dedupe keeps the first, and Compile's (the query's
	// columns are unknown) says less.
	all, err := describeQueries(ctx, src, f, schema)
	if err != nil {
		return err
	}
	plan, cerr := mapping.Compile(f, schema)
	if err := collect(&all, cerr); err != nil {
		return err
	}
	if err := collect(&all, mapping.Check(f)); err != nil {
		return err
	}
	sqlErrs, err := prepareAll(ctx, src, f, schema)
	if err != nil {
		return err
	}
	all = append(all, sqlErrs...)
	all = append(all, unpopulatedProblems(f, schema)...)
	if plan != nil { // compiled: each pattern's SQL has its entity
		keyErrs, err := keyColumnProblems(ctx, src, plan)
		if err != nil {
			return err
		}
		all = append(all, keyErrs...)
	}
	if len(all) > 0 {
		return failedError{dedupe(all)}
	}
	warned, open := a.warn(f, schema)
	fmt.Fprintf(a.stdout, "%s: valid against %s database %s (%d entities, %d access patterns%s; every where and SQL prepared)\n", o.mapping, schema.Engine, schema.Database, len(f.Entities), len(f.AccessPatterns), warned)
	proof, err := proveOnData(ctx, src, plan.ProveKeysDistinct())
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, proof) // whether migrate needs its key collision check, and why
	fmt.Fprintln(a.stdout, migrate.FollowSupport(plan))
	return strictly(strict, open)
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
func proveOnData(ctx context.Context, src source.Source, proof mapping.KeyProof) (mapping.KeyProof, error) {
	if len(proof.Checks) == 0 {
		return proof, nil
	}
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		return proof, err
	}
	defer snap.Close()
	r := snap.Readers()[0]
	checked, err := proof.CheckData("of the database now (migrate checks its own snapshot again)", func(d mapping.DataCheck) (bool, error) {
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
