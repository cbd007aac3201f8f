package export_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// checkWorkbench checks a NoSQL Workbench data model against the format
// of the models Workbench exports (version 3.0, as in AWS's sample models
// and models people published): the fields at each level, key attributes
// with types S, N or B, every index key attribute declared (a table key or
// a non-key attribute, same type), facets naming declared attributes, and
// every sample item in DynamoDB JSON with the table's key, typed as
// declared, holding only declared attributes.
func checkWorkbench(b []byte) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return []string{err.Error()}
	}
	fields := func(where string, v map[string]any, required, optional []string) {
		for _, f := range required {
			if _, ok := v[f]; !ok {
				bad("%s: no %s", where, f)
			}
		}
		for f := range v {
			if !slices.Contains(required, f) && !slices.Contains(optional, f) {
				bad("%s: unknown field %s", where, f)
			}
		}
	}
	fields("model", m, []string{"ModelName", "ModelMetadata", "DataModel"}, nil)
	md, _ := m["ModelMetadata"].(map[string]any)
	fields("ModelMetadata", md, []string{"Author", "DateCreated", "DateLastModified", "Description", "AWSService", "Version"}, nil)
	if md["Version"] != "3.0" || md["AWSService"] != "Amazon DynamoDB" {
		bad("ModelMetadata: Version %v, AWSService %v", md["Version"], md["AWSService"])
	}
	for _, d := range []string{"DateCreated", "DateLastModified"} {
		if s, _ := md[d].(string); !regexp.MustCompile(`^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} [AP]M$`).MatchString(s) {
			bad("ModelMetadata.%s %q is not written as Workbench writes dates", d, s)
		}
	}
	tables, _ := m["DataModel"].([]any)
	if len(tables) == 0 {
		bad("DataModel has no table")
	}
	scalar := []string{"S", "N", "B"}
	all := []string{"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}
	for _, tv := range tables {
		tbl := tv.(map[string]any)
		where := fmt.Sprintf("table %v", tbl["TableName"])
		fields(where, tbl, []string{"TableName", "KeyAttributes", "NonKeyAttributes", "TableFacets", "GlobalSecondaryIndexes", "TableData", "DataAccess", "BillingMode"}, []string{"ProvisionedCapacitySettings"})
		declared := map[string]string{}
		var keyNames []string
		keyAttrs := func(where string, v any, declare bool) {
			ka, _ := v.(map[string]any)
			fields(where, ka, []string{"PartitionKey"}, []string{"SortKey"})
			for _, k := range []string{"PartitionKey", "SortKey"} {
				a, ok := ka[k].(map[string]any)
				if !ok {
					continue
				}
				fields(where+"."+k, a, []string{"AttributeName", "AttributeType"}, nil)
				n, typ := a["AttributeName"].(string), a["AttributeType"].(string)
				if !slices.Contains(scalar, typ) {
					bad("%s.%s: type %s", where, k, typ)
				}
				if declare {
					declared[n] = typ
					keyNames = append(keyNames, n)
				} else if declared[n] != typ {
					bad("%s.%s: %s (%s) is not declared with that type (%q)", where, k, n, typ, declared[n])
				}
			}
		}
		keyAttrs(where+".KeyAttributes", tbl["KeyAttributes"], true)
		for _, av := range arr(tbl["NonKeyAttributes"]) {
			a := av.(map[string]any)
			fields(where+".NonKeyAttributes", a, []string{"AttributeName", "AttributeType"}, nil)
			n, typ := a["AttributeName"].(string), a["AttributeType"].(string)
			if _, dup := declared[n]; dup {
				bad("%s: attribute %s declared twice", where, n)
			}
			if !slices.Contains(all, typ) {
				bad("%s: attribute %s has type %s", where, n, typ)
			}
			declared[n] = typ
		}
		for _, iv := range arr(tbl["GlobalSecondaryIndexes"]) {
			ix := iv.(map[string]any)
			w := fmt.Sprintf("%s index %v", where, ix["IndexName"])
			fields(w, ix, []string{"IndexName", "KeyAttributes", "Projection"}, nil)
			keyAttrs(w+".KeyAttributes", ix["KeyAttributes"], false)
			pr, _ := ix["Projection"].(map[string]any)
			fields(w+".Projection", pr, []string{"ProjectionType"}, []string{"NonKeyAttributes"})
			switch attrs := arr(pr["NonKeyAttributes"]); pr["ProjectionType"] {
			case "ALL", "KEYS_ONLY":
				if attrs != nil {
					bad("%s: NonKeyAttributes with projection %v", w, pr["ProjectionType"])
				}
			case "INCLUDE":
				if len(attrs) == 0 {
					bad("%s: projection INCLUDE without NonKeyAttributes", w)
				}
				for _, a := range attrs {
					if _, ok := declared[a.(string)]; !ok {
						bad("%s: projected attribute %v is not a declared non-key attribute", w, a)
					}
				}
			default:
				bad("%s: projection type %v", w, pr["ProjectionType"])
			}
		}
		for _, fv := range arr(tbl["TableFacets"]) {
			f := fv.(map[string]any)
			w := fmt.Sprintf("%s facet %v", where, f["FacetName"])
			fields(w, f, []string{"FacetName", "KeyAttributeAlias", "TableData", "NonKeyAttributes"}, []string{"DataAccess"})
			alias, _ := f["KeyAttributeAlias"].(map[string]any)
			fields(w+".KeyAttributeAlias", alias, []string{"PartitionKeyAlias"}, []string{"SortKeyAlias"})
			for _, n := range arr(f["NonKeyAttributes"]) {
				if _, ok := declared[n.(string)]; !ok || slices.Contains(keyNames, n.(string)) {
					bad("%s: attribute %v is not a declared non-key attribute", w, n)
				}
			}
		}
		bm := tbl["BillingMode"]
		if bm != "PAY_PER_REQUEST" && bm != "PROVISIONED" {
			bad("%s: billing mode %v", where, bm)
		}
		if (tbl["ProvisionedCapacitySettings"] != nil) != (bm == "PROVISIONED") {
			bad("%s: ProvisionedCapacitySettings with billing mode %v", where, bm)
		}
		items, _ := tbl["TableData"].([]any)
		if len(items) == 0 {
			bad("%s: no sample items", where)
		}
		for i, iv := range items {
			it := iv.(map[string]any)
			for _, k := range keyNames {
				if _, ok := it[k]; !ok {
					bad("%s: item %d has no %s", where, i, k)
				}
			}
			for n, v := range it {
				av, ok := v.(map[string]any)
				if !ok || len(av) != 1 {
					bad("%s: item %d: %s is not in DynamoDB JSON: %v", where, i, n, v)
					continue
				}
				for typ := range av {
					if want, ok := declared[n]; !ok {
						bad("%s: item %d has attribute %s, which is not declared", where, i, n)
					} else if typ != want {
						bad("%s: item %d: %s is %s, declared %s", where, i, n, typ, want)
					}
				}
			}
		}
	}
	return problems
}

// TestCheckWorkbenchCanFail: the structure check finds each planted fault.
func TestCheckWorkbenchCanFail(t *testing.T) {
	good := `{"ModelName":"m","ModelMetadata":{"Author":"a","DateCreated":"Jan 2, 2026, 03:04 PM","DateLastModified":"Jan 2, 2026, 03:04 PM","Description":"","AWSService":"Amazon DynamoDB","Version":"3.0"},
"DataModel":[{"TableName":"t","KeyAttributes":{"PartitionKey":{"AttributeName":"PK","AttributeType":"S"}},
"NonKeyAttributes":[{"AttributeName":"data","AttributeType":"S"},{"AttributeName":"n","AttributeType":"N"}],
"TableFacets":[{"FacetName":"f","KeyAttributeAlias":{"PartitionKeyAlias":"USER#{id}"},"TableData":[],"NonKeyAttributes":["n"]}],
"GlobalSecondaryIndexes":[{"IndexName":"G","KeyAttributes":{"PartitionKey":{"AttributeName":"data","AttributeType":"S"}},"Projection":{"ProjectionType":"ALL"}}],
"TableData":[{"PK":{"S":"USER#1"},"n":{"N":"1"}}],"DataAccess":{"MySql":{}},"BillingMode":"PAY_PER_REQUEST"}]}`
	if p := checkWorkbench([]byte(good)); len(p) > 0 {
		t.Fatalf("the good model fails: %v", p)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"Version":"3.0"`, `"Version":"2.0"`, "Version 2.0"},
		{`{"AttributeName":"data","AttributeType":"S"},`, ``, "data (S) is not declared"},
		{`"n":{"N":"1"}`, `"n":{"S":"1"}`, "n is S, declared N"},
		{`"n":{"N":"1"}`, `"x":{"N":"1"}`, "attribute x, which is not declared"},
		{`{"PK":{"S":"USER#1"},`, `{`, "item 0 has no PK"},
		{`"NonKeyAttributes":["n"]`, `"NonKeyAttributes":["PK"]`, "attribute PK is not a declared non-key attribute"},
		{`"BillingMode":"PAY_PER_REQUEST"`, `"BillingMode":"ON_DEMAND"`, "billing mode ON_DEMAND"},
		{`"Jan 2, 2026, 03:04 PM","Description"`, `"2026-01-02","Description"`, "DateLastModified \"2026-01-02\""},
		{`"TableFacets"`, `"Facets"`, "unknown field Facets"},
	} {
		broken := strings.Replace(good, c.old, c.new, 1)
		if broken == good {
			t.Fatalf("%q is not in the model", c.old)
		}
		if p := strings.Join(checkWorkbench([]byte(broken)), "\n"); !strings.Contains(p, c.want) {
			t.Errorf("%s → %s: the check says %q, want %q", c.old, c.new, p, c.want)
		}
	}
}

func arr(v any) []any {
	a, _ := v.([]any)
	return a
}
