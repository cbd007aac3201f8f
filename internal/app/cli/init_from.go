package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// initFrom is init --from FILE: a starting mapping read from a design file
// (initmap.From), validated against the source as validate --source does.
// The notes (what has no remodel equivalent) go to stderr as well as into
// the file; the problems validate finds are appended to the file as
// comments, printed, and make the exit status 1.
func (a *app) initFrom(ctx context.Context, src source.Source, from, name, output string, force, sourceFlag bool) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return usagef("--from %s: %v", from, err)
	}
	s, err := src.Inspect(ctx)
	if err != nil {
		return err
	}
	im, err := initmap.From(filepath.Base(from), data, s, initmap.FromOptions{Table: name})
	if err != nil {
		return usagef("%v", err)
	}
	for _, n := range im.Notes {
		fmt.Fprintf(a.stderr, "remodel: init --from %s: not expressed: %s\n", im.Format, n)
	}
	label := output
	if label == "" {
		label = "mapping.yaml"
	}
	f, err := mapping.Parse(label, im.Mapping)
	var probs mapping.ErrorList
	if err == nil {
		// The ERD again: describing the queries adds them to it.
		fresh, ierr := src.Inspect(ctx)
		if ierr != nil {
			return ierr
		}
		probs, err = checkAgainstSource(ctx, src, f, fresh)
	}
	if err != nil && collect(&probs, err) != nil {
		return err
	}
	out := im.Mapping
	if len(probs) > 0 {
		var b strings.Builder
		b.WriteString("\n# validate --source finds these problems in the file as written (fix them before migrating):\n")
		for _, p := range probs {
			b.WriteString("#   - " + strings.ReplaceAll(p.Error(), "\n", " ") + "\n")
		}
		out = append(append([]byte{}, out...), b.String()...)
	}
	if output == "" {
		if _, err := a.stdout.Write(out); err != nil {
			return err
		}
	} else {
		if err := writeMapping(output, force, out); err != nil {
			return err
		}
		check := "remodel validate -m " + output
		if sourceFlag {
			check = "remodel validate --source DSN -m " + output
		}
		fmt.Fprintf(a.stderr, "wrote %s from %s (%s) for %s database %s; check it with: %s\n", output, from, im.Format, s.Engine, s.Database, check)
	}
	if len(probs) > 0 {
		return failedError{fmt.Errorf("the mapping read from %s does not validate against the source:\n%w", from, probs)}
	}
	return nil
}

// checkAgainstSource collects the problems validate --source reports for
// f: the queries the source cannot describe, Compile's and Check's
// problems, the SQL it cannot prepare, and the access patterns whose SQL
// lacks a key column.
func checkAgainstSource(ctx context.Context, src source.Source, f *mapping.File, schema *introspect.Schema) (mapping.ErrorList, error) {
	f = f.ForEngine(schema.Engine)
	all, err := describeQueries(ctx, src, f, schema)
	if err != nil {
		return nil, err
	}
	plan, cerr := mapping.Compile(f, schema)
	if err := collect(&all, cerr); err != nil {
		return nil, err
	}
	if err := collect(&all, mapping.Check(f)); err != nil {
		return nil, err
	}
	sqlErrs, err := prepareAll(ctx, src, f, schema)
	if err != nil {
		return nil, err
	}
	all = append(all, sqlErrs...)
	all = append(all, unpopulatedProblems(f, schema)...)
	if plan != nil {
		keyErrs, err := keyColumnProblems(ctx, src, plan)
		if err != nil {
			return nil, err
		}
		all = append(all, keyErrs...)
	}
	if len(all) == 0 {
		return nil, nil
	}
	return dedupe(all), nil
}
