package erd_test

// The datasets test opens its databases through source.Open.
import _ "github.com/remodel-dev/remodel/internal/domain/source/engines"
