package lessons

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompiledCourseIsTheCourse: compiled.json is what EncodeCourse writes for the course as it
// is now (run `go run ./lessons/compile` after editing a lesson), and decoding it gives exactly
// the lessons Parse builds: the same scenarios, events, goal and until expressions, lines and
// texts, so that the page's lessons check the same goals as `kraftlab lesson check`.
func TestCompiledCourseIsTheCourse(t *testing.T) {
	course, err := Compiled()
	require.NoError(t, err)
	// The goal pictures, computed once (a replay of the whole course, most of this test's
	// time under Node): encoded here as EncodeCourse encodes them, and compared below with
	// what the compiled course decodes to.
	pictures, err := goalPictures(course)
	require.NoError(t, err)
	enc, exprs, err := encodeCourse(course, pictures)
	require.NoError(t, err)
	onDisk, err := os.ReadFile(CompiledFile)
	require.NoError(t, err)
	require.Equal(t, string(enc), string(onDisk), "lessons/compiled.json is stale: run go run ./lessons/compile")
	require.Equal(t, string(enc), compiled, "the embedded copy is the file")
	onDisk, err = os.ReadFile(CompiledExprsFile)
	require.NoError(t, err)
	require.Equal(t, string(exprs), string(onDisk), "lessons/compiled_exprs.go is stale: run go run ./lessons/compile")

	lessonsOnly, err := CompiledCourse()
	require.NoError(t, err)
	talks, err := CompiledTalks()
	require.NoError(t, err)
	got := append(lessonsOnly, talks...)
	require.Len(t, got, len(course))
	require.NotEmpty(t, talks, "the talks are compiled too")
	events := 0
	for i, l := range course {
		// raw is the parser's intermediate form of an event action; a decoded action has
		// the event it became instead.
		pics := pictures[i]
		for k, s := range l.Steps {
			// The compiled course carries each goal's picture; a parsed lesson computes it.
			assert.Equal(t, pics[k], got[i].Steps[k].Picture, "%s: step %d's goal picture", l.File, k+1)
			got[i].Steps[k].Picture = nil
			if s.From != nil {
				// A scene's origin is the course lesson itself, compared above.
				require.NotNil(t, got[i].Steps[k].From, "%s:%d", l.File, s.From.Line)
				assert.Equal(t, s.From.lesson.File, got[i].Steps[k].From.lesson.File)
				s.From.lesson, got[i].Steps[k].From.lesson = nil, nil
			}
			for _, acts := range append(append([][]Action{s.Reference, s.Play}, s.Solutions...), s.Rejects...) {
				for k := range acts {
					if acts[k].raw != nil {
						events++
						require.NotZero(t, acts[k].event, "%s:%d", l.File, acts[k].Line)
					}
					acts[k].raw = nil
				}
			}
		}
		assert.Equal(t, l, got[i], l.File)
	}
	assert.Greater(t, events, 10, "the course plays events, so their decoding is checked")
	assert.Greater(t, len(compiledExprs), 50, "the course's goals and untils are in the table")
}

// TestGoLiteralRefusesWhatItCannotWrite: a value with no exact Go constant is an error, so the
// table never holds an approximation of what ParseExpr read.
func TestGoLiteralRefusesWhatItCannotWrite(t *testing.T) {
	var b strings.Builder
	require.NoError(t, goLiteral(&b, reflect.ValueOf(&partitionNum{field: "leader", tp: topicPartition{"t", 2}, op: "==", v: 0.1})))
	assert.Equal(t, `&partitionNum{field: "leader", tp: topicPartition{Topic: "t", Partition: 2}, op: "==", v: 0.1}`, b.String())
	assert.ErrorContains(t, goLiteral(&b, reflect.ValueOf(&scalar{v: math.Inf(1)})), "no Go constant")
	assert.ErrorContains(t, goLiteral(&b, reflect.ValueOf(&scalar{v: math.Copysign(0, -1)})), "no Go constant")
	assert.ErrorContains(t, goLiteral(&b, reflect.ValueOf(map[string]int{})), "kind map")
	assert.ErrorContains(t, goLiteral(&b, reflect.ValueOf(struct{ A int }{})), "not of package lessons")
}

// TestDecodeCourseRejectsWhatDoesNotParse: a damaged compiled course is an error naming the
// lesson, not a lesson with a missing goal.
func TestDecodeCourseRejectsWhatDoesNotParse(t *testing.T) {
	sc := `"{\"seed\": 1, \"duration_ms\": 1000, \"cluster\": {\"brokers\": 3, \"topics\": [{\"name\": \"t\", \"partitions\": [{\"replicas\": [0, 1, 2]}]}]}}"`
	_, err := DecodeCourse([]byte(`[{"File":"x.md","Scenario":"{}"}]`))
	assert.ErrorContains(t, err, "compiled course: x.md: ")
	_, err = DecodeCourse([]byte(`[{"File":"x.md","Scenario":` + sc + `,"Steps":[{"Goals":[{"Source":"leader t-0 == 1","Line":8,"Expr":100000}]}]}]`))
	assert.ErrorContains(t, err, "compiled course: x.md: line 8: expression 100000 is not in the compiled table")
	_, err = DecodeCourse([]byte(`[{"File":"x.md","Scenario":` + sc + `,"Steps":[{"Reference":[{"Line":9,"Event":3}]}]}]`))
	assert.ErrorContains(t, err, "compiled course: x.md: line 9: event 2 is not in the lesson's events")
	_, err = DecodeCourse([]byte(`{`))
	assert.ErrorContains(t, err, "compiled course: ")
}
