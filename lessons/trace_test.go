package lessons

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTraceCourse prints every step's times and goal values, for lesson authors:
// KRAFTLAB_LESSON_TRACE=1 go test -run TestTraceCourse -v ./lessons
func TestTraceCourse(t *testing.T) {
	if os.Getenv("KRAFTLAB_LESSON_TRACE") == "" {
		t.Skip("set KRAFTLAB_LESSON_TRACE=1 to print the course's trace")
	}
	names, err := CourseFiles()
	require.NoError(t, err)
	for _, n := range names {
		l, err := LoadCourseLesson(n)
		require.NoError(t, err)
		require.NoError(t, VerifyTrace(l, os.Stdout))
	}
}
