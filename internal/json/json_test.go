package json

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhichPackage: native builds must get encoding/json itself (so that the CLI's output and
// the golden files cannot change), js/wasm builds jsonlite.
func TestWhichPackage(t *testing.T) {
	want := "encoding/json"
	if runtime.GOOS == "js" && runtime.GOARCH == "wasm" {
		want = "github.com/kraftlab/kraftlab/internal/jsonlite"
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Number](), reflect.TypeFor[RawMessage](), reflect.TypeFor[Delim](),
		reflect.TypeFor[Decoder](), reflect.TypeFor[Encoder](), reflect.TypeFor[SyntaxError](), reflect.TypeFor[UnmarshalTypeError]()} {
		assert.Equal(t, want, typ.PkgPath(), typ.String())
	}
}

// TestFunctions: the wrappers pass their arguments and results through.
func TestFunctions(t *testing.T) {
	b, err := Marshal(map[string]any{"a": []int{1}, "<": RawMessage(`{ "x" : 2 }`)})
	require.NoError(t, err)
	assert.Equal(t, `{"\u003c":{"x":2},"a":[1]}`, string(b))
	var v struct{ A Number }
	require.NoError(t, Unmarshal([]byte(`{"a": 1.50}`), &v))
	assert.Equal(t, Number("1.50"), v.A)
	assert.True(t, Valid(b))
	assert.False(t, Valid([]byte(`{`)))
}
