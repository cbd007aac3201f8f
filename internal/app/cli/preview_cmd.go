package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/document"
	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// previewFlags are preview's flags as the command line sets them.
type previewFlags struct {
	o        common
	rows     int
	entities []string
	doc      string
	exports  []string // --export FORMAT=FILE
	coll     preview.CollectionOptions
	an       analyzeFlags
	prog     progressFlags
}

func (a *app) previewCmd() *cobra.Command {
	f := &previewFlags{}
	cmd := &cobra.Command{
		Use:     "preview",
		Short:   "Show the items the first rows of every entity become, without touching DynamoDB",
		Long:    previewLong,
		Example: previewExamples,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd, a); err != nil {
				return err
			}
			return a.runPreview(cmd, f)
		},
	}
	f.register(cmd)
	return cmd
}

// check refuses flags that do not go together, naming every problem at
// once: the item preview's, the document's and the analysis's.
func (f *previewFlags) check(cmd *cobra.Command, a *app) error {
	var c checks
	f.o.out.check(cmd, a.stderr, &c)
	if f.o.out.out == "markdown" && !f.an.on {
		c = append(c, "--output markdown is the analysis's (with --analyze); a preview's Markdown is the modeling document: --document FILE.md, or - for stdout")
	}
	c.atLeast("rows", int64(f.rows), 1)
	if f.doc != "" {
		for _, name := range []string{"rows", "entity"} {
			if cmd.Flags().Changed(name) {
				c = append(c, "--"+name+" is for the item preview; the document's example data is item collections (--partition, --partitions, --scan-rows)")
			}
		}
		c.atLeast("partitions", int64(f.coll.Count), 1)
		c.atLeast("scan-rows", int64(f.coll.ScanRows), 1)
	} else {
		for _, name := range []string{"partition", "partitions", "scan-rows", "export"} {
			if cmd.Flags().Changed(name) {
				c = append(c, "--"+name+" is for the modeling document: give --document FILE too")
			}
		}
	}
	f.an.check(cmd, &c)
	f.prog.check(&c)
	for _, of := range f.o.out.toFiles {
		switch {
		case f.doc != "":
			c = append(c, "--output-file is for the printed result; with --document the result is the document FILE")
		case of.format == "markdown" && !f.an.on:
			c = append(c, "--output-file "+of.path+": markdown is the analysis's format (with --analyze)")
		}
	}
	fs := previewFiles(&f.o, &f.an, f.doc)
	for _, e := range libraryExportSpecs(f.exports, &c) {
		fs.write("--export "+e.format, e.path)
	}
	fs.check(&c)
	return c.err()
}

// runPreview compiles the mapping against the source and writes what was
// asked: the analysis alone, the modeling document, or the item preview.
func (a *app) runPreview(cmd *cobra.Command, f *previewFlags) error {
	docFormat := ""
	if f.doc != "" {
		df, err := documentFormat(f.doc)
		if err != nil {
			return err
		}
		docFormat = df
	}
	p, src, err := f.o.plan(cmd.Context())
	if err != nil {
		return err
	}
	defer src.Close()
	if f.an.on && f.doc == "" {
		return a.runAnalyze(cmd.Context(), &f.an, &f.prog, &f.o.out, p, src)
	}
	for _, n := range f.entities {
		if p.Entity(n) == nil {
			return usagef("--entity %s: the mapping has no entity %q (entities: %s)", n, n, entityNames(p))
		}
	}
	if f.doc != "" {
		return a.previewDocument(cmd, f, docFormat, p, src)
	}
	tracker, stopProgress, err := f.prog.start(a, "preview")
	if err != nil {
		return err
	}
	res, err := preview.Run(cmd.Context(), p, src, f.rows, f.entities, tracker)
	stopProgress()
	if err != nil {
		return err
	}
	return f.o.out.writeOutputs(a.stdout, func(w io.Writer, format string) error {
		return report.Write(w, report.Format(format), res)
	})
}

// previewDocument writes the modeling document: its item collections read
// from the source, and the analysis with --analyze.
func (a *app) previewDocument(cmd *cobra.Command, f *previewFlags, docFormat string, p *mapping.Plan, src source.Source) error {
	tracker, stopProgress, err := f.prog.start(a, "preview")
	if err != nil {
		return err
	}
	res, parts, err := preview.Collections(cmd.Context(), p, src, f.coll, tracker)
	stopProgress()
	if err != nil {
		return err
	}
	var rep *analyze.Report
	if f.an.on {
		if rep, err = a.analyze(cmd.Context(), &f.an, &f.prog, p, src); err != nil {
			return err
		}
	}
	var discard checks // check refused them already
	libs, err := a.writeLibraryFiles(f.doc, f.o.mapping, libraryExportSpecs(f.exports, &discard), p)
	if err != nil {
		return err
	}
	return a.writeDocument(f.doc, docFormat, f.o.mapping, document.Options{Rows: f.rows, Partitions: parts, ScanRows: f.coll.ScanRows, LibraryFiles: libs}, p, res, rep)
}

func (f *previewFlags) register(cmd *cobra.Command) {
	f.o.sourceFlag(cmd)
	f.o.mappingFlag(cmd)
	f.o.formatFlag(cmd, "also", &analyze.Report{}) // text and JSON of a preview; markdown with --analyze
	fl := cmd.Flags()
	fl.IntVar(&f.rows, "rows", 3, "rows to render per entity")
	fl.StringSliceVar(&f.entities, "entity", nil, "preview only these entities (repeat or comma-separate)")
	fl.StringVar(&f.doc, "document", "", "write the modeling definition document to this file: .md (Markdown) or .html (self-contained); - for Markdown on stdout")
	fl.StringArrayVar(&f.exports, "export", nil, "with --document: FORMAT=FILE writes the data library file FORMAT (electrodb, onetable, dynamodb-mcp; as export --output FORMAT) to FILE, which the document links (repeatable)")
	fl.StringArrayVar(&f.coll.Partitions, "partition", nil, "with --document: a table partition key value whose item collection the example data shows (repeatable)")
	fl.IntVar(&f.coll.Count, "partitions", 3, "with --document, without --partition: how many item collections are chosen")
	fl.IntVar(&f.coll.ScanRows, "scan-rows", 10000, "with --document: the rows of each entity read to find the item collections' items")
	f.an.register(cmd)
	f.prog.register(cmd, false)
}
