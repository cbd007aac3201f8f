// Package parse is the parse stage of package mapping: the mapping file as
// written, with the position of every field. Parse and ParseFile read it
// strictly (unknown fields, duplicate keys and values of the wrong shape
// are an ErrorList of file:line:col problems, a YAML syntax error
// explained where the text shows its cause) into a File; File.ForEngine
// picks its postgres: or mysql: blocks. What needs the source schema or
// the key templates (Compile, Check) is package mapping's, which imports
// this package and never the reverse.
package parse
