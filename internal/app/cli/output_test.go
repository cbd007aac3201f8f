package cli

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestOutputFlags is the one output flag scheme: --output FORMAT,
// --output-file [FORMAT=]FILE, and the deprecated spellings, each with its
// warning.
func TestOutputFlags(t *testing.T) {
	verifyFormats := []string{"text", "json", "junit", "markdown"}
	for _, tc := range []struct {
		name    string
		cmd     string // "migrate" adds --report-json
		formats []string
		files   string
		args    []string
		out     string
		toFiles []outputFile
		warn    string // the stderr lines, "" none
		err     string
	}{
		{name: "default", formats: verifyFormats, files: "also", out: "text"},
		{name: "a format", formats: verifyFormats, files: "also", args: []string{"--output", "json"}, out: "json"},
		{name: "a mistyped format", formats: verifyFormats, files: "also", args: []string{"--output", "jsno"}, err: `--output must be text, json, junit or markdown, got "jsno"`},
		{name: "two formats", formats: verifyFormats, files: "also", args: []string{"--output", "json", "--output", "junit"}, err: "--output is given twice, as json and junit: give one format (a file is named by --output-file)"},
		{
			name: "files by FORMAT=, by extension and by --output", formats: verifyFormats, files: "also",
			args: []string{"--output", "json", "--output-file", "markdown=sum", "--output-file", "v.xml", "--output-file", "plain"},
			out:  "json", toFiles: []outputFile{{"markdown", "sum"}, {"junit", "v.xml"}, {"json", "plain"}},
		},
		{name: "a mistyped FORMAT=", formats: verifyFormats, files: "also", args: []string{"--output-file", "juint=v.xml"}, err: `--output-file "juint=v.xml": "juint" is not a format (text, json, junit or markdown); a file whose name holds = is given as ./juint=v.xml`},
		{name: "a file named with =", formats: verifyFormats, files: "also", args: []string{"--output-file", "./a=b"}, out: "text", toFiles: []outputFile{{"text", "./a=b"}}},
		{
			name: "deprecated --format and --output FILE: the file in the format, stdout text", formats: verifyFormats, files: "also",
			args: []string{"--format", "junit", "--output", "v.xml", "--output", "markdown=s.md"},
			out:  "text", toFiles: []outputFile{{"junit", "v.xml"}, {"markdown", "s.md"}},
			warn: "remodel: --format junit is deprecated and will be removed: use --output junit\nremodel: --output v.xml is deprecated and will be removed: use --output-file v.xml\nremodel: --output markdown=s.md is deprecated and will be removed: use --output-file markdown=s.md\n",
		},
		{
			name: "deprecated --report-json", cmd: "migrate", formats: []string{"text", "json"}, files: "also",
			args: []string{"--report-json", "r.out"}, out: "text", toFiles: []outputFile{{"json", "r.out"}},
			warn: "remodel: --report-json r.out is deprecated and will be removed: use --output-file json=r.out\n",
		},
		{name: "deprecated --format, a wrong one", formats: []string{"text", "json"}, args: []string{"--format", "xml"}, err: `--format must be text or json, got "xml"`, warn: "remodel: --format xml is deprecated and will be removed: use --output xml\n"},
		{name: "no files: a path is not a format", formats: []string{"text", "json"}, args: []string{"--output", "r.json"}, err: `--output must be text or json, got "r.json"`},
		{name: "instead: --output-file", formats: []string{"yaml"}, files: "instead", args: []string{"--output-file", "m.yaml"}, out: "yaml", toFiles: []outputFile{{"yaml", "m.yaml"}}},
		{
			name: "instead: deprecated -o FILE", formats: []string{"yaml"}, files: "instead", args: []string{"-o", "m.yaml"}, out: "yaml", toFiles: []outputFile{{"yaml", "m.yaml"}},
			warn: "remodel: --output m.yaml is deprecated and will be removed: use --output-file m.yaml\n",
		},
		{
			name: "instead: both name the file", formats: []string{"yaml"}, files: "instead", args: []string{"-o", "a.yaml", "--output-file", "b.yaml"},
			err: "--output a.yaml and --output-file both name the file to write: give one", warn: "remodel: --output a.yaml is deprecated and will be removed: use --output-file a.yaml\n",
		},
		{name: "needed, not given", formats: []string{"", "cloudformation", "terraform"}, files: "instead", err: "--output must be cloudformation or terraform: give one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.cmd
			if name == "" {
				name = "cmd"
			}
			cmd := &cobra.Command{Use: name}
			var f outputFlags
			short := ""
			if tc.files == "instead" {
				short = "o"
			}
			f.register(cmd, short, tc.formats, tc.files)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			err := f.resolve(cmd, &stderr)
			if stderr.String() != tc.warn {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), tc.warn)
			}
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.out != tc.out || !reflect.DeepEqual(f.toFiles, tc.toFiles) {
				t.Errorf("stdout %q, files %v; want %q, %v", f.out, f.toFiles, tc.out, tc.toFiles)
			}
		})
	}
}

// TestOutputFlagsHelp: the deprecated spellings are hidden from --help.
func TestOutputFlagsHelp(t *testing.T) {
	var b bytes.Buffer
	a := &app{stdout: &b, stderr: &b}
	root := a.root()
	root.SetOut(&b)
	root.SetArgs([]string{"migrate", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := b.String()
	if !strings.Contains(help, "--output FORMAT") || !strings.Contains(help, "--output-file [FORMAT=]FILE") || strings.Contains(help, "--format") || strings.Contains(help, "--report-json") {
		t.Fatalf("migrate --help:\n%s", help)
	}
}
