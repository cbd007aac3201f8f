package export_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// checkMCP checks a schema.json with the rules of the DynamoDB MCP
// server's validator (awslabs/mcp, dynamodb-mcp-server,
// repo_generation_tool/core: schema_definitions.py, schema_validator.py,
// gsi_validator.py, range_query_validator.py, key_template_parser.py,
// name_validator.py): the required fields at each level, the enumerations
// (field types, operations, return types, parameter types, range
// conditions), array fields with item_type, unique pattern ids, template
// placeholders {field} that are fields of the entity, GSI mappings and
// index names of the table's gsi_list, a range condition only on a Query
// with 2 parameters (3 for between), names that are identifiers, and
// descriptions without braces, double quotes, backslashes or newlines.
func checkMCP(b []byte) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		return []string{err.Error()}
	}
	need := func(where string, m map[string]any, fields ...string) {
		for _, f := range fields {
			if _, ok := m[f]; !ok {
				bad("%s: missing required field %s", where, f)
			}
		}
	}
	enum := func(where, v string, vals ...string) {
		if !slices.Contains(vals, v) {
			bad("%s: invalid value %q", where, v)
		}
	}
	identRE := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	placeholder := regexp.MustCompile(`\{(\w+)\}`)
	need("root", s, "tables")
	ids := map[float64]bool{}
	for i, tv := range arr(s["tables"]) {
		tbl, _ := tv.(map[string]any)
		where := fmt.Sprintf("tables[%d]", i)
		need(where, tbl, "table_config", "entities")
		tc, _ := tbl["table_config"].(map[string]any)
		need(where+".table_config", tc, "table_name", "partition_key")
		gsis := map[string]bool{}
		for j, gv := range arr(tbl["gsi_list"]) {
			g, _ := gv.(map[string]any)
			need(fmt.Sprintf("%s.gsi_list[%d]", where, j), g, "name", "partition_key")
			n, _ := g["name"].(string)
			if gsis[n] {
				bad("%s: duplicate GSI %s", where, n)
			}
			gsis[n] = true
		}
		ents, _ := tbl["entities"].(map[string]any)
		if len(ents) == 0 {
			bad("%s.entities cannot be empty", where)
		}
		for name, ev := range ents {
			e, _ := ev.(map[string]any)
			ew := where + ".entities." + name
			if !identRE.MatchString(name) {
				bad("%s: name is not an identifier", ew)
			}
			need(ew, e, "entity_type", "pk_template", "fields")
			fields := map[string]bool{}
			if len(arr(e["fields"])) == 0 {
				bad("%s.fields cannot be empty", ew)
			}
			for k, fv := range arr(e["fields"]) {
				f, _ := fv.(map[string]any)
				fw := fmt.Sprintf("%s.fields[%d]", ew, k)
				need(fw, f, "name", "type", "required")
				n, _ := f["name"].(string)
				if fields[n] {
					bad("%s: duplicate field %s", fw, n)
				}
				fields[n] = true
				typ, _ := f["type"].(string)
				enum(fw+".type", typ, "string", "integer", "decimal", "boolean", "array", "object", "uuid")
				if typ == "array" && f["item_type"] == nil {
					bad("%s: array fields must specify item_type", fw)
				}
				if _, ok := f["required"].(bool); !ok {
					bad("%s: required must be a boolean", fw)
				}
			}
			tmpl := func(tw string, v any) {
				t, ok := v.(string)
				if !ok || strings.TrimSpace(t) == "" {
					bad("%s: template must be a non-empty string", tw)
					return
				}
				if regexp.MustCompile(`\{([^}]*[^\w}][^}]*)\}`).MatchString(t) || strings.Count(t, "{") != strings.Count(t, "}") || strings.ContainsAny(t, "\"'\\\n") {
					bad("%s: invalid template %q", tw, t)
				}
				for _, m := range placeholder.FindAllStringSubmatch(t, -1) {
					if !fields[m[1]] {
						bad("%s: template parameter %s not found in entity fields", tw, m[1])
					}
				}
			}
			tmpl(ew+".pk_template", e["pk_template"])
			if v, ok := e["sk_template"]; ok {
				tmpl(ew+".sk_template", v)
			}
			for k, gv := range arr(e["gsi_mappings"]) {
				g, _ := gv.(map[string]any)
				gw := fmt.Sprintf("%s.gsi_mappings[%d]", ew, k)
				need(gw, g, "name", "pk_template")
				if n, _ := g["name"].(string); !gsis[n] {
					bad("%s: GSI %s not found in table gsi_list", gw, n)
				}
				tmpl(gw+".pk_template", g["pk_template"])
				if v, ok := g["sk_template"]; ok {
					tmpl(gw+".sk_template", v)
				}
			}
			for k, pv := range arr(e["access_patterns"]) {
				p, _ := pv.(map[string]any)
				pw := fmt.Sprintf("%s.access_patterns[%d]", ew, k)
				need(pw, p, "pattern_id", "name", "description", "operation", "return_type")
				id, ok := p["pattern_id"].(float64)
				if !ok || id != float64(int(id)) {
					bad("%s: pattern_id must be an integer", pw)
				} else if ids[id] {
					bad("%s: duplicate pattern_id %v", pw, id)
				}
				ids[id] = true
				if n, _ := p["name"].(string); !identRE.MatchString(n) {
					bad("%s: name %q is not an identifier", pw, n)
				}
				if d, _ := p["description"].(string); strings.ContainsAny(d, "{}\"\\\n\r") {
					bad("%s: description %q holds a brace, double quote, backslash or newline", pw, d)
				}
				op, _ := p["operation"].(string)
				enum(pw+".operation", op, "GetItem", "PutItem", "DeleteItem", "Query", "Scan", "UpdateItem", "BatchGetItem", "BatchWriteItem")
				rt, _ := p["return_type"].(string)
				enum(pw+".return_type", rt, "single_entity", "entity_list", "success_flag", "mixed_data", "void")
				params := arr(p["parameters"])
				for _, av := range params {
					a, _ := av.(map[string]any)
					need(pw+".parameters", a, "name", "type")
					typ, _ := a["type"].(string)
					enum(pw+".parameters.type", typ, "string", "integer", "boolean", "entity")
				}
				if ix, ok := p["index_name"].(string); ok && !gsis[ix] {
					bad("%s: unknown GSI %s", pw, ix)
				}
				if rc, ok := p["range_condition"].(string); ok {
					enum(pw+".range_condition", rc, "begins_with", "between", ">", "<", ">=", "<=")
					want := 2
					if rc == "between" {
						want = 3
					}
					if len(params) != want {
						bad("%s: range condition %s requires exactly %d parameters, got %d", pw, rc, want, len(params))
					}
					if op != "Query" {
						bad("%s: range conditions require Query, got %s", pw, op)
					}
				}
			}
		}
	}
	return problems
}

// TestMCPSchemaValid: the personalization export passes the validator's
// rules, with the markers too (remodel.source.markers). The other
// examples' are checked by TestLibrariesReadTheExamples.
func TestMCPSchemaValid(t *testing.T) {
	for _, f := range []string{"personalization.dynamodb-mcp.json", "personalization.markers.dynamodb-mcp.json"} {
		b, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if p := checkMCP(b); len(p) > 0 {
			t.Errorf("%s breaks the MCP validator's rules:\n%s", f, strings.Join(p, "\n"))
		}
	}
}

// TestCheckMCPCanFail: the check finds each planted fault.
func TestCheckMCPCanFail(t *testing.T) {
	good, err := os.ReadFile("testdata/personalization.dynamodb-mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"pk_template": "USER#{user_id}"`, `"pk_template": "USER#{user_id|pad:4}"`, "invalid template"},
		{`"pk_template": "USER#{user_id}"`, `"pk_template": "USER#{userId}"`, "template parameter userId not found"},
		{`"range_condition": "begins_with"`, `"range_condition": "starts_with"`, `invalid value "starts_with"`},
		{`"name": "sk_prefix",`, `"name": "x",`, ""},
		{`"type": "integer"`, `"type": "float"`, `invalid value "float"`},
		{`"return_type": "entity_list"`, `"return_type": "list"`, `invalid value "list"`},
		{`"pattern_id": 2`, `"pattern_id": 1`, "duplicate pattern_id 1"},
	} {
		broken := strings.Replace(string(good), c.old, c.new, 1)
		if broken == string(good) {
			t.Fatalf("%q is not in the schema", c.old)
		}
		p := strings.Join(checkMCP([]byte(broken)), "\n")
		if c.want == "" {
			continue
		}
		if !strings.Contains(p, c.want) {
			t.Errorf("%s → %s: the check says %q, want %q", c.old, c.new, p, c.want)
		}
	}
}
