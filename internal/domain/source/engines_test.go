package source_test

// The tests here open both engines through source.Open.
import _ "github.com/remodel-dev/remodel/internal/domain/source/engines"
