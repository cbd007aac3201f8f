package export_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/domain/export"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// typedGameProfile is the game-profile example's mapping with the
// account's opened_at typed unixms (typed true) or as it is.
func typedGameProfile(t *testing.T, typed bool) string {
	const path, at = "../../../examples/game-profile/mapping.yaml", "      rename: {acc_id: ACC_ID, balance: BAL, opened_at: OPENED_AT}\n"
	if !typed {
		return path
	}
	return testenv.EditedFile(t, path, at, at+"      types: {opened_at: unixms}\n")
}

// TestWorkbenchTypesAndEmbeds exports the game-profile example (a user's
// servers embedded in its item) as a NoSQL Workbench model with the
// account's opened_at typed unixms: OPENED_AT is declared N (S without the
// type) and INIT_SERVER L; the golden file holds the typed model.
func TestWorkbenchTypesAndEmbeds(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.LoadExample(t, "postgres", dsn, "../../../examples/game-profile")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	declared := func(out []byte) map[string]string {
		var m export.WorkbenchModel
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		types := map[string]string{}
		for _, a := range m.DataModel[0].NonKeyAttributes {
			types[a.AttributeName] = a.AttributeType
		}
		return types
	}
	typed := export1(t, "--source", dsn, "-m", typedGameProfile(t, true), "--output", "workbench", "--rows", "2")
	plain := export1(t, "--source", dsn, "-m", typedGameProfile(t, false), "--output", "workbench", "--rows", "2")
	if got := declared(typed); got["OPENED_AT"] != "N" || got["INIT_SERVER"] != "L" {
		t.Errorf("typed model: OPENED_AT %q, INIT_SERVER %q; want N and L", got["OPENED_AT"], got["INIT_SERVER"])
	}
	if got := declared(plain); got["OPENED_AT"] != "S" {
		t.Errorf("model without the type: OPENED_AT %q; want S", got["OPENED_AT"])
	}
	if problems := checkWorkbench(typed); len(problems) > 0 {
		t.Errorf("the model is not well formed:\n%s", strings.Join(problems, "\n"))
	}
	norm := dates.ReplaceAll(typed, []byte(`"Date$1": "DATE"`))
	norm = bytes.ReplaceAll(norm, []byte(db), []byte("DB"))
	golden.Check(t, "game-profile.typed.workbench.json", norm)
}
