package document

import (
	"strings"
)

// The section "Data library files": the files an application's data
// library reads the table through (remodel export --output electrodb,
// onetable, dynamodb-mcp). When preview --document wrote them with the
// document (--export FORMAT=FILE), the section lists each file, linked by
// its path relative to the document, with what it is for and what it
// leaves out; otherwise it says, for each format, the command that writes
// it.

// LibraryFile is a file for an application's data library: written with
// the document (Path set), or not (Command says how to write it).
type LibraryFile struct {
	Format string // electrodb, onetable, dynamodb-mcp
	// For says what the file is and what reads it.
	For string
	// Path is the file's path relative to the document's folder, with /
	// separators; "" when it was not written.
	Path string
	// NotExpressed are what the format cannot express of the mapping, one
	// a line (export's notes); the file names them too.
	NotExpressed []string
	// Command writes the file (when it was not written).
	Command string
}

// LibraryView is the section's content: the files written, then the
// formats not written, with their commands.
type LibraryView struct {
	Written, NotWritten []LibraryFile
}

// libraryFormats are the formats for data libraries, in the order the
// document lists them, with what each is for and the file name the
// commands suggest (TABLE is the table's name).
var libraryFormats = []struct{ format, what, file string }{
	{"electrodb", "a TypeScript module for ElectroDB 3: one Entity per entity with its key templates, a Service over them, one function per access pattern", "TABLE.ts"},
	{"onetable", "a OneTable schema (JSON, onetable:1.1.0): one model per entity with its value templates, the indexes, the access patterns as queries", "TABLE.onetable.json"},
	{"dynamodb-mcp", "the schema.json of AWS's DynamoDB MCP server, from which AWS generates a Python data-access layer; remodel init --from reads it back", "schema.json"},
}

// LibraryFormat says whether format is one of the data libraries' formats
// the section lists.
func LibraryFormat(format string) bool {
	for _, f := range libraryFormats {
		if f.format == format {
			return true
		}
	}
	return false
}

// buildLibrary is the section of the files written (in the formats'
// order, each with what it is for) and of the formats not written, each
// with the export command that writes it for this mapping and table.
func buildLibrary(written []LibraryFile, mappingFile, table string) LibraryView {
	var v LibraryView
	for _, f := range libraryFormats {
		found := false
		for _, w := range written {
			if w.Format == f.format {
				w.For = f.what
				v.Written = append(v.Written, w)
				found = true
			}
		}
		if found {
			continue
		}
		file := strings.ReplaceAll(f.file, "TABLE", table)
		v.NotWritten = append(v.NotWritten, LibraryFile{
			Format:  f.format,
			For:     f.what,
			Command: "remodel export --source DSN -m " + mappingFile + " --output " + f.format + " --output-file " + file,
		})
	}
	return v
}

// libraryFiles writes the section in Markdown.
func (m *mdWriter) libraryFiles(d *Document) {
	l := d.Library
	m.p("## Data library files\n\n")
	if len(l.Written) > 0 {
		m.p("Written with this document from the same mapping: the schema the application's data library reads the table through.\n\n")
		m.p("| format | file | for |\n|---|---|---|\n")
		for _, f := range l.Written {
			m.p("| %s | [%s](%s) | %s |\n", f.Format, cell(f.Path), mdLink(f.Path), cell(f.For))
		}
		m.p("\n")
		for _, f := range l.Written {
			notes(m.p, "What "+f.Path+" leaves out ("+f.Format+" cannot express it as remodel writes it):", f.NotExpressed)
		}
	}
	if len(l.NotWritten) == 0 {
		return
	}
	if len(l.Written) > 0 {
		m.p("Not written with this document:\n\n")
	} else {
		m.p("No data library file was written with this document (preview --document FILE --export FORMAT=FILE writes them with it). Each is written by its command:\n\n")
	}
	m.p("| format | for | command |\n|---|---|---|\n")
	for _, f := range l.NotWritten {
		m.p("| %s | %s | %s |\n", f.Format, cell(f.For), code(f.Command))
	}
	m.p("\n")
}

// mdLink is a path as a Markdown link target: spaces and parentheses
// escaped, so that the link ends where the path does.
func mdLink(path string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(path)
}
