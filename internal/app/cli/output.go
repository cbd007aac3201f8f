package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/migrate"
)

// outputFlags is the one output flag scheme of every command, as the AWS
// CLI has it: --output names a format, --output-file names a file.
//
//	--output FORMAT               what goes to stdout, in FORMAT
//	--output-file [FORMAT=]FILE   a report command also writes FILE (in
//	                              FORMAT, or in the format FILE's extension
//	                              names, or in --output's); init and export
//	                              write FILE instead of stdout
//
// The spellings before it are accepted as deprecated aliases, each with a
// line on stderr that names the new one: --format FORMAT, --output FILE and
// -o FILE (a value that is not one of the command's formats names a file, as
// it did for init, export and verify: verify's report then goes to stdout
// as text, as it did), and migrate's --report-json FILE.
type outputFlags struct {
	formats []string // the command's formats; formats[0] is the default ("": none, the flag is needed)
	// files is what --output-file does: "also" (a report command, repeatable,
	// FORMAT= allowed) or "instead" (init and export: one file, instead of
	// stdout); "" when the command has no --output-file.
	files string

	outputs    []string // --output (a string array, so that old repeated --output FILE still parse)
	fileValues []string // --output-file (report commands)
	single     string   // --output-file (init, export)
	format     string   // --format (deprecated)
	reportJSON string   // migrate's --report-json (deprecated)

	// Resolved by resolve:
	out       string       // stdout's format
	toFiles   []outputFile // the files to write
	textOut   bool         // an old --output FILE took --output's format: stdout gets text
	fileFlags []string     // the flag each toFiles entry came from, for messages
}

// outputFile is a file to write, in a format.
type outputFile struct {
	format string
	path   string
}

// registerOutput adds --output (with shorthand short, "" for none) and, per
// files, --output-file, and the deprecated aliases.
func (f *outputFlags) register(cmd *cobra.Command, short string, formats []string, files string) {
	f.formats, f.files = formats, files
	fl := cmd.Flags()
	help := "`FORMAT` of the output: " + orList(formats)
	switch {
	case formats[0] == "":
		help += " (needed)"
	case len(formats) > 1:
		help += fmt.Sprintf(" (default %q)", formats[0])
	}
	fl.StringArrayVarP(&f.outputs, "output", short, nil, help)
	switch files {
	case "also":
		fl.StringArrayVar(&f.fileValues, "output-file", nil, "also write the output to `[FORMAT=]FILE`: in FORMAT, or in the format FILE's extension names (.json, .xml for junit, .md, .txt), or in --output's; repeatable")
	case "instead":
		fl.StringVar(&f.single, "output-file", "", "write to `FILE` instead of stdout")
	}
	fl.StringVar(&f.format, "format", "", "deprecated: use --output")
	_ = fl.MarkHidden("format")
	if cmd.Name() == "migrate" {
		fl.StringVar(&f.reportJSON, "report-json", "", "deprecated: use --output-file json=FILE")
		_ = fl.MarkHidden("report-json")
	}
}

// check resolves the flags (resolve), adding its error to c.
func (f *outputFlags) check(cmd *cobra.Command, stderr io.Writer, c *checks) {
	if err := f.resolve(cmd, stderr); err != nil {
		*c = append(*c, err.Error())
	}
}

// writes adds the files the flags write to fs (a file named - is stdout).
func (f *outputFlags) writes(fs *files) {
	for i, of := range f.toFiles {
		if of.path != "-" {
			fs.write(f.fileFlags[i], of.path)
		}
	}
}

// outsideObjects adds to c every file the flags write that is where the
// objects of --to go (migrate.OutsideObjects: under a local directory's
// prefix, or named as one of its manifests), as migrate refuses its
// checkpoint and rejects file there: a report would be imported as data,
// or replace the job's manifest.
func (f *outputFlags) outsideObjects(c *checks, to *s3out.Location) {
	for i, of := range f.toFiles {
		if of.path == "-" {
			continue
		}
		if err := migrate.OutsideObjects(to, "report file ("+f.fileFlags[i]+")", of.path); err != nil {
			*c = append(*c, err.Error())
		}
	}
}

// file is the file init or export writes instead of stdout ("": stdout).
func (f *outputFlags) file() string {
	if len(f.toFiles) == 0 {
		return ""
	}
	return f.toFiles[0].path
}

// orList is "a, b or c" ("" left out).
func orList(s []string) string {
	s = slices.DeleteFunc(slices.Clone(s), func(v string) bool { return v == "" })
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// resolve reads the flags into out and toFiles, warning on stderr of every
// deprecated spelling used; an error is a usage error.
func (f *outputFlags) resolve(cmd *cobra.Command, stderr io.Writer) error {
	deprecated := func(old, now string) {
		fmt.Fprintf(stderr, "remodel: %s is deprecated and will be removed: use %s\n", old, now)
	}
	f.out = f.formats[0]
	if cmd.Flags().Changed("format") {
		deprecated("--format "+f.format, "--output "+f.format)
		if !slices.Contains(f.formats, f.format) {
			return fmt.Errorf("--format must be %s, got %q", orList(f.formats), f.format)
		}
		f.out = f.format
	}
	var legacy []string // --output values that name files
	formatGiven := ""
	for _, v := range f.outputs {
		switch {
		case slices.Contains(f.formats, v):
			if formatGiven != "" && formatGiven != v {
				return fmt.Errorf("--output is given twice, as %s and %s: give one format (a file is named by --output-file)", formatGiven, v)
			}
			formatGiven, f.out = v, v
		case f.files == "" || (!strings.ContainsAny(v, "./=\\") && isWord(v)):
			// Not a format, and not a file either: a mistyped format.
			return fmt.Errorf("--output must be %s, got %q", orList(f.formats), v)
		default:
			legacy = append(legacy, v)
		}
	}
	if f.out == "" {
		return fmt.Errorf("--output must be %s: give one", orList(f.formats))
	}
	switch f.files {
	case "instead":
		if f.single != "" {
			f.toFiles = append(f.toFiles, outputFile{format: f.out, path: f.single})
			f.fileFlags = append(f.fileFlags, "--output-file")
		}
		for _, v := range legacy {
			deprecated("--output "+v, "--output-file "+v)
			if len(f.toFiles) > 0 {
				return fmt.Errorf("--output %s and --output-file both name the file to write: give one", v)
			}
			f.toFiles = append(f.toFiles, outputFile{format: f.out, path: v})
			f.fileFlags = append(f.fileFlags, "--output")
		}
		return nil
	case "also":
		for _, v := range legacy {
			deprecated("--output "+v, "--output-file "+v)
			of, err := f.parseFile("--output", v, "", false)
			if err != nil {
				return err
			}
			if of.format == "" { // as before: the file in --output's format, stdout in text
				of.format, f.textOut = f.out, true
			}
			f.toFiles = append(f.toFiles, of)
			f.fileFlags = append(f.fileFlags, "--output "+v)
		}
		for _, v := range f.fileValues {
			of, err := f.parseFile("--output-file", v, f.out, true)
			if err != nil {
				return err
			}
			f.toFiles = append(f.toFiles, of)
			f.fileFlags = append(f.fileFlags, "--output-file "+v)
		}
		if f.reportJSON != "" {
			deprecated("--report-json "+f.reportJSON, "--output-file json="+f.reportJSON)
			f.toFiles = append(f.toFiles, outputFile{format: "json", path: f.reportJSON})
			f.fileFlags = append(f.fileFlags, "--report-json")
		}
	}
	if f.textOut && slices.Contains(f.formats, "text") {
		f.out = "text"
	}
	return nil
}

// extFormats are the formats a file's extension names.
var extFormats = map[string]string{".json": "json", ".xml": "junit", ".md": "markdown", ".txt": "text", ".mmd": "mermaid"}

// writeOutputs writes a command's result to stdout in --output's format
// and to every --output-file in its own, render writing it in a format;
// it returns the first error.
func (f *outputFlags) writeOutputs(stdout io.Writer, render func(w io.Writer, format string) error) error {
	err := render(stdout, f.out)
	for _, of := range f.toFiles {
		if werr := writeOutputFile(of, render); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// writeOutputFile writes of.path in of.format with render.
func writeOutputFile(of outputFile, render func(w io.Writer, format string) error) error {
	file, err := os.Create(of.path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", of.path, err)
	}
	if err := render(file, of.format); err != nil {
		file.Close()
		return fmt.Errorf("writing %s: %w", of.path, err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", of.path, err)
	}
	return nil
}

// parseFile reads an --output-file value, FILE or FORMAT=FILE; a FILE's
// format is the one its extension names (byExt), or def ("" leaves it to
// the caller).
func (f *outputFlags) parseFile(flag, v, def string, byExt bool) (outputFile, error) {
	of := outputFile{path: v}
	if name, path, ok := strings.Cut(v, "="); ok {
		switch {
		case slices.Contains(f.formats, name):
			of = outputFile{format: name, path: path}
		case isWord(name):
			// A mistyped format (juint=verify.xml) would otherwise be a
			// file of that name, and a CI job would miss its report
			// without a word.
			return of, fmt.Errorf("%s %q: %q is not a format (%s); a file whose name holds = is given as ./%s", flag, v, name, orList(f.formats), v)
		}
	}
	if of.path == "" {
		return of, fmt.Errorf("%s %q names no file", flag, v)
	}
	if of.format == "" {
		if ext := extFormats[strings.ToLower(filepath.Ext(of.path))]; byExt && slices.Contains(f.formats, ext) {
			of.format = ext
		} else {
			of.format = def
		}
	}
	return of, nil
}

// isWord reports whether s is letters only, as a format's name is.
func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}
