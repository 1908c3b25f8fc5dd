package lab

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// TestControllerModeIsRefusedWithTheLabsWords: the lab reads scenarios with
// scenario.ParseCluster (which keeps the controller mode's parser out of lab.wasm); a
// controller-mode file is still refused at each way in, as a mode error in the lab's words,
// also when it has other mistakes.
func TestControllerModeIsRefusedWithTheLabsWords(t *testing.T) {
	for _, doc := range []string{
		`{"mode": "controller", "brokers": [{"id": 0}], "steps": [{"op": "advance", "ms": 1000}]}`,
		`{"mode": "controller", "steps": [{"op": "advance", "ms": -5}]}`,
	} {
		errs := map[string]error{}
		_, errs["NewRunner"] = NewRunner([]byte(doc))
		_, errs["ApplyOverrides"] = ApplyOverrides([]byte(doc), nil)
		_, _, errs["AssumptionVariants"] = AssumptionVariants([]byte(doc), "disk")
		_, errs["RunSensitivity"] = RunSensitivity(context.Background(), []byte(doc), []Policy{{Name: "today"}}, nil, Options{})
		for name, err := range errs {
			require.Error(t, err, name)
			var se *scenario.Error
			require.True(t, errors.As(err, &se), "%s: %T %v", name, err, err)
			assert.Equal(t, "mode", se.Path, name)
			assert.Contains(t, se.Msg, "the lab runs cluster-mode scenarios", name)
			assert.NotErrorIs(t, err, scenario.ErrControllerMode, name)
		}
	}
	_, err := NewRunner([]byte(`{"mode": "controller"}`))
	assert.EqualError(t, err, "mode: the lab runs cluster-mode scenarios (a controller-mode run has no cluster to measure)")
}
